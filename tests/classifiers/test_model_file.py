"""Model files: determinism, round trips, and one-sentence errors for broken or foreign files."""
from __future__ import annotations

import json
import mmap
import os
import struct
import zlib
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers import model_file
from polyparse.classifiers.model_file import (
    ALIGNMENT,
    MAGIC,
    MAP_BYTES,
    ModelFileError,
    decode_model,
    encode_model,
    read_model_file,
    write_model_file,
)
from polyparse.features.errors import InputError


def sample() -> tuple[dict, dict[str, np.ndarray]]:
    header = {"format": "polyparse-clf", "backend": "test", "classes": [-1, 1], "note": "ü"}
    arrays = {
        "weights": np.arange(12, dtype=np.float32).reshape(4, 3),
        "keys": np.array([1, 2**63, 5], dtype=np.uint64),
        "empty": np.zeros((0, 7), dtype=np.int32),
        "flags": np.array([True, False]),
        "big_endian": np.arange(3, dtype=">i4"),
    }
    return header, arrays


def test_round_trip(tmp_path: Path) -> None:
    header, arrays = sample()
    path = tmp_path / "x.model"
    write_model_file(path, header, arrays)
    read_header, read_arrays = read_model_file(path, "polyparse-clf")
    assert read_header == header
    assert sorted(read_arrays) == sorted(arrays)
    for name, array in arrays.items():
        assert read_arrays[name].shape == array.shape
        assert np.array_equal(read_arrays[name], array)
        assert read_arrays[name].dtype == array.dtype.newbyteorder("<")


def test_same_content_same_bytes(tmp_path: Path) -> None:
    header, arrays = sample()
    write_model_file(tmp_path / "a.model", header, arrays)
    reordered = dict(reversed(list(arrays.items())))
    write_model_file(tmp_path / "b.model", dict(reversed(list(header.items()))), reordered)
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()


