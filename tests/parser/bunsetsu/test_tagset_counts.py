"""The KNP fast path tells each sentence's dictionary as read_knp does (parser/formats/
tag_schemes.py): its coverage counts (morphemes by dictionary, parts of speech the model lacks)
and its output equal the Python path's on KNP of JUMAN's, UniDic's and IPAdic's tags, sentences
that tell none, marks the model lacks and marks it holds as words; and the one warning line
that a model of another dictionary gets."""
from __future__ import annotations

import io

import pytest

from polyparse.parser.bunsetsu import stream_parsing
from polyparse.parser.bunsetsu.bunsetsu_files import parsed_blocks
from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.config import BunsetsuConfig
from polyparse.parser.formats.knp import read_knp
from tests.parser.formats.test_knp import SMALL
from tests.parser.formats.test_tag_schemes import KNP_JUMAN, KNP_UNIDIC

# KNP that polyparse writes from IPAdic's morphemes, with 代名詞 (a UniDic mark) as a word.
KNP_IPADIC = """* 1D
+ 1D
代名詞 ダイメイシ 代名詞 名詞 0 一般 0 * 0 * 0 NIL
は ハ は 助詞 0 係助詞 0 * 0 * 0 NIL
* -1D
+ -1D
走っ ハシッ 走る 動詞 0 自立 0 五段・ラ行 0 連用タ接続 0 NIL
た タ た 助動詞 0 * 0 特殊・タ 0 基本形 0 NIL
。 。 。 記号 0 句点 0 * 0 * 0 NIL
EOS
"""
# A sentence whose parts of speech tell no dictionary (SMALL's tell none either).
UNTOLD = "* -1D\n+ -1D\n走る はしる 走る 動詞 2 * 0 子音動詞ラ行 10 基本形 2\nEOS\n"
JUMAN = SMALL + KNP_JUMAN
MIXED = JUMAN * 2 + KNP_UNIDIC * 2 + UNTOLD + KNP_IPADIC + SMALL


def trained(text: str) -> BunsetsuParser:
    parser = BunsetsuParser(BunsetsuConfig(classifier="linear", chunker=False))
    parser.train(list(read_knp(io.StringIO(text), validate=False)))
    return parser


@pytest.fixture(scope="module", params=["juman", "unidic"])
def parser(request: pytest.FixtureRequest) -> BunsetsuParser:
    return trained(JUMAN * 5 if request.param == "juman" else KNP_UNIDIC * 5 + SMALL)


def fast_path(parser: BunsetsuParser, text: str) -> tuple[bytes, dict]:
    written: list[bytes] = []
    coverage = parser.tag_coverage()
    reader = stream_parsing.KnpStreamParser(parser, "in.knp", "the model", coverage, "utf-8")
    reader.run(io.BytesIO(text.encode()), lambda: True,
               lambda data: written.append(bytes(data)), lambda n: None)
    reader.close()
    return b"".join(written), coverage.counts()


def python_path(parser: BunsetsuParser, text: str) -> tuple[bytes, dict]:
    sentences = list(read_knp(io.StringIO(text), validate=False))
    coverage = parser.tag_coverage()
    coverage.add(sentences)
    output = "".join(parsed_blocks(parser, sentences, "knp")).encode()
    return output, coverage.counts()


@pytest.mark.parametrize("text", [MIXED, KNP_UNIDIC * 4, KNP_IPADIC * 2 + UNTOLD, UNTOLD])
def test_the_fast_path_counts_and_parses_as_the_python_path(parser, text, monkeypatch):
    expected = python_path(parser, text)
    assert fast_path(parser, text) == expected
    monkeypatch.setattr(stream_parsing, "BATCH_BYTES", 100)
    assert fast_path(parser, text) == expected


def test_the_counts_by_dictionary():
    parser = trained(JUMAN * 5)
    assert parser.tagset == "juman"
    _, counts = fast_path(parser, MIXED)
    assert counts["tagsets"] == {"juman": 2 * 4, "unidic": 2 * 5, "ipadic": 5}
    assert counts["unknown"]["POS"]["補助記号"] == 2 and counts["unknown"]["POS"]["記号"] == 1


def test_knp_of_another_dictionary_warns_once_naming_both():
    parser = trained(JUMAN * 5)
    coverage = parser.tag_coverage()
    coverage.add_counted(fast_path(parser, KNP_UNIDIC * 3 + JUMAN)[1])
    warning = coverage.warning("in.knp")
    assert warning.startswith("in.knp: the morphemes are tagged with UniDic's parts of speech")
    assert "trained on JUMAN's" in warning and "(--model ja_unidic)" in warning
    coverage = parser.tag_coverage()
    coverage.add_counted(fast_path(parser, JUMAN * 3 + UNTOLD)[1])
    assert coverage.warning("in.knp") is None
