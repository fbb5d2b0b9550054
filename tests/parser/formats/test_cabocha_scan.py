"""The CaboCha fast path (parser.formats.cabocha_scan) against the Python reader and writer: lexicon
ids equal BunsetsuParser.encode(read_cabocha(...)), each sentence's dictionary equals the
reader's, the rewritten bytes equal format_cabocha (a moved head's score included), on the
test suite's CaboCha, on CaboCha written by polyparse's own writer from every input format, and
on UD Japanese GSD's file; unusual blocks are left to the Python reader."""
from __future__ import annotations

import io

import numpy as np
import pytest

from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.cabocha import UNIDIC_ONLY_POS, format_cabocha, read_cabocha
from polyparse.parser.formats.cabocha_scan import TAGSETS, scan_cabocha
from polyparse.parser.formats.knp_scan import KnpLexicon
from polyparse.parser.models.bundled import bundled_japanese_model
from polyparse.parser.tokenize.japanese_text import read_raw_japanese
from tests.parser.formats import test_cabocha, test_mecab_input
from tests.parser.formats.scan_equivalence import (
    assert_rewritten_as_written,
    assert_scanned_as_read,
    parser_with,
)
from tests.parser.formats.test_knp import SMALL

PLAIN = """\
* 0 1D 0/1 0.000000
太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
* 1 -1D 0/0 0.000000
来た\t動詞,自立,*,*,カ変・来ル,連用タ接続,来る,キ,キ
EOS
"""


def scan_of(data: bytes, parser: BunsetsuParser):
    return scan_cabocha(KnpLexicon(parser.lexicon.strings), data, sorted(UNIDIC_ONLY_POS))


def assert_equivalent(data: bytes, parser: BunsetsuParser, seed: int = 0) -> None:
    """Every block scanned fast; ids, dictionaries and rewritten bytes as the Python path
    gives them."""
    scan = scan_of(data, parser)
    sentences = list(read_cabocha(io.BytesIO(data), validate=False))
    assert_scanned_as_read(scan, sentences, data, parser)
    assert [TAGSETS[code] for code in scan.block_tagset] == [s.tagset for s in sentences]
    assert_rewritten_as_written(scan, sentences, format_cabocha, seed)
    known = set(parser.lexicon.strings)
    assert scan.unknown_pos1() == count_unknown(sentences, known)


