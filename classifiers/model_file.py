"""Versioned, pickle-free model files: a JSON header plus raw NumPy arrays, checksummed.

Layout (all integers little-endian):

    magic        16 bytes  b"\\x89polyparse\\r\\n\\x1a\\n\\x00\\x00\\x00"  (the PNG trick: a high
                           byte, CR LF, ^Z and NULs catch text-mode and 7-bit transfers)
    header size   8 bytes  uint64, length of the JSON text
    header       UTF-8 JSON with sorted keys: the caller's keys plus `version` (of this layout)
                 and `arrays`, a list of {name, dtype, shape, offset, nbytes} sorted by name;
                 offsets count from the start of the data section
    padding      zero bytes up to a multiple of 64 (the data section starts there)
    data         each array's C-order little-endian bytes at its offset, 64-byte aligned
    crc32         4 bytes  uint32, zlib.crc32 of every byte before it

Layout version 2 differs in one point: arrays written with compress=True are stored as zlib
streams (at COMPRESSION_LEVEL), their table entries naming `codec: "zlib"` and the `stored`
byte count; an uncompressed file stays version 1, byte for byte. Layout version 3 is version 2
whose caller's header entries (all but `format`) are themselves JSON in a compressed uint8
array named HEADER_ARRAY, written when compress=True and that JSON is PACKED_HEADER_BYTES or
longer: the word lists of a header take as much room as the weights of a small model (a UD
Korean parser's 1.8 MB of header JSON packs into about a quarter), and a small header stays
version 2. Layout version 4 adds the codec `zlib-shuffled`: the array's bytes regrouped by
their place in the element (every element's first byte, then every second byte, and so on:
the shuffle filter of HDF5 and Blosc) before zlib, so that the bytes that vary little (the
high bytes of sorted keys, of small counts and offsets, the exponents of weights) make long
runs; the writer stores each array the smaller way (UD Korean's beam pipeline: 36.1 -> 33.4
MB); a version 4 file's header is packed when the HEADER_ARRAY is among its arrays, and a
file none of whose arrays is shuffled keeps the lowest version that reads it.

Nothing in the file depends on time or on the machine, so the same header and arrays always give
byte-identical files. Writing goes through features/output_files.py (a temporary file in the
target's folder followed by `os.replace`), so an interrupted run never leaves a half-written
model behind.
"""
from __future__ import annotations

import json
import mmap
import os
import stat
import struct
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, TypeVar

import numpy as np

from polyparse.features.errors import InputError
from polyparse.features.input_files import input_name, open_input
from polyparse.features.output_files import write_bytes

MAGIC = b"\x89polyparse\r\n\x1a\n\x00\x00\x00"
VERSION = 4  # the newest layout this module reads and writes
PLAIN_VERSION = 1
COMPRESSED_VERSION = 2
PACKED_HEADER_VERSION = 3
ZLIB, SHUFFLED = "zlib", "zlib-shuffled"
# The array holding the header entries of a version 3 file (and of a version 4 file that packs
# them), and the JSON length from which they go there (a name no caller may give an array:
# parentheses).
HEADER_ARRAY = "(header)"
PACKED_HEADER_BYTES = 1 << 16
# zlib level of compressed arrays: level 9 takes five times as long for 0.5 % less on models.
COMPRESSION_LEVEL = 6
# The `format` of a classifier's model file (`polyparse clf`); the parser's is its own.
CLASSIFIER_FORMAT = "polyparse-clf"
ALIGNMENT = 64
Named = TypeVar("Named")
# Model files this large or larger are memory-mapped instead of read (read_model_file).
MAP_BYTES = 1 << 20
# Compressed arrays of this many bytes or more, inflated and together, are inflated in threads
# (up to INFLATE_THREADS, one per CPU this process may use); zlib lets go of the GIL meanwhile.
INFLATE_IN_THREADS_BYTES = 1 << 20
INFLATE_THREADS = 4
DTYPES = frozenset(
    ["|b1", "|i1", "|u1", "<i2", "<u2", "<i4", "<u4", "<i8", "<u8", "<f4", "<f8"]
)
_RESERVED = ("version", "arrays")


