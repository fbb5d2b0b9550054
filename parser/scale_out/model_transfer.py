"""A model on its way to a worker: the bytes of its model file (or only the file's path), their
sha256 and the runtime settings that are not in the file (classifiers/model_bytes.py), built
into the model once per worker process, when a task first needs it, and kept for every later
task and run that sends the same sha256 and settings.

Sending the payload instead of the model object keeps the driver from encoding the model again
and the transfer from decoding it on arrival: the worker checks the sha256 and builds the model
from the bytes, as loading the file does. A payload by reference carries no bytes, only the
file's absolute path: a worker reads it there (a worker on this machine, or on a filesystem
shared with the driver) and checks the sha256; one that cannot says so (NotOnWorker), and the
driver sends the bytes instead.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from polyparse.classifiers.model_bytes import load_from_bytes, model_from_bytes
from polyparse.parser.scale_out.shards import read_checked

# The models this process has built from payloads, by sha256 and settings.
_built: dict[tuple[str, str], Any] = {}
_building = threading.Lock()


@dataclass(frozen=True)
class ModelPayload:
    """What load_from_bytes needs to rebuild a model in another process: the model file's
    bytes, or (data empty) the absolute path to read them from."""

    model_class: type
    data: bytes = field(repr=False)
    sha256: str
    settings: dict[str, Any]
    path: str | None = None

    @classmethod
    def of(cls, model: Any, path: str | None = None) -> ModelPayload:
        """The payload of a loaded model: the bytes of the file it was loaded from (path),
        else the bytes it pickles as."""
        data = Path(path).read_bytes() if path is not None else model.pickle_bytes()
        return cls(type(model), data, hashlib.sha256(data).hexdigest(),
                   dict(model.runtime_settings()))

    def reference(self, path: str) -> ModelPayload:
        """The payload by reference: the absolute path of the file of these bytes, no bytes."""
        return dataclasses.replace(self, data=b"", path=os.path.abspath(path))

    def model(self) -> Any:
        """The model, built from the bytes the first time this process asks (NotOnWorker when
        a payload by reference finds no such file here)."""
        key = (self.sha256, repr(sorted(self.settings.items())))
        with _building:
            found = _built.get(key)
            if found is None:
                found = _built[key] = self._build()
        return found

    def _build(self) -> Any:
        if self.path is None:
            return load_from_bytes(self.model_class, self.data, self.sha256, self.settings)
        # read_checked has checked the sha256: the bytes are hashed once on the worker.
        data = read_checked("model", self.path, self.sha256)
        return model_from_bytes(self.model_class, data, self.settings)
