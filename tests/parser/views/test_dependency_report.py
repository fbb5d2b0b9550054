"""The dep evaluate report (parser/views/dependency_report.py) on hand-made gold and system
trees: its scores are evaluate's, its counts add up to UAS and LAS, and it lists exactly the
sentences with errors (or, for two systems, where they differ), most first, each drawn with
its marks."""
from __future__ import annotations

import io
import json

import pytest

from polyparse.parser.dependency.evaluate import evaluate, judge_words
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.views.dependency_report import (
    DependencyErrors,
    dependency_report,
    judged_dependency_sentences,
)
from tests.parser.views.pages import (
    page_json_lines,
    page_score_cells,
    page_sentences,
    score_cells,
)
from tests.parser.views.trees import CROSSING, conllu

SECOND = conllu([("Dogs", "NOUN", "NNS", 2, "nsubj"), ("bark", "VERB", "VBP", 0, "root"),
                 (".", "PUNCT", ".", 2, "punct")], "# sent_id = dogs\n# text = Dogs bark .\n")
THIRD = conllu([("Cats", "NOUN", "NNS", 2, "nsubj"), ("sleep", "VERB", "VBP", 0, "root")],
               "# sent_id = cats\n# text = Cats sleep\n")
GOLD = CROSSING + SECOND + THIRD
# System A: "it" on "scheduled" (wrong head), "today" as obj (wrong label), "." on "Dogs"
# (wrong head); the cats right.
SYSTEM_A = (CROSSING.replace("PRP\t_\t2\tnmod", "PRP\t_\t4\tobl")
            .replace("NN\t_\t4\tobl:tmod", "NN\t_\t4\tobj")
            + SECOND.replace(".\t_\t2\tpunct", ".\t_\t1\tpunct") + THIRD)
# System B: right where A is wrong on "it", wrong with A on "today", and wrong on the cats.
SYSTEM_B = (CROSSING.replace("NN\t_\t4\tobl:tmod", "NN\t_\t4\tobj")
            + SECOND.replace(".\t_\t2\tpunct", ".\t_\t1\tpunct")
            + THIRD.replace("NNS\t_\t2\tnsubj", "NNS\t_\t2\tobj"))


def read(text: str) -> list:
    return list(read_conll(None, stream=io.StringIO(text), name="x", require_tree=True))


@pytest.fixture(scope="module")
def one_system() -> str:
    gold, system = read(GOLD), read(SYSTEM_A)
    return dependency_report("gold.conllu", gold, [("a.conllu", system)],
                             [evaluate(gold, system)])


def test_the_scores_are_evaluates_verbatim(one_system: str) -> None:
    scores = evaluate(read(GOLD), read(SYSTEM_A)).as_dict()
    assert page_json_lines(one_system) == [json.dumps(scores, sort_keys=True)]
    cells = page_score_cells(one_system)
    assert cells == score_cells(scores)


def test_the_counts_add_up_to_uas_and_las() -> None:
    gold, system = read(GOLD), read(SYSTEM_A)
    judged = judged_dependency_sentences(gold, [judge_words(gold, system)])
    errors = DependencyErrors(judged, 1)
    scores = evaluate(gold, system)
    for breakdown in (errors.relations, errors.upos, errors.gold_lengths,
                      errors.sentence_words):
        total = breakdown.total(0)
        assert total.units == scores.words == 12
        assert 100 * total.head_right / total.units == pytest.approx(scores.UAS)
        assert 100 * total.both_right / total.units == pytest.approx(scores.LAS)
    assert errors.relations.tally("nmod", 0).head_wrong == 1
    assert errors.relations.tally("obl", 0).label_wrong == 1
    assert errors.label_confusions[0] == {("obl", "obj"): 1, ("nmod", "obl"): 1}
    assert errors.head_confusions[0] == {("nmod", "NOUN", "VERB"): 1,
                                         ("punct", "VERB", "NOUN"): 1}
    assert errors.gold_lengths.tally("4", 0).head_wrong == 1   # it -> hearing, 4 words
    assert errors.sentences.total(0).head_right == 1            # only the cats all right


def test_the_sentences_with_errors_most_first(one_system: str) -> None:
    sentences = page_sentences(one_system)
    assert [s["id"] for s in sentences] == ["crossing-1", "dogs"]
    first, second = sentences
    assert first["relations"] == ["nmod", "obl"] and first["kinds"] == ["head", "label"]
    assert second["relations"] == ["punct"] and second["kinds"] == ["head"]
    assert "2 errors: 1 wrong head, 1 wrong label" in first["html"]
    assert first["html"].count("<svg") == 1
    assert "class='arc system head-wrong' data-head='4' data-dependent='6'" in first["html"]
    assert "class='arc system label-wrong' data-head='4' data-dependent='7'" in first["html"]
    assert "class='arc gold' data-head='2' data-dependent='6'" in first["html"]


def test_two_systems_where_they_differ_and_which_is_right() -> None:
    gold, first, second = read(GOLD), read(SYSTEM_A), read(SYSTEM_B)
    page = dependency_report("gold.conllu", gold, [("a.conllu", first), ("b.conllu", second)],
                             [evaluate(gold, first), evaluate(gold, second)])
    assert len(page_json_lines(page)) == 2
    assert "A and B give 2 scored words another head or label: A is right on 1, B on 1, " \
           "neither on 0" in page
    sentences = page_sentences(page)
    assert [(s["id"], s["kinds"]) for s in sentences] == [("crossing-1", ["B right"]),
                                                         ("cats", ["A right"])]
    assert all(s["html"].count("<svg") == 2 for s in sentences)
    assert "A and B differ on 1 word: A right on 0, B right on 1" in sentences[0]["html"]
