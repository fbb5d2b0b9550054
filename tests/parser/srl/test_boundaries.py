"""parser/srl/boundaries.py: node decisions back to argument spans and gold_conll columns."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from polyparse.parser.formats.gold_conll import ArgumentSpan, ConllPredicate, read_gold_conll
from polyparse.parser.srl.boundaries import predicted_lines, predicted_spans, write_predictions
from polyparse.parser.srl.evaluate import boundary_counts
from polyparse.parser.srl.instances import file_instances

GAVE = ConllPredicate(1, "give", "give.01", 0, (ArgumentSpan("V", 1, 1),))
GAVE_UP = ConllPredicate(1, "give", "give_up.06", 0, (ArgumentSpan("V", 1, 2),))


def spans(found: list[ArgumentSpan]) -> list[tuple[int, int]]:
    assert {span.label for span in found} <= {"ARG"}
    return [(span.first, span.last) for span in found]


def test_positive_nodes_become_spans_in_word_order() -> None:
    candidates = [(0, 0), (0, 0), (2, 2), (3, 5), (6, 6)]
    assert spans(predicted_spans(GAVE, candidates, [0.5, 0.2, -1.0, 2.0, 0.0])) == \
        [(0, 0), (3, 5)]
    assert predicted_spans(GAVE, candidates, [-1.0] * 5) == []


def test_overlaps_go_to_the_larger_decision_then_the_earlier_node() -> None:
    candidates = [(2, 6), (2, 3), (4, 6), (5, 5)]
    assert spans(predicted_spans(GAVE, candidates, [1.0, 2.0, 0.5, 0.7])) == [(2, 3), (5, 5)]
    assert spans(predicted_spans(GAVE, candidates, [1.0, 1.0, 1.0, 1.0])) == [(2, 6)]


def test_spans_over_the_predicates_own_words_are_dropped() -> None:
    # "gave up": the particle's node cannot be an argument of its own predicate
    assert spans(predicted_spans(GAVE_UP, [(0, 0), (2, 2)], [1.0, 3.0])) == [(0, 0)]


def test_decisions_must_match_the_candidates() -> None:
    with pytest.raises(ValueError, match="2 candidates but 1 decisions"):
        predicted_spans(GAVE, [(0, 0), (2, 2)], [1.0])


def test_gold_decisions_give_back_the_node_spans(data_dir: Path) -> None:
    good = data_dir / "gold_conll" / "good.gold_conll"
    groups = file_instances(good)
    labels = np.array([i.label for g in groups for i in g.instances], dtype=float)
    lines = list(predicted_lines(read_gold_conll(good), labels))
    source = good.read_text(encoding="utf-8").splitlines()
    assert len(lines) == len(source)
    # ARG0 and ARG2 of "gave" come back as ARG; ARG1 "( one ) book" is no node and is lost
    assert lines[0].split()[-1] == "(ARG*)" and lines[3].split()[-1] == "*"
    assert [line.split()[:8] for line in lines] == [line.split()[:8] for line in source]
    assert lines[23:26] == source[23:26]  # "Yes ." has no predicate
    # the V and C-V spans stay
    assert lines[10].split()[-1] == "(V*" and lines[20].split()[-1] == "(C-V*)"
    written = "".join(line + "\n" for line in lines)
    system = read_gold_conll(None, stream=io.StringIO(written), name="system")
    counts = boundary_counts(read_gold_conll(good), system, "gold", "system")
    assert (counts.gold, counts.system, counts.correct) == (17, 17, 17)


def test_too_few_or_too_many_decisions(data_dir: Path) -> None:
    good = data_dir / "gold_conll" / "good.gold_conll"
    with pytest.raises(ValueError, match="45 decisions for more instances"):
        list(predicted_lines(read_gold_conll(good), [1.0] * 45))
    with pytest.raises(ValueError, match="47 decisions for 46 instances"):
        list(predicted_lines(read_gold_conll(good), [1.0] * 47))


def test_write_predictions_writes_all_or_nothing(data_dir: Path, tmp_path: Path) -> None:
    good = data_dir / "gold_conll" / "good.gold_conll"
    output = tmp_path / "predicted.gold_conll"
    with pytest.raises(ValueError):
        write_predictions(read_gold_conll(good), [1.0] * 45, output)
    assert list(tmp_path.iterdir()) == []
    decisions = [-1.0] * 46
    write_predictions(read_gold_conll(good), decisions, output)
    assert output.read_text(encoding="utf-8").splitlines() == \
        list(predicted_lines(read_gold_conll(good), decisions))
    assert list(tmp_path.iterdir()) == [output]
