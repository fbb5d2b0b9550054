"""`polyparse srl evaluate`: node-level boundary scores, text and JSON, and bad input in one
line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.parser.cli.test_user_first import one_line, polyparse

GOLD_CONLL = Path(__file__).resolve().parents[2] / "data" / "gold_conll"
GOOD = GOLD_CONLL / "good.gold_conll"


def test_json_keys_and_values() -> None:
    result = polyparse("srl", "evaluate", str(GOOD), str(GOOD), "--json")
    assert result.returncode == 0, result.stderr
    scores = json.loads(result.stdout)
    assert {"precision", "recall", "F1"} <= scores.keys()
    assert (scores["precision"], scores["recall"], scores["F1"]) == (100.0, 100.0, 100.0)
    assert (scores["gold_nodes"], scores["gold_spans_off_nodes"]) == (17, 1)


def test_text_output_and_stdin() -> None:
    result = polyparse("srl", "evaluate", str(GOOD), "-", stdin=GOOD.open("rb"))
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "precision 100.00", "recall    100.00", "F1        100.00",
        "(17 correct of 17 system and 17 gold positive nodes, 5 predicates; argument spans on "
        "no node: 1 gold (not counted), 1 system)"]


@pytest.mark.parametrize("fixture, line, problem", [
    ("argument_unclosed", 7, "argument column 1: (ARG1 is not closed by the end of the "
                             "sentence (line 11)"),
    ("argument_columns", 4, "1 argument column but 0 predicates (rows with a roleset in "
                            "column 8)"),
    ("parse_open", 6, "the parse bits leave 1 bracket open at the end of the sentence"),
    ("parse_too_many_closes", 6, "parse bit '*)))' closes 1 bracket more than are open"),
])
def test_bad_input_is_one_line(fixture: str, line: int, problem: str) -> None:
    bad = GOLD_CONLL / f"{fixture}.gold_conll"
    for gold, system in ((bad, bad), (GOOD, bad)):
        result = polyparse("srl", "evaluate", str(gold), str(system))
        if gold == GOOD:
            # the system's first sentence already differs from the gold one's
            one_line(result, f"polyparse: {bad}:1: a sentence of 2 words where {GOOD}:1 has 8")
            continue
        assert one_line(result) == f"polyparse: {bad}:{line}: {problem}"
        assert result.stdout == ""


def test_gold_from_stdin_is_refused() -> None:
    result = polyparse("srl", "evaluate", "-", str(GOOD))
    one_line(result, "the gold file must be a file")
