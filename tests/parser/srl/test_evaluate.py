"""parser/srl/evaluate.py: node-level boundary precision, recall and F1."""
from __future__ import annotations

from pathlib import Path

import pytest

from polyparse.parser.formats.gold_conll import ArgumentSpan, read_gold_conll, sentence_lines
from polyparse.parser.srl.evaluate import SrlEvaluationError, file_scores


@pytest.fixture()
def good(data_dir: Path) -> Path:
    return data_dir / "gold_conll" / "good.gold_conll"


def system_file(gold: Path, path: Path, changes: dict[tuple[int, int], list[tuple[int, int]]]
                ) -> Path:
    """gold with the argument spans of (sentence, predicate) replaced by changes."""
    lines = []
    for s, sentence in enumerate(read_gold_conll(gold)):
        arguments = [
            [ArgumentSpan("ARG", a, b) for a, b in changes[s, p]] if (s, p) in changes
            else list(predicate.arguments)
            for p, predicate in enumerate(sentence.predicates)]
        lines.extend(sentence_lines(sentence, arguments))
    path.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    return path


def test_the_gold_file_scores_100(good: Path) -> None:
    scores = file_scores(good, good)
    assert scores == {"precision": 100.0, "recall": 100.0, "F1": 100.0, "predicates": 5,
                      "gold_nodes": 17, "system_nodes": 17, "correct_nodes": 17,
                      "gold_spans_off_nodes": 1, "system_spans_off_nodes": 1}


def test_nodes_are_counted_unary_chains_included(good: Path, tmp_path: Path) -> None:
    # "gave": ARG0 Ann (NP, NNP) kept, Bob (NP, NNP) missed, "book" (NP, NN) wrong
    system = system_file(good, tmp_path / "system", {(0, 0): [(0, 0), (6, 6)]})
    scores = file_scores(good, system)
    assert (scores["gold_nodes"], scores["system_nodes"], scores["correct_nodes"]) == \
        (17, 17, 15)
    assert scores["precision"] == pytest.approx(100 * 15 / 17)
    assert scores["recall"] == pytest.approx(100 * 15 / 17)
    assert scores["F1"] == pytest.approx(100 * 15 / 17)


def test_system_spans_on_no_node_count_against_precision(good: Path, tmp_path: Path) -> None:
    # "Bob (" is no node: a wrong claim; "( one ) book" is no node but the gold span
    system = system_file(good, tmp_path / "system", {(0, 0): [(0, 0), (2, 3)],
                                                     (2, 0): [(0, 0), (2, 6)]})
    scores = file_scores(good, system)
    assert scores["system_spans_off_nodes"] == 1
    assert (scores["gold_nodes"], scores["system_nodes"], scores["correct_nodes"]) == \
        (17, 16, 15)
    assert scores["precision"] == pytest.approx(100 * 15 / 16)
    assert scores["recall"] == pytest.approx(100 * 15 / 17)


def test_an_empty_system_scores_zero(good: Path, tmp_path: Path) -> None:
    changes = {(s, p): [] for s, p in [(0, 0), (1, 0), (2, 0), (2, 1), (4, 0)]}
    scores = file_scores(good, system_file(good, tmp_path / "system", changes))
    assert (scores["precision"], scores["recall"], scores["F1"]) == (0.0, 0.0, 0.0)
    assert scores["system_nodes"] == 0


def test_files_that_do_not_pair_up(good: Path, tmp_path: Path) -> None:
    lines = good.read_text(encoding="utf-8").splitlines(keepends=True)
    shorter = tmp_path / "shorter"
    shorter.write_text("".join(lines[:23]), encoding="utf-8")
    with pytest.raises(SrlEvaluationError) as caught:
        file_scores(good, shorter)
    assert str(caught.value) == f"{shorter}: ends after 3 sentences; {good} goes on at line 24"
    with pytest.raises(SrlEvaluationError) as caught:
        file_scores(shorter, good)
    assert str(caught.value) == f"{good}:24: a sentence more than the 3 of {shorter}"
    renamed = tmp_path / "renamed"
    renamed.write_text("".join(lines).replace("  Bob  ", "  Rob  "), encoding="utf-8")
    with pytest.raises(SrlEvaluationError) as caught:
        file_scores(good, renamed)
    assert str(caught.value) == f"{renamed}:3: word 'Rob' where {good}:3 has 'Bob'"
    document = "ontonotes/nw/wsj/01/wsj_0180    0"
    longer = tmp_path / "longer"
    longer.write_text("".join(lines[:26]) + (
        f"{document}   0   Prices   NNS   (TOP(S(NP*)   -   -   (ARG1*)\n"
        f"{document}   1   rose   VBD   (VP*   rise   rise.01   (V*)\n"
        f"{document}   2   sharply   RB   (ADVP*))   -   -   *\n"
        f"{document}   3   .   .   *))   -   -   *\n"), encoding="utf-8")
    with pytest.raises(SrlEvaluationError) as caught:
        file_scores(good, longer)
    assert str(caught.value) == f"{longer}:27: a sentence of 4 words where {good}:27 has 3"
    moved = tmp_path / "moved"
    moved.write_text("".join(lines[:26]) + (
        f"{document}   0   Prices   NNS   (TOP(S(NP*)   price   price.01   (V*)\n"
        f"{document}   1   rose   VBD   (VP*)   -   -   (ARG1*)\n"
        f"{document}   2   .   .   *))   -   -   *\n"), encoding="utf-8")
    with pytest.raises(SrlEvaluationError) as caught:
        file_scores(good, moved)
    assert str(caught.value) == f"{moved}:27: predicates at words [0] where {good}:27 has " \
                                f"them at [1]"