def test_layout_magic_sorted_json_alignment_crc() -> None:
    header, arrays = sample()
    data = bytes(encode_model(header, arrays))
    assert data.startswith(MAGIC)
    (size,) = struct.unpack("<Q", data[len(MAGIC) : len(MAGIC) + 8])
    text = data[len(MAGIC) + 8 : len(MAGIC) + 8 + size].decode()
    parsed = json.loads(text)
    assert text == json.dumps(parsed, sort_keys=True, separators=(",", ":"))
    assert parsed["format"] == "polyparse-clf" and parsed["version"] == 1
    start = -(-(len(MAGIC) + 8 + size) // ALIGNMENT) * ALIGNMENT
    for entry in parsed["arrays"]:
        assert (start + entry["offset"]) % ALIGNMENT == 0
    import zlib

    assert struct.unpack("<I", data[-4:])[0] == zlib.crc32(data[:-4])


def test_no_temporary_left_and_target_untouched_on_error(tmp_path: Path) -> None:
    path = tmp_path / "x.model"
    path.write_bytes(b"old")
    with pytest.raises(ValueError):
        write_model_file(path, {"format": "f"}, {"bad": np.array(["text"])})
    with pytest.raises(TypeError):
        write_model_file(path, {"format": "f", "x": object()}, {})
    assert path.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["x.model"]


def test_reserved_and_missing_header_keys() -> None:
    with pytest.raises(ValueError, match="reserved"):
        encode_model({"format": "f", "arrays": []}, {})
    with pytest.raises(ValueError, match="format"):
        encode_model({}, {})


def expect_error(path: Path, fragment: str, expected_format: str | None = None) -> str:
    with pytest.raises(ModelFileError) as caught:
        read_model_file(path, expected_format)
    message = str(caught.value)
    assert isinstance(caught.value, InputError)
    assert message.startswith(f"{path}: ")
    assert fragment in message
    assert "\n" not in message
    return message


@pytest.mark.parametrize("keep", [0.99, 0.5, 0.1])
def test_truncated(tmp_path: Path, keep: float) -> None:
    header, arrays = sample()
    path = tmp_path / "x.model"
    write_model_file(path, header, arrays)
    data = path.read_bytes()
    path.write_bytes(data[: int(len(data) * keep)])
    expect_error(path, "truncated or corrupt model file")


def test_truncated_inside_magic(tmp_path: Path) -> None:
    path = tmp_path / "x.model"
    path.write_bytes(MAGIC[:5])
    expect_error(path, "truncated or corrupt model file")


def test_flipped_byte(tmp_path: Path) -> None:
    header, arrays = sample()
    path = tmp_path / "x.model"
    write_model_file(path, header, arrays)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x10
    path.write_bytes(bytes(data))
    assert expect_error(path, "").endswith("truncated or corrupt model file (checksum mismatch)")


def test_foreign_files(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    (tmp_path / "random.model").write_bytes(rng.bytes(4096))
    expect_error(tmp_path / "random.model", "not a polyparse model file")
    (tmp_path / "text.model").write_text("svm_type c_svc\nkernel_type polynomial\n")
    expect_error(tmp_path / "text.model", "not a polyparse model file")
    (tmp_path / "empty.model").write_bytes(b"")
    expect_error(tmp_path / "empty.model", "empty file")


def test_wrong_format(tmp_path: Path) -> None:
    header, arrays = sample()
    path = tmp_path / "x.model"
    write_model_file(path, header, arrays)
    message = expect_error(path, "", "polyparse-dep")
    assert message == f"{path}: is a polyparse-clf model, expected polyparse-dep"


def test_newer_layout_version(tmp_path: Path) -> None:
    data = bytearray(encode_model({"format": "f"}, {}))
    text = data[len(MAGIC) + 8 : -4].rstrip(b"\0")
    patched = text.replace(b'"version":1', b'"version":9')
    import zlib

    data[len(MAGIC) + 8 : len(MAGIC) + 8 + len(patched)] = patched
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    path = tmp_path / "new.model"
    path.write_bytes(bytes(data))
    expect_error(path, "layout version 9 is newer")


def test_require_arrays() -> None:
    from polyparse.classifiers.model_file import require_arrays

    arrays = {"w": np.zeros((3, 2), dtype=np.float32)}
    require_arrays("m", arrays, {"w": ("float32", (None, 2))})
    missing = r"^m: incomplete model file \(array 'v' is missing\)$"
    with pytest.raises(ModelFileError, match=missing):
        require_arrays("m", arrays, {"v": ("float32", (None,))})
    with pytest.raises(ModelFileError, match=r"is float32 \(3, 2\), expected float64 \(\*, 2\)"):
        require_arrays("m", arrays, {"w": ("float64", (None, 2))})


def test_compressed_round_trip_is_deterministic_and_smaller(tmp_path: Path) -> None:
    header, arrays = sample()
    arrays["zeros"] = np.zeros((1000, 50))
    plain, packed = tmp_path / "plain.model", tmp_path / "packed.model"
    write_model_file(plain, header, arrays)
    write_model_file(packed, header, arrays, compress=True)
    first = packed.read_bytes()
    write_model_file(packed, header, arrays, compress=True)
    assert packed.read_bytes() == first
    assert packed.stat().st_size < plain.stat().st_size // 10
    read_header, read_arrays = read_model_file(packed, "polyparse-clf")
    assert read_header == header
    for name, array in arrays.items():
        assert np.array_equal(read_arrays[name], array)
        assert read_arrays[name].dtype == array.dtype.newbyteorder("<")
    table = json.loads(first[len(MAGIC) + 8:].split(b"\0", 1)[0].decode()[
        : struct.unpack("<Q", first[len(MAGIC):len(MAGIC) + 8])[0]])
    assert table["version"] in (2, 4)
    assert {a["codec"] for a in table["arrays"]} <= {"zlib", "zlib-shuffled"}
    assert (table["version"] == 4) == any(a["codec"] == "zlib-shuffled"
                                          for a in table["arrays"])
    assert b'"version":1' in plain.read_bytes()[:2000]


def file_table(data: bytes) -> dict:
    """The JSON header at the start of a model file's bytes."""
    (size,) = struct.unpack("<Q", data[len(MAGIC):len(MAGIC) + 8])
    return json.loads(data[len(MAGIC) + 8:len(MAGIC) + 8 + size].decode())


def large_header() -> dict:
    """A header whose entries take more than PACKED_HEADER_BYTES of JSON (a word list)."""
    words = [f"word{i}" for i in range(model_file.PACKED_HEADER_BYTES // 6)]
    return {"format": "f", "words": words, "note": "ü", "nested": {"a": [1, 2.5, None]}}


def test_large_header_is_packed_into_a_compressed_array(tmp_path: Path) -> None:
    """compress=True and a header of PACKED_HEADER_BYTES or more of JSON: layout version 3,
    the JSON header holding the format alone, the entries coming back as they were and no
    array of the reserved name among the caller's; the file is smaller than version 2's would
    be, and the same input gives the same bytes."""
    header, arrays = large_header(), {"w": np.arange(10, dtype=np.uint8)}
    data = bytes(encode_model(header, arrays, compress=True))
    assert data == bytes(encode_model(header, arrays, compress=True))
    table = file_table(data)
    assert table["version"] == 3 and set(table) == {"format", "version", "arrays"}
    assert [entry["name"] for entry in table["arrays"]] == ["(header)", "w"]
    layout: dict = {}
    read_header, read_arrays = decode_model(bytearray(data), "m", "f", layout,
                                            defer=lambda name: True)
    assert read_header == header and set(read_arrays) == set()
    assert layout["version"] == 3 and set(layout["deferred"]) == {"w"}
    assert np.array_equal(layout["deferred"]["w"](), arrays["w"])
    plain_json = len(json.dumps(header))
    assert len(data) < plain_json // 2
    path = tmp_path / "m.model"
    write_model_file(path, header, arrays, compress=True)
    assert read_model_file(path, "f")[0] == header


def test_small_header_and_plain_files_keep_their_layouts() -> None:
    """A compressed file of a small header stays version 2 with its header in the JSON, as
    does one of a large header written with newest_layout=False (a model loaded from such a
    file writes it again so), and an uncompressed file of a large header stays version 1."""
    small = file_table(bytes(encode_model({"format": "f", "a": 1}, {}, compress=True)))
    assert small["version"] == 2 and small["a"] == 1
    kept = file_table(bytes(encode_model(large_header(), {}, compress=True,
                                         newest_layout=False)))
    assert kept["version"] == 2 and kept["words"] == large_header()["words"]
    plain = file_table(bytes(encode_model(large_header(), {})))
    assert plain["version"] == 1 and len(plain["words"]) == len(large_header()["words"])


def shuffle_sample() -> dict[str, np.ndarray]:
    """Arrays of every width: sorted keys (whose high bytes repeat, so that they are stored
    shuffled), random bytes (stored as they are), weights, 2-D, empty and one-element
    arrays."""
    rng = np.random.default_rng(3)
    return {"keys": np.sort(rng.integers(0, 1 << 40, 5000, dtype=np.uint64)),
            "noise": rng.integers(0, 256, 4000, dtype=np.uint8),
            "weights": rng.normal(size=3000).astype(np.float32),
            "table": rng.integers(-5, 5, (300, 7), dtype=np.int16),
            "flags": rng.random(100) < 0.5,
            "empty": np.zeros((0, 3), dtype=np.int64), "one": np.array([2.5])}


def test_shuffled_arrays_round_trip() -> None:
    """Each compressed array is stored the smaller of zlib and zlib of its bytes grouped by
    their place in the element (layout version 4 when any is shuffled), and every array comes
    back equal, writable, of its dtype and shape: inflated at once or deferred."""
    arrays = shuffle_sample()
    data = bytes(encode_model({"format": "f"}, arrays, compress=True))
    table = file_table(data)
    codecs = {entry["name"]: entry["codec"] for entry in table["arrays"]}
    assert table["version"] == 4
    assert codecs["keys"] == "zlib-shuffled" and codecs["noise"] == "zlib"
    for entry in table["arrays"]:
        array = arrays[entry["name"]]
        plain = len(zlib.compress(array.tobytes(), model_file.COMPRESSION_LEVEL))
        assert entry["stored"] <= plain
    for defer in (None, lambda name: True):
        layout: dict = {}
        _, read = decode_model(bytearray(data), "m", "f", layout, defer)
        read.update({name: inflate() for name, inflate in layout["deferred"].items()})
        assert layout["version"] == 4 and set(read) == set(arrays)
        for name, array in arrays.items():
            assert read[name].dtype == array.dtype and read[name].shape == array.shape
            assert np.array_equal(read[name], array) and read[name].flags.writeable


def test_shuffled_arrays_beside_a_packed_header() -> None:
    """A large header and shuffled arrays: version 4, the header packed and read back."""
    header, arrays = large_header(), shuffle_sample()
    data = bytes(encode_model(header, arrays, compress=True))
    table = file_table(data)
    assert table["version"] == 4 and set(table) == {"format", "version", "arrays"}
    read_header, read_arrays = decode_model(bytearray(data), "m", "f")
    assert read_header == header and set(read_arrays) == set(arrays)


def test_older_layouts_shuffle_nothing() -> None:
    """newest_layout=False (a model loaded from a layout-2 file) and files of nothing worth
    shuffling keep zlib alone and the version they had before layout 4."""
    arrays = shuffle_sample()
    old = file_table(bytes(encode_model({"format": "f"}, arrays, compress=True,
                                        newest_layout=False)))
    assert old["version"] == 2 and {e["codec"] for e in old["arrays"]} == {"zlib"}
    noise = {"noise": arrays["noise"]}
    assert file_table(bytes(encode_model({"format": "f"}, noise, compress=True)))[
        "version"] == 2


def test_broken_shuffled_array(tmp_path: Path) -> None:
    """A shuffled array that inflates to the wrong size: one line naming the array."""
    keys = {"keys": shuffle_sample()["keys"]}
    data = bytearray(encode_model({"format": "f"}, keys, compress=True))
    assert file_table(bytes(data))["arrays"][0]["codec"] == "zlib-shuffled"
    shorter = model_file._shuffled(keys["keys"][:-1].view(np.uint8), 8)
    replace_first_array(data, zlib.compress(shorter, model_file.COMPRESSION_LEVEL))
    path = tmp_path / "broken.model"
    path.write_bytes(bytes(data))
    expect_error(path, "array 'keys' does not decompress")


def replace_first_array(data: bytearray, packed: bytes) -> None:
    """Put packed (no longer than they were) in place of the stored bytes of the first array of
    a compressed file's table, and its checksum right again."""
    table = file_table(bytes(data))
    entry = table["arrays"][0]
    size = len(MAGIC) + 8 + len(json.dumps(table, sort_keys=True, separators=(",", ":")))
    start = -(-size // ALIGNMENT) * ALIGNMENT + entry["offset"]
    assert len(packed) <= entry["stored"]
    data[start:start + entry["stored"]] = packed.ljust(entry["stored"], b"\0")
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))


def test_reserved_header_array_name_is_refused() -> None:
    with pytest.raises(ValueError, match=r"array name '\(header\)' is reserved"):
        encode_model({"format": "f"}, {"(header)": np.zeros(2)})


@pytest.mark.parametrize("damage", ["missing", "not json", "format inside"])
def test_broken_packed_header(tmp_path: Path, damage: str) -> None:
    """A version 3 file whose header array is missing, is not JSON or names the format
    again: one line, the file named."""
    arrays = {"w": np.arange(3.0)}
    if damage == "missing":
        data = bytearray(encode_model({"format": "f"}, arrays, compress=True))
        at = data.index(b'"version":2')
        data[at:at + 11] = b'"version":3'
    else:
        entries = b"[1, 2" if damage == "not json" else json.dumps({"format": "g"}).encode()
        data = bytearray(encode_model(large_header(), arrays, compress=True))
        nbytes = file_table(bytes(data))["arrays"][0]["nbytes"]
        replace_first_array(data, zlib.compress(entries.ljust(nbytes), 6))
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    path = tmp_path / "broken.model"
    path.write_bytes(bytes(data))
    expect_error(path, "unreadable header")


def test_broken_compressed_array(tmp_path: Path) -> None:
    import zlib

    data = bytearray(encode_model({"format": "f"}, {"w": np.arange(100.0)}, compress=True))
    start = data.rfind(b"x\x9c")  # the zlib stream's header at the default level 6
    data[start + 5] ^= 0xFF
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    path = tmp_path / "broken.model"
    path.write_bytes(bytes(data))
    expect_error(path, "does not decompress")


@pytest.mark.parametrize("size", [10, MAP_BYTES // 4])
def test_large_files_are_mapped_small_ones_read_alike(tmp_path: Path, size: int) -> None:
    """A file of MAP_BYTES or more is memory-mapped (copy-on-write: its arrays are writable
    and writing them leaves the file as it was), a smaller one read; both give the same
    arrays, and the layout tells whether the file was compressed."""
    arrays = {"a": np.arange(size, dtype=np.int64), "b": np.linspace(0, 1, 7)}
    path = tmp_path / "m.bin"
    write_model_file(path, {"format": "test"}, arrays)
    before = path.read_bytes()
    layout: dict = {}
    header, loaded = read_model_file(path, "test", layout)
    assert (layout["version"], layout["compressed"]) == (1, False)
    mapped = path.stat().st_size >= MAP_BYTES
    owner = loaded["a"]
    while isinstance(owner, (np.ndarray, memoryview)):
        owner = owner.base if isinstance(owner, np.ndarray) else owner.obj
    assert isinstance(owner, mmap.mmap) is mapped
    for name, array in arrays.items():
        assert np.array_equal(loaded[name], array) and loaded[name].flags.writeable
    loaded["a"][:3] = -1
    assert path.read_bytes() == before
    write_model_file(path, {"format": "test"}, arrays, compress=True)
    read_model_file(path, "test", layout)
    assert layout["compressed"] is True


def test_deferred_arrays_inflate_when_asked(tmp_path: Path) -> None:
    header, arrays = sample()
    packed = tmp_path / "packed.model"
    write_model_file(packed, header, arrays, compress=True)
    layout: dict = {}
    _, eager = read_model_file(packed, "polyparse-clf")
    _, read_arrays = read_model_file(packed, "polyparse-clf", layout,
                                     defer=lambda name: name in ("weights", "empty"))
    assert sorted(read_arrays) == ["big_endian", "flags", "keys"]
    assert sorted(layout["deferred"]) == ["empty", "weights"]
    for name, inflate in layout["deferred"].items():
        assert np.array_equal(inflate(), eager[name]) and inflate().shape == eager[name].shape
        assert inflate().dtype == eager[name].dtype
    plain = tmp_path / "plain.model"
    write_model_file(plain, header, arrays)
    layout = {}
    _, read_arrays = read_model_file(plain, "polyparse-clf", layout, defer=lambda name: True)
    assert sorted(read_arrays) == sorted(arrays) and layout["deferred"] == {}


def test_broken_deferred_array_fails_when_inflated(tmp_path: Path) -> None:
    import zlib

    data = bytearray(encode_model({"format": "f"}, {"w": np.arange(100.0)}, compress=True))
    start = data.rfind(b"x\x9c")
    data[start + 5] ^= 0xFF
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    path = tmp_path / "broken.model"
    path.write_bytes(bytes(data))
    layout: dict = {}
    _, arrays = read_model_file(path, None, layout, defer=lambda name: True)
    assert arrays == {}
    with pytest.raises(ModelFileError, match=r"broken.model: .*'w'.* does not decompress"):
        layout["deferred"]["w"]()


def broken_array_bytes(arrays: dict[str, np.ndarray], broken: list[str]) -> bytes:
    """A compressed model file of arrays whose zlib streams named in broken do not
    decompress, its checksum made right again."""
    data = bytearray(encode_model({"format": "f"}, arrays, compress=True))
    header_size = struct.unpack("<Q", bytes(data[17:25]))[0]
    table = json.loads(bytes(data[25:25 + header_size]))["arrays"]
    start = -(-(25 + header_size) // 64) * 64
    for entry in table:
        if entry["name"] in broken:
            data[start + entry["offset"] + 5] ^= 0xFF
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    return bytes(data)


@pytest.mark.parametrize("threads_from", [0, 1 << 40])
def test_arrays_inflated_in_threads_as_one_by_one(tmp_path: Path, threads_from: int,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Compressed arrays inflated in threads (threads_from 0: any file) or one by one: the same
    arrays in table order, and of arrays that do not decompress the first in table order
    told, before a bad table entry after it."""
    monkeypatch.setattr(model_file, "INFLATE_IN_THREADS_BYTES", threads_from)
    rng = np.random.default_rng(5)
    arrays = {f"a{k:02d}": rng.integers(0, 50, int(rng.integers(0, 5000))).astype(np.int32)
              for k in range(12)}
    data = encode_model({"format": "f"}, arrays, compress=True)
    header, read_arrays = decode_model(bytearray(data), "x.model")
    assert list(read_arrays) == sorted(arrays)
    assert all(np.array_equal(read_arrays[name], arrays[name]) for name in arrays)
    for broken in (["a07"], ["a03", "a09"], ["a11", "a00"]):
        data = broken_array_bytes(arrays, broken)
        with pytest.raises(ModelFileError, match=f"'{min(broken)}' does not decompress"):
            decode_model(bytearray(data), "x.model")
    # A table entry after it that cannot be read (a dtype NumPy does not know).
    data = bytearray(broken_array_bytes(arrays, ["a02"]))
    header_size = struct.unpack("<Q", bytes(data[17:25]))[0]
    text = bytes(data[25:25 + header_size])
    data[25:25 + header_size] = text.replace(b'"dtype":"<i4","name":"a05"',
                                             b'"dtype":"<q9","name":"a05"')
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    with pytest.raises(ModelFileError, match="'a02' does not decompress"):
        decode_model(data, "x.model")
    data = bytearray(broken_array_bytes(arrays, []))
    data[25:25 + header_size] = text.replace(b'"dtype":"<i4","name":"a05"',
                                             b'"dtype":"<q9","name":"a05"')
    data[-4:] = struct.pack("<I", zlib.crc32(bytes(data[:-4])))
    with pytest.raises(ModelFileError, match="bad array table entry"):
        decode_model(data, "x.model")
