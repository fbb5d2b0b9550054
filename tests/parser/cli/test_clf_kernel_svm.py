"""`polyparse clf train|predict|info` with --classifier kernel-svm (run in-process)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.features.svmlight import read_svmlight, write_svmlight
from polyparse.parser.cli.main import main
from tests.classifiers.kernel_svm.test_kernel_svm import random_problem


@pytest.fixture()
def files(tmp_path: Path) -> tuple[Path, Path]:
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_svmlight(train, *random_problem(300, 40, [2, 1, 3], seed=1))
    write_svmlight(test, *random_problem(120, 40, [2, 1, 3], seed=2))
    return train, test


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_train_predict_info(files, tmp_path: Path, capsys) -> None:
    train, test = files
    model = tmp_path / "k.model"
    argv = ["clf", "train", str(train), "--model", str(model), "--classifier", "kernel-svm",
            "--degree", "3", "--gamma", "0.5", "--coef0", "1", "-C", "2", "--eps", "1e-4",
            "--cache-mb", "1", "--class-weight", "3:2", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["backend"] == "kernel-svm" and summary["n_outputs"] == 3
    X, y = read_svmlight(train)
    reference = KernelSVM(degree=3, gamma=0.5, coef0=1, C=2, eps=1e-4, class_weight={3: 2.0})
    reference.fit(X, y)
    assert summary["objective"] == reference.objective_
    assert summary["n_support_vectors"] == reference.n_support_vectors

    code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["objective"] == reference.objective_ and len(info["objective"]) == 3
    assert info["n_support_vectors"] == reference.n_support_vectors
    assert info["classes"] == reference.classes_.tolist() and info["class_weight"] == [[3, 2.0]]
    assert "--class-weight 3:2.0" in info["training"]["command"]

    values = tmp_path / "values.txt"
    code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--json",
                          "--eval-mode", "naive", "--decision-values", str(values)], capsys)
    assert code == 0, err
    result = json.loads(out)
    test_X, test_y = read_svmlight(test)
    expected = reference.decision_function(test_X)
    assert result["n"] == 120
    assert result["accuracy"] == pytest.approx(100 * np.mean(reference.predict(test_X) == test_y))
    header, *lines = [line.split() for line in values.read_text().splitlines()]
    # One column per pair of classes in libsvm's order, positive meaning the first.
    pairs = [(i, j) for i in range(3) for j in range(i + 1, 3)]
    assert header == ["#", "label"] + [f"{reference.classes_[i]}:{reference.classes_[j]}"
                                       for i, j in pairs]
    assert len(lines) == 120
    np.testing.assert_array_equal(np.array([[float(v) for v in line[1:]] for line in lines]),
                                  expected)
    assert [int(line[0]) for line in lines] == reference.predict(test_X).tolist()


def test_same_settings_give_identical_model_files(files, tmp_path: Path, capsys) -> None:
    train, _ = files
    for name in ("a.model", "b.model"):
        argv = ["clf", "train", str(train), "--model", str(tmp_path / name), "--classifier",
                "kernel-svm"]
        assert run(argv, capsys)[0] == 0
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--degree", "0"], "degree must be at least 1"),
        (["--loss", "l1"], "--loss applies to poly2-linear and linear, not kernel-svm"),
        (["--class-weight", "3"], "--class-weight '3' is not LABEL:WEIGHT"),
        (["--class-weight", "3:x"], "--class-weight '3:x' is not LABEL:WEIGHT"),
        (["--cache-mb", "0"], "cache_mb must be positive"),
        (["--strategy", "split"], "--strategy applies to pa-slicing, not kernel-svm"),
    ],
)
def test_invalid_settings(files, tmp_path: Path, capsys, extra: list[str], fragment: str) -> None:
    train, _ = files
    argv = ["clf", "train", str(train), "--model", str(tmp_path / "m"), "--classifier",
            "kernel-svm", *extra]
    code, _, err = run(argv, capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert fragment in err


def test_linear_backends_reject_kernel_options(files, tmp_path: Path, capsys) -> None:
    train, _ = files
    argv = ["clf", "train", str(train), "--model", str(tmp_path / "m"), "--classifier",
            "linear", "--class-weight", "1:2"]
    code, _, err = run(argv, capsys)
    assert code == 2 and "--class-weight applies to kernel-svm" in err


def test_step_limit_warns(files, tmp_path: Path, capsys) -> None:
    train, _ = files
    argv = ["clf", "train", str(train), "--model", str(tmp_path / "m"), "--classifier",
            "kernel-svm", "--iterations", "5", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0
    assert json.loads(out)["converged"] == [False, False, False]
    assert "warning: stopped after --iterations 5 SMO steps" in err


# ----- libsvm models of any degree, class weights, labels that are not classes ---------------


@pytest.fixture()
def degree_5_model(files, tmp_path: Path) -> Path:
    """A model of libsvm-official's svm-train -t 1 -d 5 on the training file."""
    from libsvm import svmutil

    train, _ = files
    y, x = svmutil.svm_read_problem(str(train))
    path = tmp_path / "d5.model"
    svmutil.svm_save_model(str(path), svmutil.svm_train(y, x, "-t 1 -d 5 -g 0.1 -r 1 -q"))
    return path


