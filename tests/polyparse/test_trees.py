"""`import polyparse`: tree classifiers on SVM-light-TK data and the SRL boundary detector, as a
Python user calls them, against what the command line gives."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import polyparse
from polyparse.parser.cli.main import main

GOOD = Path(__file__).resolve().parents[1] / "data" / "gold_conll" / "good.gold_conll"


def write_four_examples(folder: Path) -> Path:
    path = folder / "train.tk"
    path.write_text("+1 |BT| (VP (VB-P join) (NP-B (DT the) (NN board))) |ET| 1:1 3:1\n"
                    "-1 |BT| (VP (VB-P join) (NP (DT-B the) (NN board))) |ET| 2:1 3:1\n"
                    "+1 |BT| (VP (VB-P see) (NP-B (DT a) (NN dog))) |ET| 1:1 4:1\n"
                    "-1 |BT| (VP (VB-P see) (NP (DT a) (NN-B dog))) |ET| 2:1 4:1\n")
    return path


def test_tree_classifier_round_trip(tmp_path: Path) -> None:
    path = write_four_examples(tmp_path)
    data = polyparse.read_svmlight_tk(path)
    model = polyparse.train_tree_classifier(data, "voted-perceptron", epochs=2)
    plain = polyparse.train_tree_classifier(data, "voted-perceptron", epochs=2, dag=False)
    test = polyparse.read_svmlight_tk(path, model.labels, model.productions)
    values = model.decision_function(test.forest, test.vectors)
    assert np.array_equal(np.where(values > 0, 1, -1), data.labels)
    np.testing.assert_allclose(plain.decision_function(test.forest, test.vectors), values,
                               rtol=1e-12)
    model.save(tmp_path / "m.model")
    loaded = polyparse.load_tree_classifier(tmp_path / "m.model")
    again = polyparse.read_svmlight_tk(path, loaded.labels, loaded.productions)
    assert np.array_equal(loaded.decision_function(again.forest, again.vectors), values)
    with pytest.raises(ValueError, match="unknown tree learner"):
        polyparse.train_tree_classifier(data, "svm-light")


def test_boundary_detector_equals_the_command_line(tmp_path: Path, capsys) -> None:
    detector = polyparse.train_boundary_detector(GOOD, "perceptron", epochs=2)
    assert detector.training["predicates"] == 5
    detector.save(tmp_path / "api.model")
    lines = list(polyparse.load_boundary_detector(tmp_path / "api.model").predict_lines(
        list(polyparse.read_gold_conll(GOOD))))
    (tmp_path / "api.gold_conll").write_text("".join(f"{line}\n" for line in lines))

    model = tmp_path / "cli.model"
    assert main(["srl", "train", "--train", str(GOOD), "--model", str(model), "--learner",
                 "perceptron", "--epochs", "2"]) == 0
    assert main(["srl", "predict", "--model", str(model), str(GOOD), "-o",
                 str(tmp_path / "cli.gold_conll")]) == 0
    capsys.readouterr()
    assert (tmp_path / "api.gold_conll").read_text() == (tmp_path / "cli.gold_conll").read_text()
    scores = polyparse.evaluate_boundaries(GOOD, tmp_path / "api.gold_conll")
    assert main(["srl", "evaluate", str(GOOD), str(tmp_path / "cli.gold_conll"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == scores


def test_cpa_tree_classifier(tmp_path: Path) -> None:
    path = write_four_examples(tmp_path)
    data = polyparse.read_svmlight_tk(path)
    values = {}
    for algorithm in ("usvm", "sdag", "sdag+"):
        model = polyparse.train_tree_classifier(data, "cpa", algorithm=algorithm, sample=4,
                                                iterations=30, seed=2)
        test = polyparse.read_svmlight_tk(path, model.labels, model.productions)
        values[algorithm] = model.decision_function(test.forest, test.vectors)
        assert np.array_equal(np.where(values[algorithm] > 0, 1, -1), data.labels)
    np.testing.assert_allclose(values["sdag"], values["usvm"], rtol=1e-7)
    np.testing.assert_allclose(values["sdag+"], values["usvm"], rtol=1e-7)
    with pytest.raises(ValueError, match="larger than the 4 instances"):
        polyparse.train_tree_classifier(data, "cpa", sample=5)
    with pytest.raises(ValueError, match="degree 1 or 2"):
        polyparse.train_tree_classifier(data, "cpa", spec=polyparse.TreeKernelSpec(degree=3))
    with pytest.raises(ValueError, match="rejection sampling"):
        polyparse.train_tree_classifier(data, "cpa", j=2.0, sampling="uniform")


def test_cpa_boundary_detector_equals_the_command_line(tmp_path: Path, capsys) -> None:
    detector = polyparse.train_boundary_detector(GOOD, "cpa", algorithm="usvm", sample=20,
                                                 iterations=15, seed=4)
    assert detector.training["algorithm"] == "usvm" and detector.training["n_cuts"] > 0
    assert "seconds" not in detector.training and "seconds" in detector.timings
    detector.save(tmp_path / "api.model")
    model = tmp_path / "cli.model"
    assert main(["srl", "train", "--train", str(GOOD), "--model", str(model), "--learner",
                 "cpa", "--algorithm", "usvm", "--sample", "20", "--iterations", "15",
                 "--seed", "4"]) == 0
    capsys.readouterr()
    sentences = list(polyparse.read_gold_conll(GOOD))
    np.testing.assert_array_equal(
        polyparse.load_boundary_detector(tmp_path / "api.model").decision_values(sentences),
        polyparse.load_boundary_detector(model).decision_values(sentences))
