"""`polyparse srl train|predict|evaluate`: a model trained and applied end to end, node-level
boundary scores, text and JSON, and bad input or options in one line."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyparse.parser.cli.main import main
from tests.parser.cli.user_runs import leftovers, one_line, polyparse
from tests.parser.formats.test_gold_conll import TOOL_BAD_INPUTS

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


@pytest.mark.parametrize("fixture, line, problem", TOOL_BAD_INPUTS)
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


def test_gold_from_stdin() -> None:
    with GOOD.open("rb") as gold:
        result = polyparse("srl", "evaluate", "-", str(GOOD), "--json", stdin=gold)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["F1"] == 100.0


@pytest.mark.parametrize("learner", ["voted-perceptron", "perceptron", "svm", "cpa"])
def test_train_predict_evaluate(tmp_path: Path, learner: str) -> None:
    model, output = tmp_path / "srl.model", tmp_path / "pred.gold_conll"
    result = polyparse("srl", "train", "--train", str(GOOD), "--model", str(model),
                       "--learner", learner, "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["learner"] == learner and summary["predicates"] == 5
    assert summary["instances"] > summary["positives"] > 0
    result = polyparse("srl", "predict", "--model", str(model), str(GOOD), "-o", str(output))
    assert result.returncode == 0, result.stderr
    gold_lines, lines = GOOD.read_text().splitlines(), output.read_text().splitlines()
    assert len(lines) == len(gold_lines)
    for gold, predicted in zip(gold_lines, lines):
        # only the argument columns change: words, tags, parse bits and predicates stay
        assert gold.split()[:8] == predicted.split()[:8]
    result = polyparse("srl", "evaluate", str(GOOD), str(output), "--json")
    assert result.returncode == 0, result.stderr
    scores = json.loads(result.stdout)
    assert scores["gold_nodes"] == 17 and 0.0 <= scores["F1"] <= 100.0
    result = polyparse("clf", "info", "--model", str(model), "--json")
    assert result.returncode == 0 and json.loads(result.stdout)["backend"] == learner


def test_predict_streams_to_stdout_and_reads_stdin(tmp_path: Path) -> None:
    model = tmp_path / "srl.model"
    assert polyparse("srl", "train", "--train", str(GOOD), "--model", str(model)).returncode == 0
    from_file = polyparse("srl", "predict", "--model", str(model), str(GOOD))
    from_stdin = polyparse("srl", "predict", "--model", str(model), "-", stdin=GOOD.open("rb"))
    assert from_file.returncode == 0 and from_file.stdout == from_stdin.stdout != ""
    # Issue 22, A5: with no FILE, as every other command, it reads standard input.
    no_argument = polyparse("srl", "predict", "--model", str(model), stdin=GOOD.open("rb"))
    assert no_argument.returncode == 0 and no_argument.stdout == from_file.stdout


@pytest.mark.parametrize("fixture, line", [
    ("argument_unclosed", 7), ("argument_columns", 4), ("parse_open", 6)])
def test_train_and_predict_bad_input_is_one_line(tmp_path: Path, fixture: str,
                                                  line: int) -> None:
    bad = GOLD_CONLL / f"{fixture}.gold_conll"
    model, output = tmp_path / "srl.model", tmp_path / "out.gold_conll"
    one_line(polyparse("srl", "train", "--train", str(bad), "--model", str(model)),
             f"polyparse: {bad}:{line}: ")
    assert not model.exists()
    assert polyparse("srl", "train", "--train", str(GOOD), "--model", str(model)).returncode == 0
    result = polyparse("srl", "predict", "--model", str(model), str(bad), "-o", str(output))
    one_line(result, f"polyparse: {bad}:{line}: ")
    assert not output.exists() and leftovers(tmp_path) == []


@pytest.mark.parametrize("extra, problem", [
    (["--lambda", "0"], "--lambda must be in (0, 1]"),
    (["--learner", "svm", "--epochs", "2"], "--epochs applies to the perceptrons"),
    (["-C", "1"], "-C applies to --learner svm"),
    (["--epochs", "0"], "--epochs must be >= 1"),
    (["--learner", "cpa", "--sample", "0"], "srl train: --sample must be >= 1, not 0"),
    (["--learner", "cpa", "--iterations", "0"], "srl train: --iterations must be >= 1, not 0"),
    (["--learner", "cpa", "--epsilon", "-1"], "srl train: --epsilon must be positive and finite, not -1"),
    (["--learner", "cpa", "--threads", "0"], "srl train: --threads must be >= 1, not 0"),
    (["--learner", "cpa", "-C", "0"], "srl train: -C must be positive and finite, not 0"),
    (["--learner", "cpa", "-C", "inf"], "srl train: -C must be positive and finite, not inf"),
    (["--learner", "cpa", "--sampling", "uniform", "-j", "2"], "-j is the positive cost"),
    (["--learner", "cpa", "--epochs", "2"], "--epochs applies to the perceptrons"),
    (["--learner", "svm", "--algorithm", "usvm"], "srl train: --algorithm applies to cpa, not svm"),
    (["--sampling", "rejection"], "--sampling applies to cpa, not voted-perceptron"),
    (["--learner", "svm", "--iterations", "5"], "--iterations applies to --learner cpa"),
])
def test_options_are_checked_before_the_data(tmp_path: Path, extra: list[str],
                                             problem: str) -> None:
    result = polyparse("srl", "train", "--train", str(tmp_path / "missing.gold_conll"),
                       "--model", str(tmp_path / "m.model"), *extra)
    one_line(result, problem)


def test_predict_needs_an_srl_model(tmp_path: Path) -> None:
    tk = tmp_path / "train.tk"
    tk.write_text("+1 |BT| (S (NN a)) |ET| 1:1\n-1 |BT| (S (NN b)) |ET| 2:1\n")
    model = tmp_path / "clf.model"
    assert polyparse("clf", "train", str(tk), "--model", str(model), "--classifier",
                     "perceptron").returncode == 0
    one_line(polyparse("srl", "predict", "--model", str(model), str(GOOD)),
             "without an SRL feature vocabulary")


def test_cpa_train_reports_and_same_predictions(tmp_path: Path, capsys) -> None:
    outputs = []
    for algorithm in ("usvm", "sdag+"):
        model, output = tmp_path / f"{algorithm}.model", tmp_path / f"{algorithm}.gold_conll"
        code = main(["srl", "train", "--train", str(GOOD), "--model", str(model), "--learner",
                     "cpa", "--algorithm", algorithm, "--sample", "20", "--iterations", "20",
                     "-j", "2", "--seed", "3", "--json"])
        captured = capsys.readouterr()
        assert code == 0, captured.err
        summary = json.loads(captured.out)
        assert summary["learner"] == "cpa" and summary["algorithm"] == algorithm
        assert (summary["sampling"], summary["positive_cost"], summary["sample"]) == (
            "rejection", 2.0, 20)
        assert summary["n_cuts"] > 0 and "qp_seconds" in summary
        code = main(["srl", "predict", "--model", str(model), str(GOOD), "-o", str(output)])
        assert code == 0, capsys.readouterr().err
        outputs.append(output.read_text())
    assert outputs[0] == outputs[1]


def test_cpa_sample_larger_than_the_instances(tmp_path: Path) -> None:
    model = tmp_path / "m.model"
    result = polyparse("srl", "train", "--train", str(GOOD), "--model", str(model),
                       "--learner", "cpa", "--sample", "47")
    one_line(result, f"srl train: {GOOD}: the sample size 47 is larger than the 46 instances")
    assert not model.exists() and leftovers(tmp_path) == []
