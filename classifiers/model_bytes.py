"""Objects that are what their model file holds: `to_bytes()`, `from_bytes()`, and pickling
through those bytes.

A model pickles as a call `load_from_bytes(cls, data, sha256, settings)`: `data` the bytes its
`save()` would write, `sha256` their hex digest, checked before anything is decoded, and
`settings` the few runtime settings that change its output without being in the file (a
parser's evaluation mode). Nothing else of the object goes into the pickle, so a process pool
or a Dask worker receives the model file's bytes once and rebuilds the model as loading the
file would.
"""
from __future__ import annotations

import mmap
import os
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from polyparse.classifiers.model_file import (
    COMPRESSED_VERSION,
    ModelFileError,
    decode_model,
    encode_model,
    inconsistent,
    model_file_data,
    write_model_file,
)
from polyparse.classifiers.pipeline_file import layer_data
from polyparse.features.input_files import input_name

Buffer = bytes | bytearray | memoryview


class ModelBytes:
    """Base of the classes that pickle through their model bytes.

    A subclass defines to_bytes() (the bytes save() writes) and from_bytes() (the object
    loading those bytes gives), and, when it has settings outside the file that change its
    output, runtime_settings() and apply_runtime_settings().
    """

    def to_bytes(self) -> bytes:
        raise NotImplementedError

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> ModelBytes:
        raise NotImplementedError

    def runtime_settings(self) -> dict[str, Any]:
        """Settings that change the output but are not in the model bytes."""
        return {}

    def apply_runtime_settings(self, settings: dict[str, Any]) -> None:
        """Restore what runtime_settings() gave, on an object made by from_bytes."""
        if settings:
            raise ValueError(f"{type(self).__name__} takes no runtime settings, not "
                             f"{', '.join(sorted(settings))}")

    def pickle_bytes(self) -> bytes:
        """The model bytes a pickle carries: to_bytes(), or, for a model whose file is
        compressed, the same model uncompressed (from_bytes reads both, and compressing on
        every pickle would cost more than the bytes it saves on a pipe)."""
        return self.to_bytes()

    def __reduce__(self) -> tuple[Callable[..., ModelBytes], tuple[Any, ...]]:
        data = self.pickle_bytes()
        return load_from_bytes, (type(self), data, _sha256(data), self.runtime_settings())


