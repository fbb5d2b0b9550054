"""UAS/LAS evaluation (parser.dependency.evaluate)."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from parser.dependency.evaluate import PTB_PUNCT_TAGS, evaluate
from parser.formats.conll import ConllFormatError, read_conll

DATA = Path(__file__).parents[2] / "data"
GOLD = DATA / "evaluate" / "punct_gold.conllu"
SYSTEM = DATA / "evaluate" / "punct_system.conllu"


def sentences(text: str, name: str = "x") -> list:
    return list(read_conll(None, stream=io.StringIO(text), name=name))


def score(punct: str):
    return evaluate(read_conll(GOLD, require_tree=True), read_conll(SYSTEM), punct=punct)


# Per word of the fixture (head right, universal label right, full label right):
#   1 ``    T T T   excluded: upos, ptb
#   2 My    T T F
#   3 dog   T F F
#   4 barks T T T
#   5 !!!   F T T   excluded: unicode
#   6 ...   T T T   excluded: upos, unicode
#   7 $     T T T
#   8 .     F T T   excluded: upos, unicode, ptb
@pytest.mark.parametrize(
    "punct, words, excluded, uas, las, las_exact, la, uem, lem",
    [
        ("none", 8, 0, 6 / 8, 5 / 8, 4 / 8, 7 / 8, 0, 0),
        ("upos", 5, 3, 4 / 5, 3 / 5, 2 / 5, 4 / 5, 0, 0),
        ("unicode", 5, 3, 5 / 5, 4 / 5, 3 / 5, 4 / 5, 1, 0),
        ("ptb", 6, 2, 5 / 6, 4 / 6, 3 / 6, 5 / 6, 0, 0),
    ],
)
def test_punctuation_policies(punct, words, excluded, uas, las, las_exact, la, uem, lem):
    scores = score(punct)
    assert (scores.words, scores.excluded, scores.sentences) == (words, excluded, 1)
    assert scores.punct == punct
    assert scores.UAS == pytest.approx(100 * uas)
    assert scores.LAS == pytest.approx(100 * las)
    assert scores.LAS_exact == pytest.approx(100 * las_exact)
    assert scores.LA == pytest.approx(100 * la)
    assert (scores.UEM, scores.LEM) == (100 * uem, 100 * lem)
    assert f"punct={punct}" in scores.summary()


def test_ptb_opening_quote_tag_is_two_backquotes():
    assert "``" in PTB_PUNCT_TAGS and "`" not in PTB_PUNCT_TAGS


def test_as_dict_keys():
    result = score("none").as_dict()
    assert {"UAS", "LAS", "LAS_exact", "words", "sentences", "punct", "LA"} <= set(result)
    assert result["punct"] == "none" and result["words"] == 8 and result["UAS"] == 75.0


def test_range_lines_and_empty_nodes_are_not_scored():
    gold = list(read_conll(DATA / "conll" / "good.conllu", require_tree=True))
    system = list(read_conll(DATA / "conll" / "good.conllu"))
    system[0].head[:] = [3, 3, 0, 1]
    system[1].deprel[:] = ["root", "dep"]
    scores = evaluate(gold, system)
    assert (scores.words, scores.sentences) == (6, 2)
    assert scores.UAS == pytest.approx(100 * 5 / 6) and scores.LAS == pytest.approx(100 * 4 / 6)
    assert (scores.UEM, scores.LEM) == (50.0, 0.0)


def test_unknown_policy():
    with pytest.raises(ValueError, match="punctuation policy"):
        score("commas")


ONE = "# a\n1\tHi\thi\tINTJ\tUH\t_\t0\troot\t_\t_\n2\tthere\tthere\tADV\tRB\t_\t1\tadvmod\t_\t_\n\n"
OTHER = "1\tBye\tbye\tINTJ\tUH\t_\t0\troot\t_\t_\n\n"


def test_different_word_count():
    system_text = ONE + OTHER.replace("\n\n", "\n2\tnow\tnow\tADV\tRB\t_\t1\tadvmod\t_\t_\n\n")
    gold, system = sentences(ONE + OTHER), sentences(system_text)
    with pytest.raises(ConllFormatError) as caught:
        evaluate(gold, system, gold_name="g.conllu", system_name="s.conllu")
    expected = "s.conllu:5: sentence 2 differs from g.conllu:5: 2 words instead of 1"
    assert str(caught.value) == expected


def test_different_form():
    system_text = ONE.replace("there", "here")
    with pytest.raises(ConllFormatError) as caught:
        evaluate(sentences(ONE), sentences(system_text), gold_name="g", system_name="s")
    expected = "s:1: sentence 1 differs from g:1: word 2 is 'here', gold has 'there'"
    assert str(caught.value) == expected


def test_missing_and_extra_sentences():
    message = r"^s:3: system file ends after 1 sentence, but g goes on \(sentence at line 5\)$"
    with pytest.raises(ConllFormatError, match=message):
        evaluate(sentences(ONE + OTHER), sentences(ONE), gold_name="g", system_name="s")
    with pytest.raises(ConllFormatError, match=r"^s:5: extra sentence, g ends after 1 sentence$"):
        evaluate(sentences(ONE), sentences(ONE + OTHER), gold_name="g", system_name="s")


@pytest.mark.parametrize("punct", ["none", "upos", "unicode", "ptb"])
def test_ewt_test_against_itself(corpora, punct):
    path = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    scores = evaluate(read_conll(path, require_tree=True), read_conll(path), punct=punct)
    percentages = (scores.UAS, scores.LAS, scores.LAS_exact, scores.LA, scores.UEM, scores.LEM)
    assert percentages == (100.0,) * 6
    assert scores.sentences == 2077 and scores.words + scores.excluded == 25094
    assert (scores.excluded > 0) == (punct != "none")
