"""`polyparse clf train|predict|info` with --classifier kernel-svm (run in-process)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from classifiers.kernel_svm.svc import KernelSVM
from features.svmlight import read_svmlight, write_svmlight
from parser.cli.main import main
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
    lines = [line.split() for line in values.read_text().splitlines()]
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
        (["--loss", "l1"], "--loss applies to the linear backends"),
        (["--class-weight", "3"], "--class-weight '3' is not LABEL:WEIGHT"),
        (["--class-weight", "3:x"], "--class-weight '3:x' is not LABEL:WEIGHT"),
        (["--cache-mb", "0"], "cache_mb must be positive"),
        (["--strategy", "split"], "kernel-svm always uses the kernel strategy"),
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