def test_a_degree_5_libsvm_model_predicts_naively_and_by_pki(files, degree_5_model: Path,
                                                             tmp_path: Path, capsys) -> None:
    from libsvm import svmutil

    _, test = files
    y, x = svmutil.svm_read_problem(str(test))
    labels, _, expected = svmutil.svm_predict(y, x, svmutil.svm_load_model(str(degree_5_model)),
                                              "-q")
    for mode in ("naive", "pki", None):
        values = tmp_path / "values.txt"
        code, out, err = run(["clf", "predict", "--model", str(degree_5_model), str(test),
                              "--json", "--decision-values", str(values),
                              *(["--eval-mode", mode] if mode else [])], capsys)
        assert code == 0 and err == "", err
        assert json.loads(out)["eval_mode"] == (mode or "pki")
        lines = [line.split() for line in values.read_text().splitlines()[1:]]
        np.testing.assert_allclose([[float(v) for v in line[1:]] for line in lines], expected,
                                   rtol=1e-9, atol=1e-9)
        assert [float(line[0]) for line in lines] == labels
    code, out, err = run(["clf", "info", "--model", str(degree_5_model), "--json"], capsys)
    assert code == 0 and json.loads(out)["degree"] == 5


@pytest.mark.parametrize("argv", [["predict", "--eval-mode", "split", "TEST"],
                                  ["predict", "--eval-mode", "pke", "TEST"],
                                  ["convert", "--to", "pke", "--output", "OUT"],
                                  ["convert", "--to", "split", "--output", "OUT"]])
def test_the_expanding_evaluators_refuse_degree_5_in_one_line(files, degree_5_model: Path,
                                                              tmp_path: Path, capsys,
                                                              argv: list[str]) -> None:
    _, test = files
    argv = [{"TEST": str(test), "OUT": str(tmp_path / "out")}.get(a, a) for a in argv]
    code, out, err = run(["clf", argv[0], "--model", str(degree_5_model), *argv[1:]], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and out == "", err
    assert "expands conjunctions of degree 1..3, and this model has degree 5" in lines[0]
    assert "(pki and naive evaluate any degree)" in lines[0]
    assert not (tmp_path / "out").exists()


def test_a_weight_for_an_absent_class_warns_as_libsvm_does(files, tmp_path: Path,
                                                           capsys) -> None:
    train, _ = files
    model = tmp_path / "k.model"
    code, _, err = run(["clf", "train", str(train), "--model", str(model), "--classifier",
                        "kernel-svm", "--class-weight", "7:2", "--class-weight", "3:0.5"],
                       capsys)
    warnings = [line for line in err.splitlines() if "warning" in line]
    assert code == 0 and warnings == [
        "polyparse: warning: class label 7 specified in the class weights is not found in the "
        "training labels; its weight is ignored, as libsvm ignores it"]
    X, y = read_svmlight(train)
    reference = KernelSVM(class_weight={3: 0.5}).fit(X, y)
    again = KernelSVM.load(model)
    np.testing.assert_array_equal(again.expansion_.dual_coef, reference.expansion_.dual_coef)


def test_balanced_class_weights(files, tmp_path: Path, capsys) -> None:
    train, _ = files
    model = tmp_path / "k.model"
    code, out, err = run(["clf", "train", str(train), "--model", str(model), "--classifier",
                          "kernel-svm", "--class-weight", "balanced", "--json"], capsys)
    assert code == 0, err
    X, y = read_svmlight(train)
    reference = KernelSVM(class_weight="balanced").fit(X, y)
    assert json.loads(out)["objective"] == reference.objective_
    code, out, _ = run(["clf", "info", "--model", str(model), "--json"], capsys)
    info = json.loads(out)
    assert info["class_weight"] == "balanced"
    assert info["training"]["command"].endswith("--class-weight balanced")
    code, _, err = run(["clf", "train", str(train), "--model", str(tmp_path / "m"),
                        "--classifier", "kernel-svm", "--class-weight", "balanced",
                        "--class-weight", "1:2"], capsys)
    assert code == 2 and len(err.strip().splitlines()) == 1
    assert "--class-weight balanced weighs every class" in err


@pytest.mark.parametrize("classifier", ["linear", "poly2-linear", "kernel-svm", "pa-slicing"])
def test_regression_targets_are_one_line_naming_file_and_line(tmp_path: Path, capsys,
                                                              classifier: str) -> None:
    data = tmp_path / "targets.svm"
    data.write_text("# house prices\n1 1:1 3:1\n\n2 2:1\n3.75 1:1 2:1\n0.5 3:1\n")
    model = tmp_path / "m.model"
    code, out, err = run(["clf", "train", str(data), "--model", str(model), "--classifier",
                          classifier], capsys)
    lines = err.strip().splitlines()
    assert code == 2 and out == "" and len(lines) == 1, err
    assert lines[0].startswith(f"polyparse: {data}:5: label 3.75 is not a class: 2 of the 4 "
                               "labels are real numbers (2 distinct), regression targets")
    assert not model.exists()