def count_unknown(sentences, known: set[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for sentence in sentences:
        for tag in sentence.pos1:
            if tag not in known:
                counts[tag] = counts.get(tag, 0) + 1
    return counts


def with_bunsetsu(text: str, fmt: str) -> str:
    """text (MeCab's or raw) written by polyparse's CaboCha writer, every two morphemes a
    bunsetsu."""
    out = []
    sentences = (read_raw_japanese(io.StringIO(text)) if fmt == "raw"
                 else read_bunsetsu(io.StringIO(text), fmt))
    for sentence in sentences:
        n = len(sentence.surface)
        starts = list(range(0, n, 2))
        out.append(format_bunsetsu(sentence, [*range(1, len(starts)), -1], None, starts,
                                   "cabocha"))
    return "".join(out)


def knp_as_cabocha(text: str) -> str:
    return "".join(format_bunsetsu(s, s.heads, fmt="cabocha")
                   for s in read_bunsetsu(io.StringIO(text), "knp"))


UNIDIC_TABS = "Ad\tAd\tAd\tAd\t名詞-普通名詞-一般\t\t\t0\nPlanner\tPlanner\tPlanner\tPlanner" \
              "\t名詞-普通名詞-一般\t\t\t0\nEOS\n"
SAMPLES = {
    "ipadic with a named entity": test_cabocha.IPADIC,
    "juman layout, quoted fields": test_cabocha.JUMAN,
    "from knp": knp_as_cabocha(SMALL),
    "from mecab ipadic": with_bunsetsu(test_mecab_input.IPADIC, "mecab"),
    "from mecab unidic (aConType quotes)": with_bunsetsu(test_mecab_input.UNIDIC, "mecab"),
    "from mecab jumandic": with_bunsetsu(test_mecab_input.JUMANDIC, "mecab"),
    "from cabocha's mecab": with_bunsetsu(test_cabocha.MECAB, "mecab"),
    "odd surfaces and lines": """\
#! DOC\t1
# S-ID:odd
* 0 1DX 0/1
#\t補助記号,一般,*,*,*,*,,＃,#,,#,,記号,*,*,*,*,,,,,*,*,*,*,*
*\t補助記号,一般,*,*,*,*,,＊,*,,*,,記号,*,*,*,*,,,,,*,*,*,*,*
# a comment after a morpheme
* 1 -1D
,\t補助記号,読点,*,*,,,,，,",",,",",,記号,,,,,,,,,,,,,,,13752552530432,50\t,\tB
EOS
""",
}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_equal_the_python_path(name: str) -> None:
    data = SAMPLES[name].encode()
    for sentence in read_cabocha(io.BytesIO(data)):
        assert sentence.chunk_lines
    assert_equivalent(data, parser_with(["太郎", "名詞", "補助記号", "*", "句点", "格助詞"]))
    assert_equivalent(data, parser_with([]), seed=1)


def test_mecab_unidic_tab_lines_written_back_are_slow() -> None:
    data = with_bunsetsu(UNIDIC_TABS, "mecab").encode()
    assert scan_of(data, parser_with([])).block_fast.tolist() == [0]


def test_raw_text_written_as_cabocha() -> None:
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    text = "太郎は花子が読んでいる本を次郎に渡した。\n Apple 社の　iPhone は  \nａ,b\"c\"\n"
    assert_equivalent(with_bunsetsu(text, "raw").encode(), parser_with(["名詞"]))


def test_ud_japanese_gsd_equals_the_python_path(corpora) -> None:
    """UD Japanese GSD's own CaboCha file (UniDic short and long units, quoted commas, its
    #! metadata lines, D/F/B/Z labels and scores) with the bundled UniDic model's lexicon."""
    data = (corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha").read_bytes()
    parser = BunsetsuParser.load(str(bundled_japanese_model("ja_unidic")))
    assert_equivalent(data, parser)
    assert_equivalent(data, parser_with([]), seed=2)


@pytest.mark.parametrize("block", [
    "* 0 -1D\r\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\r\nEOS\r\n",   # \r\n
    "* 0 -1D\n\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",       # blank line
    "\ufeff* 0 -1D\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",   # byte order mark
    "太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",                  # MeCab's output
    "太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\n* 0 -1D\nx\t名詞,一般,*,*,*,*,*\nEOS\n",
    "* 0 -1D\nAd\tAd\tAd\tAd\t名詞-普通名詞-一般\t\t\t0\nEOS\n",                # UniDic's tabs
    "* 0 -1D\n太郎\tx\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",     # stray tab
    "* 1 -1D\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",        # id out of order
    "* 0 1D\n* 1 -1D\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",  # empty bunsetsu
    "* 0 -1D\nEOS\n",                                                           # no morphemes
    "EOS\n",                                                                    # bare EOS
    "* 0 -1\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",          # no label
    "* 0 -1d\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",         # lower case
    "* 0  -1D\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",        # two spaces
    "* 0 -1D 0/0 \n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",    # a trailing space
    "* 0 1234567890D\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",  # head too long
    "*\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",              # a bare *
    "* 0 -1D\n\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",            # empty surface
    "* 0 -1D\n太郎\t,固有名詞,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",            # empty pos1
    "* 0 -1D\n太郎\t名詞,固有名詞,人名,名,*\nEOS\n",                           # 5 features
    "* 0 -1D\n太郎\t名詞,\"固\"\"有\",人名,名,*,*,太郎,タロウ,タロー\nEOS\n",     # doubled quote
    "* 0 -1D\n太郎\t名詞,\"固有\"x,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",        # text after
    "* 0 -1D\n太郎\t名詞,\"固有,人名,名,*,*,太郎,タロウ,タロー\nEOS\n",           # not closed
    "* 0 -1D\nnot a morpheme\nEOS\n",                                          # no tab
])
def test_unusual_blocks_are_slow(block: str) -> None:
    data = PLAIN.encode() + block.encode() + PLAIN.encode()
    scan = scan_of(data, parser_with(["名詞"]))
    assert scan.block_fast.tolist() == [1, 0, 1]
    assert scan.block_fast_index.tolist() == [0, -1, 1]
    assert scan.n_fast == 2 and len(scan.surface) == 4
    assert np.array_equal(scan.chunk_bounds, [0, 1, 2, 0, 1, 2])
    assert scan.rewrite(scan.old_heads, 2, 3) == PLAIN.encode()


def test_a_moved_head_loses_its_score_and_label() -> None:
    data = "* 0 2F 0/1 -0.868313\nA\t名詞,普通名詞,一般,*,*,*\n* 1 2Z 0/1 1.5\n" \
           "B\t名詞,普通名詞,一般,*,*,*\n* 2 -1D 0/0 0\nC\t名詞,普通名詞,一般,*,*,*\nEOS\n"
    scan = scan_of(data.encode(), parser_with([]))
    text = scan.rewrite(np.array([1, 2, -1]), 0, 1).decode().splitlines()
    assert [line for line in text if line.startswith("* ")] == \
        ["* 0 1D 0/1 0.000000", "* 1 2Z 0/1 1.5", "* 2 -1D 0/0 0"]


def test_incomplete_block_is_left_for_the_next_buffer() -> None:
    data = PLAIN.encode() + "* 0 -1D\n太郎\t名詞,固有名詞".encode()
    scan = scan_of(data, parser_with([]))
    assert scan.n_blocks == 1 and scan.end == len(PLAIN.encode())
    assert scan.n_lines == PLAIN.count("\n")
