"""The dictionary of a KNP sentence, told by its parts of speech (parser/formats/tag_schemes.py):
KNP from KNP itself is JUMAN's, KNP that polyparse writes from MeCab's output or raw text keeps
UniDic's or IPAdic's; on the corpora when POLYPARSE_CORPORA is set."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.knp import read_knp
from polyparse.parser.formats.tag_schemes import SCHEME_MARKS, scheme_of_pos1
from tests.parser.formats.test_mecab_input import IPADIC, JUMANDIC, UNIDIC

# A KNP sentence as KNP writes it (JUMAN's parts of speech and their ids).
KNP_JUMAN = """# S-ID:1
* 1D
太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0
は は は 助詞 9 副助詞 2 * 0 * 0
* -1D
学生 がくせい 学生 名詞 6 普通名詞 1 * 0 * 0
だ だ だ 判定詞 4 * 0 判定詞 25 基本形 2
EOS
"""

# KNP that polyparse writes from UniDic's morphemes: one basic phrase a bunsetsu, ids 0.
KNP_UNIDIC = """* 1D
+ 1D
太郎 タロウ タロウ 名詞 0 固有名詞-人名 0 * 0 * 0 NIL
は ハ は 助詞 0 係助詞 0 * 0 * 0 NIL
* -1D
+ -1D
走っ ハシル 走る 動詞 0 一般 0 五段-ラ行 0 連用形-促音便 0 NIL
た タ た 助動詞 0 * 0 助動詞-タ 0 終止形-一般 0 NIL
。 * 。 補助記号 0 句点 0 * 0 * 0 NIL
EOS
"""


def test_each_schemes_own_parts_of_speech_tell_it():
    assert scheme_of_pos1(["名詞", "助詞", "補助記号"]) == "unidic"
    assert scheme_of_pos1(["名詞", "助詞", "記号"]) == "ipadic"
    assert scheme_of_pos1(["名詞", "判定詞"]) == "juman"
    assert scheme_of_pos1(["名詞", "助詞", "動詞"]) == ""
    # UniDic also has a rare 記号; its own names win.
    assert scheme_of_pos1(["記号", "代名詞"]) == "unidic"
    assert not set.intersection(*map(set, SCHEME_MARKS.values()))


def test_knp_from_knp_is_jumans_and_from_unidic_unidics():
    (sentence,) = read_knp(io.StringIO(KNP_JUMAN))
    assert sentence.tagset == "juman"
    (sentence,) = read_knp(io.StringIO(KNP_UNIDIC))
    assert sentence.tagset == "unidic"


@pytest.mark.parametrize("mecab, tagset", [(UNIDIC, "unidic"), (IPADIC, "ipadic"),
                                           (JUMANDIC, "juman")])
def test_knp_written_from_mecab_output_keeps_its_dictionary(mecab, tagset):
    (sentence,) = read_bunsetsu(io.StringIO(mecab), "mecab")
    assert sentence.tagset == tagset
    knp = format_bunsetsu(sentence, [-1], None, [0], "knp")
    (again,) = read_knp(io.StringIO(knp))
    assert again.tagset == tagset and again.pos1 == sentence.pos1


def test_corpus_sentences_are_jumans_or_do_not_tell(corpora: Path):
    files = sorted((corpora / "kwdlc" / "knp").glob("*/*.knp"))[:300]
    if not files:
        pytest.skip("no KWDLC")
    told = {sentence.tagset for path in files for sentence in read_knp(path, validate=False)}
    assert told <= {"juman", ""} and "juman" in told
