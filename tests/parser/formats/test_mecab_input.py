"""MeCab's output as other tools write it, read as polyparse reads CaboCha without bunsetsu:
the three common dictionaries (IPAdic, UniDic, JUMAN's), their unknown words, the dictionary of
each sentence (tagset), empty sentences, and one-line errors for what is not MeCab's feature
output. The inputs are made by MeCab itself (fugashi) where the dictionary installs from PyPI,
and the same lines are also given literally so that the layout is tested without them."""
from __future__ import annotations

import io

import pytest

from polyparse.parser.formats.bunsetsu_sentence import BunsetsuFormatError
from polyparse.parser.formats.cabocha import read_cabocha, read_mecab

SENTENCE = "太郎はiPhoneを買った。"

# MeCab's output of SENTENCE, as each dictionary gives it (fugashi 1.5, ipadic 1.0.0,
# unidic-lite 1.0.8, jumandic 1.0.0); iPhone is an unknown word in all three.
IPADIC = """太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
は\t助詞,係助詞,*,*,*,*,は,ハ,ワ
iPhone\t名詞,一般,*,*,*,*,*
を\t助詞,格助詞,一般,*,*,*,を,ヲ,ヲ
買っ\t動詞,自立,*,*,五段・ワ行促音便,連用タ接続,買う,カッ,カッ
た\t助動詞,*,*,*,特殊・タ,基本形,た,タ,タ
。\t記号,句点,*,*,*,*,。,。,。
EOS
"""
UNIDIC = """太郎\t名詞,固有名詞,人名,名,*,*,タロウ,タロウ,太郎,タロー,太郎,タロー,固,*,*,*,*,タロウ,タロウ,タロウ,タロウ,*,*,1,*,*
は\t助詞,係助詞,*,*,*,*,ハ,は,は,ワ,は,ワ,和,*,*,*,*,ハ,ハ,ハ,ハ,*,*,*,"動詞%F2@0,名詞%F1,形容詞%F2@-1",*
iPhone\t名詞,普通名詞,一般,*,*,*
を\t助詞,格助詞,*,*,*,*,ヲ,を,を,オ,を,オ,和,*,*,*,*,ヲ,ヲ,ヲ,ヲ,*,*,*,"動詞%F2@0,名詞%F1,形容詞%F2@-1",*
買っ\t動詞,一般,*,*,五段-ワア行,連用形-促音便,カウ,買う,買っ,カッ,買う,カウ,和,*,*,*,*,カッ,カウ,カッ,カウ,*,*,0,C4,*
た\t助動詞,*,*,*,助動詞-タ,終止形-一般,タ,た,た,タ,た,タ,和,*,*,*,*,タ,タ,タ,タ,*,*,*,"動詞%F2@1,形容詞%F4@-2",*
。\t補助記号,句点,*,*,*,*,,。,。,,。,,記号,*,*,*,*,,,,,*,*,*,*,*
EOS
"""
JUMANDIC = """太郎\t名詞,人名,*,*,太郎,たろう,人名:日本:名:45:0.00106
は\t助詞,副助詞,*,*,は,は,連語
iPhone\t名詞,組織名,*,*,*,*,*
を\t助詞,格助詞,*,*,を,を,連語
買った\t動詞,*,子音動詞ワ行,タ形,買う,かった,代表表記:買う/かう ドメイン:家庭・暮らし;ビジネス 反義:動詞:売る/うる
。\t特殊,句点,*,*,。,。,連語
EOS
"""

EXPECTED = {
    # tagset, pos1, pos2, conj_form of each morpheme
    "ipadic": (IPADIC, ["名詞", "助詞", "名詞", "助詞", "動詞", "助動詞", "記号"],
               ["固有名詞", "係助詞", "一般", "格助詞", "自立", "*", "句点"],
               ["*", "*", "*", "*", "連用タ接続", "基本形", "*"]),
    "unidic": (UNIDIC, ["名詞", "助詞", "名詞", "助詞", "動詞", "助動詞", "補助記号"],
               ["固有名詞-人名", "係助詞", "普通名詞-一般", "格助詞", "一般", "*", "句点"],
               ["*", "*", "*", "*", "連用形-促音便", "終止形-一般", "*"]),
    "juman": (JUMANDIC, ["名詞", "助詞", "名詞", "助詞", "動詞", "特殊"],
              ["人名", "副助詞", "組織名", "格助詞", "*", "句点"],
              ["*", "*", "*", "*", "タ形", "*"]),
}