class ParserModelBytes(ModelBytes):
    """A parser's model file: the header entries of the model itself (HEADER_KEYS), and the
    file's other entries (training command, dev scores), which a loaded parser keeps in
    `header` and writes back; pickled as the bytes of the file it was loaded from
    (pickle_bytes)."""

    HEADER_KEYS: tuple[str, ...] = ()
    MODEL_FORMAT: str = ""
    # The layer of a pipeline file (classifiers/pipeline_file.py) that load() reads when given
    # one; None: the model is no layer of a pipeline.
    PIPELINE_LAYER: str | None = None
    header: dict[str, Any]
    # Whether the model file it was loaded from stores its arrays compressed.
    compressed: bool = False
    # Whether a compressed file it writes may use the newest layout (model_file.py: a large
    # header packed, arrays shuffled): not when it was loaded from a compressed file of layout
    # 2, which it then writes again byte for byte.
    newest_layout: bool = True
    # The bytes of the model file it was loaded from (a mapping of a large file), which a
    # pickle carries as they are; None once the model is trained or changed here.
    file_data: Buffer | mmap.mmap | None = None

    @staticmethod
    def deferred_array(name: str) -> bool:
        """Whether load() leaves the compressed array `name` packed, to be inflated (and
        checked) when the part of the model that holds it is first used."""
        return False

    @classmethod
    def load(cls, path: str | os.PathLike) -> Any:
        """The parser of a model file: its checksum and header are checked now, arrays that
        deferred_array() picks are inflated when first used."""
        data, source = model_file_data(path), input_name(path)
        if cls.PIPELINE_LAYER is not None:
            data = layer_data(data, source, cls.PIPELINE_LAYER)
        return cls.load_data(data, source)

    @classmethod
    def load_data(cls, data: Buffer | mmap.mmap, source: str) -> Any:
        """load() of a model file's bytes as read (model_file_data), named source."""
        layout: dict[str, Any] = {}
        header, arrays = decode_model(data, source, cls.MODEL_FORMAT, layout,
                                      cls.deferred_array)
        parser = cls._parser_of_parts(header, arrays, source, layout["deferred"])
        return parser.loaded_from(data, layout)

    @classmethod
    def from_bytes(cls, data: Buffer, source: str = "model bytes") -> Any:
        """The parser of a model file's bytes (as load reads the file)."""
        layout: dict[str, Any] = {}
        parser = cls._parser_of_parts(*decode_model_bytes(data, source, cls.MODEL_FORMAT,
                                                          layout), source)
        return parser.loaded_from(data, layout)

    def loaded_from(self, data: Buffer | mmap.mmap, layout: dict[str, Any]) -> Any:
        """This parser, remembering the file it was loaded from: its bytes and its layout
        (decode_model's), so that it writes and pickles as that file."""
        self.compressed = layout["compressed"]
        self.newest_layout = layout["version"] != COMPRESSED_VERSION
        self.file_data = data
        return self

    @classmethod
    def _parser_of_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                         source: str,
                         deferred: dict[str, Callable[[], np.ndarray]] | None = None) -> Any:
        """_from_file_parts's parser, which keeps the file's header; a header or array that
        does not fit the model is one ModelFileError naming source."""
        with inconsistent(source):
            parser = cls._from_file_parts(header, arrays, source, deferred or {})
        parser.header = header
        return parser

    @classmethod
    def _from_file_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                         source: str, deferred: dict[str, Callable[[], np.ndarray]]) -> Any:
        """The parser of a model file's header and arrays (deferred: the arrays left packed,
        each inflated by calling it); `source` names the file in errors."""
        raise NotImplementedError

    def save(self, path: str | os.PathLike, extra_header: dict[str, Any] | None = None,
             compress: bool | None = None) -> None:
        """Write the model file (extra_header: JSON-ready entries beside the model, None: those
        of the file it was loaded from; compress: zlib-compressed arrays, None: as the file it
        was loaded from)."""
        write_model_file(path, *self._file_parts(extra_header),
                         compress=self.compressed if compress is None else compress,
                         newest_layout=self.newest_layout)

    def to_bytes(self, extra_header: dict[str, Any] | None = None,
                 compress: bool | None = None) -> bytes:
        """The bytes of the model file save() writes."""
        return bytes(encode_model(*self._file_parts(extra_header),
                                  self.compressed if compress is None else compress,
                                  self.newest_layout))

    def _file_parts(self, extra_header: dict[str, Any] | None
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """The model file's header (the model's entries and extra_header's, or the loaded
        file's extras) and its arrays."""
        raise NotImplementedError

    def begin_training(self, sentences: Iterable[Any]) -> list[Any]:
        """What a parser's train() does first: its training sentences as a list (ValueError
        when there are none), and the parser no longer the file it was loaded from (none of
        that file's header entries, arrays not compressed, no file bytes to pickle)."""
        sentences = list(sentences)
        if not sentences:
            raise ValueError("no training sentences")
        self.header = {}
        self.compressed = False
        self.newest_layout = True
        self.file_data = None
        return sentences

    def pickle_bytes(self) -> bytes:
        """The model file's bytes as loaded (a compressed file stays compressed: the bundled
        parser pickles as its 8.5 MB, not the 28.8 MB of its arrays inflated), or, for a
        model trained or changed here, its bytes uncompressed (compressing on every pickle
        would cost more than it saves on a pipe)."""
        if self.file_data is not None:
            return bytes(self.file_data)
        return self.to_bytes(compress=False)

    def file_extras(self) -> dict[str, Any]:
        """The header entries beside the model of the file this parser was loaded from."""
        return {key: value for key, value in self.header.items()
                if key not in self.HEADER_KEYS}


def _sha256(data: Buffer) -> str:
    """The sha256 of model bytes (hashlib imported here: only pickles need it, and a parse
    that pickles nothing does not pay for its import)."""
    import hashlib

    return hashlib.sha256(data).hexdigest()


def load_from_bytes(cls: type[ModelBytes], data: Buffer, sha256: str,
                    settings: dict[str, Any] | None = None) -> ModelBytes:
    """The object a ModelBytes pickled; ModelFileError (one line) when data does not match
    its sha256 or cannot be decoded."""
    name = _checked_class_name(cls)
    if _sha256(data) != sha256:
        raise ModelFileError(f"{name}: the model bytes do not match their sha256 (changed or "
                             "cut short on the way)")
    return _built(cls, data, name, settings)


def model_from_bytes(cls: type[ModelBytes], data: Buffer,
                     settings: dict[str, Any] | None = None) -> ModelBytes:
    """load_from_bytes for bytes the caller has already checked against their sha256."""
    return _built(cls, data, _checked_class_name(cls), settings)


def _checked_class_name(cls: type[ModelBytes]) -> str:
    name = f"pickled {getattr(cls, '__name__', cls)}"
    if not (isinstance(cls, type) and issubclass(cls, ModelBytes)):
        raise ModelFileError(f"{name}: not a class that loads from model bytes")
    return name


def _built(cls: type[ModelBytes], data: Buffer, name: str,
           settings: dict[str, Any] | None) -> ModelBytes:
    model = cls.from_bytes(data, name)
    model.apply_runtime_settings(dict(settings or {}))
    return model


def decode_model_bytes(data: Buffer, source: str, expected_format: str | None = None,
                       layout: dict[str, Any] | None = None
                       ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """decode_model on a writable copy of data (bytes and memoryviews are copied once), so the
    arrays are writable, as when a file is read."""
    return decode_model(data if isinstance(data, bytearray) else bytearray(data), source,
                        expected_format, layout)