class ModelFileError(InputError):
    """A model file that cannot be used: `file: problem` in one sentence."""


def _aligned(n: int) -> int:
    return -(-n // ALIGNMENT) * ALIGNMENT


def _little_endian(array: np.ndarray) -> np.ndarray:
    array = np.asarray(array)
    if array.dtype.kind not in "biuf":
        raise ValueError(f"cannot store arrays of dtype {array.dtype}")
    return np.ascontiguousarray(array, dtype=array.dtype.newbyteorder("<"))


def encode_model(header: dict[str, Any], arrays: dict[str, np.ndarray],
                 compress: bool = False, newest_layout: bool = True) -> bytearray:
    """The bytes of a model file holding header and arrays (see the module notes);
    newest_layout=False: a compressed file is written as layout 2 (its header in its JSON
    however large, no array shuffled), as the files written before layout 3."""
    if "format" not in header or not isinstance(header["format"], str):
        raise ValueError("the header needs a 'format' string")
    for key in _RESERVED:
        if key in header:
            raise ValueError(f"header key {key!r} is reserved for the file layout")
    if HEADER_ARRAY in arrays:
        raise ValueError(f"array name {HEADER_ARRAY!r} is reserved for the file layout")
    version = PLAIN_VERSION
    if compress:
        version = COMPRESSED_VERSION
        entries = {key: value for key, value in header.items() if key != "format"}
        packed = _json_bytes(entries)
        if newest_layout and len(packed) >= PACKED_HEADER_BYTES:
            version = PACKED_HEADER_VERSION
            header = {"format": header["format"]}
            arrays = {**arrays, HEADER_ARRAY: np.frombuffer(packed, dtype=np.uint8)}
    table = []
    chunks = []
    offset = 0
    for name in sorted(arrays):
        array = _little_endian(arrays[name])
        if array.dtype.str not in DTYPES:
            raise ValueError(f"cannot store array {name!r} of dtype {array.dtype}")
        entry = {
            "name": name,
            "dtype": array.dtype.str,
            "shape": list(array.shape),
            "offset": offset,
            "nbytes": array.nbytes,
        }
        payload = array.reshape(-1).view(np.uint8)
        if compress:
            codec, packed = ZLIB, zlib.compress(payload.tobytes(), COMPRESSION_LEVEL)
            if newest_layout and array.dtype.itemsize > 1:
                shuffled = zlib.compress(_shuffled(payload, array.dtype.itemsize),
                                         COMPRESSION_LEVEL)
                if len(shuffled) < len(packed):
                    codec, packed, version = SHUFFLED, shuffled, VERSION
            payload = np.frombuffer(packed, dtype=np.uint8)
            entry.update(codec=codec, stored=int(payload.size))
        table.append(entry)
        chunks.append((offset, payload))
        offset = _aligned(offset + payload.size)
    encoded = _json_bytes(dict(header, version=version, arrays=table))
    start = _aligned(len(MAGIC) + 8 + len(encoded))
    size = start + offset
    buffer = bytearray(size + 4)
    buffer[: len(MAGIC)] = MAGIC
    buffer[len(MAGIC) : len(MAGIC) + 8] = struct.pack("<Q", len(encoded))
    buffer[len(MAGIC) + 8 : len(MAGIC) + 8 + len(encoded)] = encoded
    view = memoryview(buffer)
    for chunk_offset, payload in chunks:
        begin = start + chunk_offset
        view[begin : begin + payload.size] = payload
    buffer[size:] = struct.pack("<I", zlib.crc32(view[:size]))
    return buffer


def _shuffled(payload: np.ndarray, itemsize: int) -> bytes:
    """The bytes of an array (payload: as uint8) grouped by their place in the element."""
    return payload.reshape(-1, itemsize).T.tobytes()


def _json_bytes(entries: dict[str, Any]) -> bytes:
    """entries as the file's JSON: sorted keys, no spaces, ASCII."""
    return json.dumps(entries, sort_keys=True, separators=(",", ":"), ensure_ascii=True,
                      allow_nan=False).encode("utf-8")


def write_model_file(
    path: str | os.PathLike, header: dict[str, Any], arrays: dict[str, np.ndarray],
    compress: bool = False, newest_layout: bool = True,
) -> None:
    """Write a model file, never half of one (features/output_files.py: a temporary file in the
    same folder, then os.replace; FIFOs and devices written directly); compress: arrays as
    zlib streams, for files that are shipped rather than mapped; newest_layout: encode_model's."""
    write_bytes(path, encode_model(header, arrays, compress, newest_layout))


def classifier_file_bytes(classifier: Any, metadata: dict[str, Any] | None = None) -> bytearray:
    """The bytes of a CLASSIFIER_FORMAT model file holding a classifier's to_arrays()
    (metadata: JSON-ready extras)."""
    header, arrays = classifier.to_arrays()
    header["format"] = CLASSIFIER_FORMAT
    if metadata:
        header["metadata"] = metadata
    return encode_model(header, arrays)


def write_classifier_file(path: str | os.PathLike, classifier: Any,
                          metadata: dict[str, Any] | None = None) -> None:
    """Write a classifier's to_arrays() as a CLASSIFIER_FORMAT model file atomically
    (metadata: JSON-ready extras)."""
    write_bytes(path, classifier_file_bytes(classifier, metadata))


def read_model_file(
    path: str | os.PathLike, expected_format: str | None = None,
    layout: dict[str, Any] | None = None, defer: Callable[[str], bool] | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """(header, arrays) of a model file; ModelFileError names the file and the problem;
    layout, when given, is told the file's layout, and defer picks compressed arrays to
    inflate later (decode_model)."""
    return decode_model(model_file_data(path), input_name(path), expected_format, layout, defer)


def model_file_data(path: str | os.PathLike) -> bytearray | mmap.mmap:
    """The bytes of a model file, read once ("-": standard input; a pipe or a FIFO can be
    read only once, so what is sniffed and what is decoded are these same bytes).

    A regular file of MAP_BYTES or more is memory-mapped copy-on-write rather than read: its
    arrays are views of the mapping (writable, private to this process), nothing is copied,
    and the pages stay shared with the page cache until written."""
    with open_input(path) as stream:
        info = os.fstat(stream.fileno())
        if stat.S_ISREG(info.st_mode) and info.st_size >= MAP_BYTES and stream.tell() == 0:
            try:
                return mmap.mmap(stream.fileno(), 0, access=mmap.ACCESS_COPY)
            except (OSError, ValueError):
                pass
        return bytearray(stream.read())


def model_format_of_bytes(data: bytes | bytearray | memoryview) -> str | None:
    """model_format of a model file's bytes."""
    view = memoryview(data)
    if len(view) < len(MAGIC) + 8 or bytes(view[:len(MAGIC)]) != MAGIC:
        return None
    (header_size,) = struct.unpack("<Q", bytes(view[len(MAGIC):len(MAGIC) + 8]))
    if header_size > 1 << 26:
        return None
    return _format_of_header(bytes(view[len(MAGIC) + 8:len(MAGIC) + 8 + header_size]))


def _format_of_header(text: bytes) -> str | None:
    try:
        header = json.loads(text.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    found = header.get("format") if isinstance(header, dict) else None
    return found if isinstance(found, str) else None


def decode_model(
    data: bytes | bytearray | mmap.mmap, name: str, expected_format: str | None = None,
    layout: dict[str, Any] | None = None, defer: Callable[[str], bool] | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """Check and unpack the bytes of a model file (arrays are views of `data`, or of their
    decompressed bytes); layout, when given, gets "version" (of the layout) and "compressed"
    (whether the arrays were stored compressed), so that the file can be written as it was.

    With defer (and a layout), a compressed array whose name it accepts is left out of the
    arrays: layout["deferred"] maps its name to a function that inflates it when called (the
    checksum and the array table are checked now, the inflation then, with the same errors),
    for the parts of a model that a run may never use."""
    corrupt = ModelFileError(f"{name}: truncated or corrupt model file (checksum mismatch)")
    if not len(data):
        raise ModelFileError(f"{name}: empty file, not a polyparse model file")
    if bytes(data[:len(MAGIC)]) != MAGIC:
        if len(data) < len(MAGIC) and MAGIC.startswith(bytes(data)):
            raise ModelFileError(
                f"{name}: truncated or corrupt model file (shorter than its header)"
            )
        raise ModelFileError(f"{name}: not a polyparse model file")
    if len(data) < len(MAGIC) + 8 + 4:
        raise ModelFileError(f"{name}: truncated or corrupt model file (shorter than its header)")
    view = memoryview(data)
    (stored_crc,) = struct.unpack("<I", view[-4:])
    if zlib.crc32(view[:-4]) != stored_crc:
        raise corrupt
    (header_size,) = struct.unpack("<Q", view[len(MAGIC) : len(MAGIC) + 8])
    header_end = len(MAGIC) + 8 + header_size
    if header_end > len(data) - 4:
        raise corrupt
    try:
        header = json.loads(bytes(view[len(MAGIC) + 8 : header_end]).decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise ModelFileError(f"{name}: corrupt model file (unreadable header)") from None
    if not isinstance(header, dict):
        raise ModelFileError(f"{name}: corrupt model file (unreadable header)")
    version = header.get("version")
    if not isinstance(version, int) or version < 1:
        raise ModelFileError(f"{name}: corrupt model file (no layout version)")
    if version > VERSION:
        raise ModelFileError(
            f"{name}: model file layout version {version} is newer than this polyparse "
            f"reads ({VERSION})"
        )
    found_format = header.get("format")
    if not isinstance(found_format, str):
        raise ModelFileError(f"{name}: corrupt model file (no format name)")
    if expected_format is not None and found_format != expected_format:
        raise ModelFileError(f"{name}: is a {found_format} model, expected {expected_format}")
    start = _aligned(header_end)
    size = len(data) - 4
    arrays: dict[str, Any] = {}
    deferred: dict[str, Callable[[], np.ndarray]] = {}
    # The compressed arrays to inflate now: name -> (packed, dtype, shape, nbytes, error).
    packed_arrays: dict[str, tuple] = {}
    table = header.get("arrays")
    if not isinstance(table, list):
        raise ModelFileError(f"{name}: corrupt model file (no array table)")
    for entry in table:
        try:
            array_name = str(entry["name"])
            dtype_text = str(entry["dtype"])
            dtype = np.dtype(dtype_text)
            shape = tuple(int(n) for n in entry["shape"])
            offset, nbytes = int(entry["offset"]), int(entry["nbytes"])
            codec = entry.get("codec")
            stored = int(entry["stored"]) if codec is not None else nbytes
        except (KeyError, TypeError, ValueError):
            _inflate_all(packed_arrays, arrays)
            raise ModelFileError(f"{name}: corrupt model file (bad array table entry)") from None
        count = int(np.prod(shape, dtype=np.int64))
        if (
            dtype_text not in DTYPES
            or codec not in (None, ZLIB, SHUFFLED)
            or min(shape, default=0) < 0
            or nbytes != count * dtype.itemsize
            or offset < 0
            or stored < 0
            or start + offset + stored > size
        ):
            # An array before it that does not decompress is told first, as when each array
            # was inflated on the way.
            _inflate_all(packed_arrays, arrays)
            raise ModelFileError(f"{name}: corrupt model file (array {array_name!r} does not fit)")
        if codec is not None:
            packed = view[start + offset : start + offset + stored]
            if (defer is not None and layout is not None and array_name != HEADER_ARRAY
                    and defer(array_name)):
                # A copy of the compressed bytes, so that a mapped file is not kept for them.
                deferred[array_name] = partial(_inflate, bytes(packed), dtype, shape, nbytes,
                                               f"{name}: corrupt model file (array "
                                               f"{array_name!r} does not decompress)",
                                               codec == SHUFFLED)
                continue
            # Kept in table order; inflated once the whole table is checked.
            arrays[array_name] = None
            packed_arrays[array_name] = (packed, dtype, shape, nbytes,
                                         f"{name}: corrupt model file (array {array_name!r} "
                                         "does not decompress)", codec == SHUFFLED)
        else:
            array = np.frombuffer(data, dtype=dtype, count=count, offset=start + offset)
            arrays[array_name] = array.reshape(shape)
    _inflate_all(packed_arrays, arrays)
    if version == PACKED_HEADER_VERSION or HEADER_ARRAY in arrays:
        header.update(_packed_header(arrays.pop(HEADER_ARRAY, None), name))
    if layout is not None:
        layout.update(version=version, compressed=any(
            entry.get("codec") is not None for entry in table), deferred=deferred)
    del header["arrays"], header["version"]
    return header, arrays


def _packed_header(packed: np.ndarray | None, name: str) -> dict[str, Any]:
    """The header entries of a version 3 file's HEADER_ARRAY (ModelFileError naming the file
    when it is missing or unreadable)."""
    unreadable = ModelFileError(f"{name}: corrupt model file (unreadable header)")
    if packed is None or packed.dtype != np.uint8 or packed.ndim != 1:
        raise unreadable
    try:
        entries = json.loads(packed.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise unreadable from None
    if not isinstance(entries, dict) or any(key in entries for key in ("format", *_RESERVED)):
        raise unreadable
    return entries


def _inflate_all(packed_arrays: dict[str, tuple], arrays: dict[str, Any]) -> None:
    """Inflate the arrays of packed_arrays (name -> _inflate's arguments) into arrays, in
    threads when they are large together (by inflated bytes, which zlib's time follows: the
    largest first, each to the thread with the fewest bytes so far); the error of the first
    in table order that does not decompress."""
    names = list(packed_arrays)
    cost = {name: packed_arrays[name][3] for name in names}
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else 1
    n_threads = min(INFLATE_THREADS, len(names), cpus)
    if n_threads < 2 or sum(cost.values()) < INFLATE_IN_THREADS_BYTES:
        for name in names:
            arrays[name] = _inflate(*packed_arrays[name])
        packed_arrays.clear()
        return
    import signal
    import threading

    from polyparse.features.worker_threads import QUIT_SIGNALS

    shares: list[list[str]] = [[] for _ in range(n_threads)]
    loads = [0] * n_threads
    for name in sorted(names, key=lambda name: -cost[name]):
        lightest = loads.index(min(loads))
        shares[lightest].append(name)
        loads[lightest] += cost[name]
    done: dict[str, np.ndarray | BaseException] = {}

    def inflate(share: list[str], worker: bool) -> None:
        if worker:
            # Quit signals are the main thread's to take (features/worker_threads.py).
            signal.pthread_sigmask(signal.SIG_BLOCK, QUIT_SIGNALS)
        for name in share:
            try:
                done[name] = _inflate(*packed_arrays[name])
            except BaseException as error:
                done[name] = error

    threads = [threading.Thread(target=inflate, args=(share, True), daemon=True)
               for share in shares[1:]]
    for thread in threads:
        thread.start()
    inflate(shares[0], False)
    for thread in threads:
        thread.join()
    packed_arrays.clear()
    for name in names:
        if isinstance(done[name], BaseException):
            raise done[name]
        arrays[name] = done[name]


def _inflate(packed: bytes | memoryview, dtype: np.dtype, shape: tuple[int, ...], nbytes: int,
             error: str, shuffled: bool = False) -> np.ndarray:
    """A zlib-compressed array of a model file (shuffled: its bytes grouped by their place in
    the element); ModelFileError(error) when it does not decompress to its nbytes."""
    try:
        # Told the size, zlib inflates into one buffer instead of growing a chain of blocks.
        raw = zlib.decompress(packed, bufsize=max(nbytes, 1))
    except zlib.error:
        raw = b""
    if len(raw) != nbytes:
        raise ModelFileError(error)
    count = nbytes // dtype.itemsize
    if shuffled and dtype.itemsize > 1:
        planes = np.frombuffer(raw, dtype=np.uint8).reshape(dtype.itemsize, count)
        return np.ascontiguousarray(planes.T).view(dtype).reshape(shape)
    return np.frombuffer(bytearray(raw), dtype=dtype, count=count).reshape(shape)


@contextmanager
def inconsistent(source: str, what: str = "model header") -> Iterator[None]:
    """Inside it, a KeyError, TypeError or ValueError met while reading a model becomes one
    ModelFileError line: `source: inconsistent {what} ({error})`."""
    try:
        yield
    except (KeyError, TypeError, ValueError) as error:
        raise ModelFileError(f"{source}: inconsistent {what} ({error})") from None


def require_arrays(
    name: str,
    arrays: dict[str, np.ndarray],
    expected: dict[str, tuple[str, tuple[int | None, ...]]],
) -> None:
    """Check that each expected array exists with its dtype and shape (None = any length)."""
    for key, (dtype, shape) in expected.items():
        if key not in arrays:
            raise ModelFileError(f"{name}: incomplete model file (array {key!r} is missing)")
        array = arrays[key]
        if array.dtype != np.dtype(dtype) or len(array.shape) != len(shape) or any(
            want is not None and want != got for want, got in zip(shape, array.shape)
        ):
            raise ModelFileError(
                f"{name}: inconsistent model file "
                f"(array {key!r} is {array.dtype} {_shape_text(array.shape)}, "
                f"expected {np.dtype(dtype)} {_shape_text(shape)})"
            )


def _shape_text(shape: tuple[int | None, ...]) -> str:
    return "(" + ", ".join("*" if n is None else str(n) for n in shape) + ")"


def string_arrays(name: str, strings: list[str]) -> dict[str, np.ndarray]:
    """A list of strings as two arrays: `<name>_text` (their UTF-8 bytes, one after the
    other) and `<name>_offsets` (where each starts, and the end)."""
    encoded = [text.encode("utf-8") for text in strings]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum([len(text) for text in encoded], out=offsets[1:])
    return {f"{name}_text": np.frombuffer(b"".join(encoded), dtype=np.uint8),
            f"{name}_offsets": offsets}


def arrays_strings(arrays: dict[str, np.ndarray], name: str) -> list[str]:
    """The strings `string_arrays` stored; ValueError when the offsets do not fit the text."""
    text = arrays[f"{name}_text"].tobytes()
    offsets = arrays[f"{name}_offsets"].tolist()
    if not offsets or offsets[0] != 0 or offsets[-1] != len(text) or any(
            b < a for a, b in zip(offsets, offsets[1:])):
        raise ValueError(f"the {name} offsets do not fit their text")
    return [text[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:])]


def arrays_under(arrays: dict[str, Named], prefix: str) -> dict[str, Named]:
    """The arrays (or anything named like them) whose names start with `prefix`
    ("split0/transition/"), named without it."""
    return {name[len(prefix):]: array for name, array in arrays.items()
            if name.startswith(prefix)}