@pytest.mark.parametrize("tagset", sorted(EXPECTED))
def test_each_dictionary_is_read_with_its_layout(tagset):
    text, pos1, pos2, conj_form = EXPECTED[tagset]
    (sentence,) = read_mecab(io.StringIO(text))
    assert sentence.tagset == tagset
    assert "".join(sentence.surface) == SENTENCE
    assert sentence.pos1 == pos1
    assert sentence.pos2 == pos2
    assert sentence.conj_form == conj_form
    assert sentence.chunk_starts == [] and sentence.heads == []


def test_an_unknown_word_takes_the_dictionary_of_its_sentence():
    # The same six fields are UniDic's unknown word in a UniDic sentence (pos1..pos4, cType,
    # cForm) and the JUMAN layout elsewhere; the seven of IPAdic's unknown word likewise.
    (alone,) = read_cabocha(io.StringIO("iPhone\t名詞,普通名詞,一般,*,*,*\nEOS\n"))
    assert alone.tagset == "juman" and alone.conj_type == ["一般"]
    (unidic,) = read_mecab(io.StringIO(UNIDIC))
    assert unidic.conj_type[2] == "*" and unidic.base[2] == "*"
    (ipadic,) = read_mecab(io.StringIO(IPADIC))
    assert ipadic.base[2] == "*" and ipadic.conj_form[2] == "*"


def _fugashi_output(args: str | None) -> str:
    fugashi = pytest.importorskip("fugashi")
    if args is None:
        pytest.importorskip("unidic_lite")
        from polyparse.parser.tokenize.mecab import MeCabTagger

        return "\n".join(MeCabTagger().morpheme_lines(SENTENCE)) + "\nEOS\n"
    return fugashi.GenericTagger(args).parse(SENTENCE) + "\n"


@pytest.mark.parametrize("tagset", sorted(EXPECTED))
def test_mecab_output_made_by_mecab_is_read(tagset):
    if tagset == "ipadic":
        args = pytest.importorskip("ipadic").MECAB_ARGS
    elif tagset == "juman":
        args = pytest.importorskip("jumandic").MECAB_ARGS
    else:
        args = None
    text = _fugashi_output(args)
    assert text == EXPECTED[tagset][0]
    (sentence,) = read_mecab(io.StringIO(text))
    assert sentence.tagset == tagset


def test_empty_sentences_are_kept():
    sentences = list(read_mecab(io.StringIO("EOS\n" + IPADIC + "EOS\n")))
    assert [len(s.surface) for s in sentences] == [0, 7, 0]
    assert [s.start_line for s in sentences] == [1, 2, 10]


@pytest.mark.parametrize("text, line, problem", [
    ("* 0 -1D\n" + IPADIC, 1, "a bunsetsu line in MeCab output"),
    # MeCab's -Ochasen output (surface, reading, base, pos, cType, cForm).
    ("太郎\tタロウ\t太郎\t名詞-固有名詞-人名-名\t\t\nEOS\n", 1, "6 tab-separated fields"),
    ("太郎\t名詞,固有名詞\nEOS\n", 1, "2 features"),
])
def test_what_is_not_mecab_output_is_one_line(text, line, problem):
    with pytest.raises(BunsetsuFormatError) as caught:
        list(read_mecab(io.StringIO(text), name="in.mecab"))
    message = str(caught.value)
    assert message.startswith(f"in.mecab:{line}: ") and problem in message
    assert "\n" not in message


def test_quoted_fields_are_read_as_csv_wherever_they_are():
    # A quote inside the fields read (UniDic's lemma and orth of ",") goes through csv; one
    # after the 17th field (aConType) is split as the line is.
    comma = ',\t補助記号,読点,*,*,*,*,,",",",",,",",,記号,*,*,*,*,,,,,*,*,*,*,*'
    late = UNIDIC.splitlines()[1]
    (sentence,) = read_mecab(io.StringIO(f"{comma}\n{late}\nEOS\n"))
    assert sentence.pos2 == ["読点", "係助詞"] and sentence.base == [",", "は"]
    assert sentence.tagset == "unidic"


def test_unidic_names_in_ipadics_nine_fields_are_unidic():
    # UniDic's analysis written in MeCab-IPAdic's layout (pos1-4, cType, cForm, base, reading,
    # pronunciation), as ginzame and similar tools write it.
    text = ("銀座\t名詞,固有名詞,地名,一般,*,*,銀座,ギンザ,ギンザ\n"
            "で\t助詞,格助詞,*,*,*,*,で,デ,デ\n。\t補助記号,句点,*,*,*,*,。,。,。\nEOS\n")
    (sentence,) = read_mecab(io.StringIO(text))
    assert sentence.tagset == "unidic"
    assert sentence.pos2 == ["固有名詞-地名", "格助詞", "句点"]
    (ipadic,) = read_mecab(io.StringIO(IPADIC))
    assert ipadic.tagset == "ipadic" and ipadic.pos2[0] == "固有名詞"
