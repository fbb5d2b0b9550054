"""Lines of a text input (parser.formats.text_lines): \\r\\n, \\r and \\n all end a line (so no line
holds a carriage return, whatever the input mixes), wherever the chunks are cut; a byte that is
not valid text gives the lines before its line, then one error naming that line; errors="replace"
reads it as U+FFFD and tells the first one in a warning."""
from __future__ import annotations

import io
import warnings

import pytest

from polyparse.features.errors import InputError, InputWarning
from polyparse.parser.formats import text_lines as module
from polyparse.parser.formats.text_lines import line_chunks, split_lines, text_lines


def lines_of(data: bytes, encoding: str = "utf-8", **options) -> list[str]:
    return list(text_lines(None, io.BytesIO(data), encoding, "in.txt", InputError, **options))


def universal(data: bytes) -> list[str]:
    """The lines Python's universal newlines read from data (the reference)."""
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8-sig", newline=None).read(
        ).splitlines()


@pytest.mark.parametrize("data, expected", [
    (b"a\nb\n", ["a", "b"]),
    (b"a\r\nb\r\n", ["a", "b"]),
    (b"a\rb\r", ["a", "b"]),                   # classic Mac line ends
    (b"a\r\r\nb\n", ["a", "", "b"]),           # a stray CR ends a line of its own
    (b"a\rb\r\nc\nd", ["a", "b", "c", "d"]),   # mixed, no end at the end
    (b"\xef\xbb\xbfa\rb", ["a", "b"]),         # a byte order mark is dropped
    (b"", []),
    (b"\r", [""]),
])
def test_every_line_end_is_one(data: bytes, expected: list[str]) -> None:
    assert lines_of(data) == expected
    assert lines_of(data) == universal(data)
    text = data.decode("utf-8-sig")
    assert list(text_lines(None, io.StringIO(text), "utf-8", "in.txt", InputError)) == expected
    assert not any("\r" in line for line in lines_of(data))


@pytest.mark.parametrize("size", [1, 2, 3, 5, 8])
def test_line_ends_cut_between_chunks(size: int, monkeypatch) -> None:
    """A "\\r\\n" whose two bytes fall in two reads is one line end."""
    monkeypatch.setattr(module, "CHUNK_BYTES", size)
    data = "太郎\r\n\r\nは\r\r\nb\rc\n\r\nEOS\r".encode()
    assert lines_of(data) == universal(data) == ["太郎", "", "は", "", "b", "c", "", "EOS"]


def test_split_lines() -> None:
    assert split_lines("a\r\nb\rc\nd") == ["a", "b", "c", "d"]
    assert split_lines("a\n") == ["a", ""]


@pytest.mark.parametrize("size", [4, 1 << 20])
def test_a_bad_byte_gives_the_lines_before_it_then_its_line(size: int, monkeypatch) -> None:
    monkeypatch.setattr(module, "CHUNK_BYTES", size)
    data = b"one\r\ntwo\rthree\nf\xffour\nfive\n"
    got: list[str] = []
    with pytest.raises(InputError) as caught:
        for chunk in line_chunks(None, io.BytesIO(data), "utf-8", "in.txt", InputError):
            got.extend(chunk)
    assert got == ["one", "two", "three"]
    assert str(caught.value) == ("in.txt:4: not valid utf-8 text (byte ff at byte column 2: "
                                 "invalid start byte)")


def test_replace_reads_the_byte_as_u_fffd_and_warns_once() -> None:
    data = b"one\nt\xffwo\nthr\xfeee\n"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert lines_of(data, errors="replace") == ["one", "t\ufffdwo", "thr\ufffdee"]
    assert [w.category for w in caught] == [InputWarning]
    assert str(caught[0].message) == ("in.txt:2: not valid utf-8 text (byte ff at byte column 2:"
                                      " invalid start byte), read as U+FFFD (and any later ones)")
    with pytest.raises(ValueError, match="errors must be one of strict, replace"):
        lines_of(data, errors="ignore")


def test_other_encodings_and_their_line_numbers() -> None:
    text = "一\r\n二\r三\n"
    assert lines_of(text.encode("euc-jp"), "euc-jp") == ["一", "二", "三"]
    assert lines_of(text.encode("utf-16"), "utf-16") == ["一", "二", "三"]
    with pytest.raises(InputError, match=r"^in.txt:4: not valid utf-16 text \(bytes 00 d8"):
        lines_of(text.encode("utf-16") + b"\x00\xd8", "utf-16")
    with pytest.raises(InputError, match=r"^in.txt:3: not valid euc-jp text \(byte 80 at "
                                         "byte column 1"):
        lines_of("一\r二\r".encode("euc-jp") + b"\x80\n", "euc-jp")
