"""`polyparse clf` on svmlight files of real values: kernel-svm (naive evaluation), linear and
poly2-linear train and predict; the binary-only backends and evaluators refuse in one line
naming file, line and the backends that take real values."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import write_svmlight
from polyparse.parser.cli.main import main

TAKERS = ("takes binary features (0/1) only; real values are taken by kernel-svm (naive "
          "evaluation), linear and poly2-linear")


def write_real(path: Path, X: np.ndarray, y: np.ndarray) -> None:
    lines = [" ".join([str(label)] + [f"{j + 1}:{v!r}" for j, v in enumerate(row) if v])
             for row, label in zip(X.tolist(), y.tolist())]
    path.write_text("# real values\n" + "\n".join(lines) + "\n")


@pytest.fixture()
def real_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(5)
    X = np.round(rng.normal(size=(240, 6)), 3)
    y = np.select([X[:, 0] > 0.4, X[:, 1] * X[:, 2] > 0], [3, 1], 2)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_real(train, X[:160], y[:160])
    write_real(test, X[160:], y[160:])
    return train, test


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


@pytest.mark.parametrize("classifier", ["kernel-svm", "linear", "poly2-linear"])
def test_real_values_train_and_predict(real_files, tmp_path: Path, capsys,
                                       classifier: str) -> None:
    train, test = real_files
    model, values = tmp_path / "m.model", tmp_path / "values.txt"
    code, out, err = run(["clf", "train", str(train), "--model", str(model), "--classifier",
                          classifier, "--json"], capsys)
    assert code == 0, err
    code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--json",
                          "--decision-values", str(values)], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert result["n"] == 80 and result["accuracy"] > 60
    assert result["eval_mode"] == ("naive" if classifier == "kernel-svm" else "explicit-weights")
    assert np.loadtxt(values).shape == (80, 4)


def test_a_real_kernel_model_takes_only_the_naive_evaluator(real_files, tmp_path: Path,
                                                            capsys) -> None:
    train, test = real_files
    model = tmp_path / "k.model"
    assert run(["clf", "train", str(train), "--model", str(model), "--classifier",
                "kernel-svm"], capsys)[0] == 0
    code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--eval-mode",
                          "split"], capsys)
    assert "support vectors hold real values, which only the naive evaluator" in one_line(code,
                                                                                           err)
    code, out, err = run(["clf", "convert", "--model", str(model), "--to", "pke", "--output",
                          str(tmp_path / "c.model")], capsys)
    assert "support vectors hold real values" in one_line(code, err)


def test_binary_only_backends_and_evaluators_refuse_real_values(real_files, tmp_path: Path,
                                                                capsys) -> None:
    train, test = real_files
    code, _, err = run(["clf", "train", str(train), "--model", str(tmp_path / "p.model"),
                        "--classifier", "pa-slicing"], capsys)
    first = train.read_text().splitlines()[1].split()[1].split(":")
    assert one_line(code, err) == (f"polyparse: {train}:2: feature {first[0]} has value "
                                   f"{float(first[1]):g}; pa-slicing {TAKERS}")
    # A kernel model trained on binary rows scores real ones by the naive sum only.
    binary_train = tmp_path / "binary.svm"
    write_svmlight(binary_train, BinaryMatrix.from_rows([[1, 2], [2, 3], [1, 3], [3]], 4),
                   np.array([1, 2, 1, 2]))
    model = tmp_path / "b.model"
    assert run(["clf", "train", str(binary_train), "--model", str(model), "--classifier",
                "kernel-svm"], capsys)[0] == 0
    code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--json"], capsys)
    assert code == 0 and json.loads(out)["eval_mode"] == "naive", err
    code, _, err = run(["clf", "predict", "--model", str(model), str(test), "--eval-mode",
                        "pke"], capsys)
    first = test.read_text().splitlines()[1].split()[1].split(":")
    assert one_line(code, err) == (f"polyparse: {test}:2: feature {first[0]} has value "
                                   f"{float(first[1]):g}; the pke evaluator {TAKERS}")


def test_info_of_a_real_kernel_model(real_files, tmp_path: Path, capsys) -> None:
    train, _ = real_files
    model = tmp_path / "k.model"
    assert run(["clf", "train", str(train), "--model", str(model), "--classifier",
                "kernel-svm"], capsys)[0] == 0
    code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["backend"] == "kernel-svm" and info["split"] is None
    code, _, err = run(["clf", "info", "--model", str(model), "--rare-threshold", "3"], capsys)
    assert "no split form (real-valued support vectors" in one_line(code, err)
