"""Raw Japanese text, one sentence a line, segmented by MeCab with unidic-lite: surfaces join
back to the text exactly (white space included), a blank line is an empty sentence, a tab is
one line naming the input line; and the KNP and CaboCha blocks such a sentence is written as,
read back by polyparse and by rhoknp."""
from __future__ import annotations

import io

import pytest

from polyparse.parser.formats.bunsetsu import format_bunsetsu
from polyparse.parser.formats.bunsetsu_convert import head_and_function
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuFormatError
from polyparse.parser.formats.cabocha import read_cabocha
from polyparse.parser.formats.knp import read_knp

pytest.importorskip("fugashi")
pytest.importorskip("unidic_lite")

from polyparse.parser.tokenize.japanese_text import read_raw_japanese  # noqa: E402

TEXTS = ["太郎は花子が読んでいる本を次郎に渡した。", " Apple 社の　iPhone は  ", "", "ａ,b\"c\"",
         "  "]


def test_surfaces_join_back_to_each_line():
    sentences = list(read_raw_japanese(io.StringIO("\n".join(TEXTS) + "\n")))
    assert ["".join(s.surface) for s in sentences] == TEXTS
    assert [s.start_line for s in sentences] == [1, 2, 3, 4, 5]
    assert all(s.tagset == "unidic" for s in sentences if s.surface)
    assert sentences[2].surface == [] and sentences[2].lines == ["EOS"]
    spaces = [pos for s in sentences for surface, pos in zip(s.surface, s.pos1)
              if surface.isspace()]
    assert spaces and set(spaces) == {"空白"}


def test_a_tab_is_one_line_naming_the_input_line():
    with pytest.raises(BunsetsuFormatError) as caught:
        list(read_raw_japanese(io.StringIO("太郎\n次郎\tと花子\n"), name="in.txt"))
    assert str(caught.value).startswith("in.txt:2: a tab in raw text")


def _tree(sentence):
    n = len(sentence.surface)
    starts = list(range(0, n, 2))
    heads = [*range(1, len(starts)), -1]
    return starts, heads


@pytest.mark.parametrize("fmt", ["knp", "cabocha"])
def test_a_raw_sentence_is_written_in_both_formats_and_read_back(fmt):
    (sentence,) = read_raw_japanese(io.StringIO(TEXTS[1] + "\n"))
    starts, heads = _tree(sentence)
    block = format_bunsetsu(sentence, heads, None, starts, fmt)
    (again,) = (read_knp if fmt == "knp" else read_cabocha)(io.StringIO(block))
    assert again.chunk_starts == starts and again.heads == heads
    surfaces = [s.replace("\\␣", " ") for s in again.surface] if fmt == "knp" \
        else again.surface
    assert "".join(surfaces) == TEXTS[1]
    if fmt == "cabocha":
        # The input's own morpheme lines, UniDic's features and all, with CaboCha's bunsetsu
        # lines inserted.
        assert [line for line in block.splitlines() if not line.startswith("* ")] == \
            sentence.lines
        assert block.splitlines()[0] == "* 0 1D 1/1 0.000000"


@pytest.mark.parametrize("text", [TEXTS[0], TEXTS[1], "Ad Planner で  調べた", " "])
def test_knp_output_is_read_by_rhoknp(text):
    # A half-width space is a morpheme of its own, written \␣ as Juman++ writes it, which
    # rhoknp reads back as the space (KNP's old \  spelling broke rhoknp's line pattern).
    rhoknp = pytest.importorskip("rhoknp")
    (sentence,) = read_raw_japanese(io.StringIO(text + "\n"))
    starts, heads = _tree(sentence)
    parsed = rhoknp.Sentence.from_knp(format_bunsetsu(sentence, heads, None, starts, "knp"))
    assert [phrase.parent_index for phrase in parsed.phrases] == heads
    assert parsed.text.replace("\\␣", " ") == text


def test_head_and_function_words_follow_cabocha():
    # 読ん で いる (UniDic): head 読ん, the last content word that does not lean on the one
    # before it; function いる, the last non-symbol. CaboCha with IPAdic marks 泳い で いる so.
    assert head_and_function(["動詞", "助詞", "動詞"], ["一般", "接続助詞", "非自立可能"],
                             0, 3) == (0, 2)
    assert head_and_function(["動詞", "助詞", "動詞"], ["自立", "接続助詞", "非自立"],
                             0, 3) == (0, 2)
    # 解決 する, 話 やすかっ た: the verbal noun and the verb; 変更 後 は: a nominal suffix is
    # the head; し て い た: all lean, the first is the head.
    assert head_and_function(["名詞", "動詞"], ["普通名詞-サ変可能", "非自立可能"], 0, 2) == (0, 1)
    assert head_and_function(["動詞", "接尾辞", "助動詞"], ["一般", "形容詞的", "*"],
                             0, 3) == (0, 2)
    assert head_and_function(["名詞", "接尾辞", "助詞"], ["普通名詞-一般", "名詞的-一般",
                                                        "係助詞"], 0, 3) == (1, 2)
    assert head_and_function(["動詞", "助詞", "動詞", "助動詞"],
                             ["非自立可能", "接続助詞", "非自立可能", "*"], 0, 4) == (0, 3)
    # JUMAN: 読んで いる (いる a 動詞性接尾辞).
    assert head_and_function(["動詞", "接尾辞"], ["*", "動詞性接尾辞"], 0, 2) == (0, 1)
    assert head_and_function(["名詞", "助詞", "補助記号"], ["普通名詞", "格助詞", "読点"],
                             0, 3) == (0, 1)
    assert head_and_function(["補助記号"], ["読点"], 0, 1) == (0, 0)
    assert head_and_function(["名詞", "名詞", "助詞", "特殊"],
                             ["普通名詞", "普通名詞", "格助詞", "句点"], 1, 4) == (0, 1)


def test_head_words_agree_with_ud_japanese_gsd(corpora) -> None:
    """The HEAD field written for the bunsetsu of UD Japanese GSD's own CaboCha file (its team's
    UniDic morphemes and bunsetsu) is its team's for at least 95 % of them."""
    path = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    same = total = 0
    for sentence in read_cabocha(str(path)):
        ends = sentence.chunk_starts[1:] + [len(sentence.surface)]
        for line, start, end in zip(sentence.chunk_lines, sentence.chunk_starts, ends):
            given = int(sentence.lines[line].split()[3].split("/")[0])
            same += head_and_function(sentence.pos1, sentence.pos2, start, end)[0] == given
            total += 1
    assert total == 4185 and same / total >= 0.95
