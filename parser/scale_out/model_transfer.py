"""A model on its way to a worker: the bytes of its model file, their sha256 and the runtime
settings that are not in the file (classifiers/model_bytes.py), built into the model once per
worker process, when a task first needs it.

Scattering this payload instead of the model object keeps the driver from encoding the model
again and the scheduler's transfer from decoding it on arrival: the worker checks the sha256
and builds the model from the bytes, as loading the file does, once; its other tasks reuse it.
"""
from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from classifiers.model_bytes import load_from_bytes

# The models this process has built from payloads, by sha256 and settings.
_built: dict[tuple[str, str], Any] = {}
_building = threading.Lock()


@dataclass(frozen=True)
class ModelPayload:
    """What load_from_bytes needs to rebuild a model in another process."""

    model_class: type
    data: bytes = field(repr=False)
    sha256: str
    settings: dict[str, Any]

    @classmethod
    def of(cls, model: Any, path: str | None = None) -> ModelPayload:
        """The payload of a loaded model: the bytes of the file it was loaded from (path),
        else the bytes it pickles as."""
        data = Path(path).read_bytes() if path is not None else model.pickle_bytes()
        return cls(type(model), data, hashlib.sha256(data).hexdigest(),
                   dict(model.runtime_settings()))

    def model(self) -> Any:
        """The model, built from the bytes the first time this process asks."""
        key = (self.sha256, repr(sorted(self.settings.items())))
        with _building:
            found = _built.get(key)
            if found is None:
                found = _built[key] = load_from_bytes(self.model_class, self.data, self.sha256,
                                                      self.settings)
        return found
