"""Carriage returns in the Japanese inputs (KNP, CaboCha, MeCab's output, raw text): \\r\\n, \\r and
\\n all end a line, so a file with classic Mac line ends is read sentence by sentence, a stray \\r
(\\r\\r\\n) is a blank line that nothing keeps, no field holds a \\r, and what is written has none;
the KNP scanner leaves every block with a \\r to the Python reader and counts its lines as that
reader counts them."""
from __future__ import annotations

import io

import numpy as np
import pytest

from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuFormatError
from polyparse.parser.formats.knp_scan import KnpLexicon, scan_knp
from polyparse.parser.tokenize.japanese_text import read_raw_japanese
from tests.parser.formats.test_cabocha import IPADIC as CABOCHA
from tests.parser.formats.test_cabocha import JUMAN as CABOCHA_JUMAN
from tests.parser.formats.test_cabocha import MECAB
from tests.parser.formats.test_knp import SMALL

RAW = "太郎は本を読んだ。\n\n次郎が 来た。\n"
SAMPLES = {"knp": SMALL, "cabocha": CABOCHA + CABOCHA_JUMAN, "mecab": MECAB + MECAB,
           "raw": RAW}
LINE_ENDS = {
    "crlf": lambda text: text.replace("\n", "\r\n"),
    "cr": lambda text: text.replace("\n", "\r"),
    "cr cr lf": lambda text: text.replace("\n", "\r\r\n"),
    # (A \r is never followed by an empty line ended by \n: that would be one \r\n.)
    "mixed": lambda text: "".join(line + ("\n", "\r", "\r\n")[k % 3]
                                  for k, line in enumerate(text.split("\n")[:-1])),
}
FIELDS = ("surface", "reading", "base", "pos1", "pos2", "conj_type", "conj_form", "lines")


def sentences_of(fmt: str, data: bytes) -> list:
    if fmt == "raw":
        pytest.importorskip("fugashi")
        pytest.importorskip("unidic_lite")
        return list(read_raw_japanese(io.BytesIO(data), name="in"))
    return list(read_bunsetsu(io.BytesIO(data), fmt, validate=False, name="in"))


def written(sentence, fmt: str) -> str:
    if sentence.chunk_lines:
        return format_bunsetsu(sentence, sentence.heads, fmt="knp" if fmt == "knp" else
                               "cabocha")
    n = len(sentence.surface)
    starts = list(range(n))
    return format_bunsetsu(sentence, [*range(1, n), -1] if n else [], None, starts,
                           fmt="cabocha")


@pytest.mark.parametrize("ends", sorted(LINE_ENDS))
@pytest.mark.parametrize("fmt", sorted(SAMPLES))
def test_carriage_returns_end_lines_and_stay_out_of_fields(fmt: str, ends: str) -> None:
    text = SAMPLES[fmt]
    plain = sentences_of(fmt, text.encode())
    changed = LINE_ENDS[ends](text)
    sentences = sentences_of(fmt, changed.encode())
    for sentence in sentences:
        for field in FIELDS:
            assert not any("\r" in value for value in getattr(sentence, field)), field
    # The blank lines of a stray \r aside, the sentences are those of the \n file, and so is
    # what is written from them (blank lines inside a block are not written).
    same = ["surface", "pos1", "pos2", "chunk_starts", "heads", "dep_types", "tagset"]
    if fmt == "raw" and ends == "cr cr lf":
        # Raw text is one sentence a line: each stray \r is an empty sentence more.
        assert len(sentences) == 2 * len(plain)
        plain, sentences = [p for p in plain if p.surface], [s for s in sentences if s.surface]
    assert [[getattr(s, f) for f in same] for s in sentences] == \
        [[getattr(s, f) for f in same] for s in plain]
    assert [written(s, fmt) for s in sentences] == [written(s, fmt) for s in plain]
    assert not any("\r" in written(s, fmt) for s in sentences)


def test_line_numbers_count_every_line_end() -> None:
    data = "# S-ID:1\r* -1D\r\r\nx x x 名詞 6 人名 5 * 0\nEOS\r\n".encode()
    with pytest.raises(BunsetsuFormatError) as caught:
        sentences_of("knp", data)
    assert str(caught.value).startswith("in:4: morpheme line has 9 fields")


@pytest.mark.parametrize("block", [
    "* -1D\ra a a 名詞 6 人名 5 * 0 * 0\rEOS\n",                # classic Mac line ends
    "* -1D\r\r\na a a 名詞 6 人名 5 * 0 * 0\r\r\nEOS\r\n",      # stray CRs
    "* -1D\na a a 名詞 6 人名 5 * 0 * 0 NIL\r# note\nEOS\n",    # a CR inside a \\n line
])
def test_the_scanner_leaves_blocks_with_a_cr_to_python(block: str) -> None:
    plain = "* -1D\nx x x 名詞 6 人名 5 * 0 * 0\nEOS\n"
    data = (plain + block + plain + plain).encode()
    scan = scan_knp(KnpLexicon(["名詞"]), data)
    sentences = list(read_bunsetsu(io.BytesIO(data), "knp", validate=False))
    starts = {s.start_line for s in sentences}
    for b in range(scan.n_blocks):
        text = data[scan.block_start[b]:scan.block_end[b]]
        assert scan.block_fast[b] == (b"\r" not in text)
        # Each block starts on a sentence's first line as the Python reader numbers lines.
        assert scan.block_line[b] + 1 in starts
    assert scan.block_fast[0] == scan.block_fast[-1] == 1
    assert scan.n_lines == sum(1 for _ in io.TextIOWrapper(io.BytesIO(data), newline=None))
    assert np.array_equal(scan.chunk_bounds, [0, 1] * scan.n_fast)
