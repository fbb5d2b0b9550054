"""`polyparse clf train|predict|info|convert` with --classifier pa-slicing (run in-process)."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.modes import EVAL_MODES
from polyparse.classifiers.online.pa_slicing import PASlicing
from polyparse.features.svmlight import read_svmlight, write_svmlight
from polyparse.parser.cli.main import main
from tests.classifiers.online.test_pa_slicing import zipf_problem


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {name: tmp_path / f"{name}.svm" for name in ("binary", "multi", "test", "mtest")}
    write_svmlight(paths["binary"], *zipf_problem(300, 60, seed=1))
    write_svmlight(paths["test"], *zipf_problem(100, 60, seed=2))
    write_svmlight(paths["multi"], *zipf_problem(300, 60, seed=3, labels=(1, 2, 3)))
    write_svmlight(paths["mtest"], *zipf_problem(100, 60, seed=4, labels=(1, 2, 3)))
    return paths


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_train_predict_info_convert(files, tmp_path: Path, capsys) -> None:
    model = tmp_path / "pa.model"
    argv = ["clf", "train", str(files["binary"]), "--model", str(model), "--classifier",
            "pa-slicing", "--degree", "3", "-C", "0.5", "--iterations", "4", "--strategy",
            "split", "--n-common", "9", "--seed", "5", "--json"]
    code, out, err = run(argv, capsys)
    assert code == 0, err
    summary = json.loads(out)
    X, y = read_svmlight(files["binary"])
    reference = PASlicing(degree=3, C=0.5, iterations=4, strategy="split", n_common=9,
                          seed=5).fit(X, y)
    assert summary["backend"] == "pa-slicing" and summary["n_outputs"] == 1
    assert summary["n_support_vectors"] == reference.n_support_vectors

    test_X, test_y = read_svmlight(files["test"])
    expected = reference.decision_function(test_X)
    for mode in EVAL_MODES:
        values = tmp_path / f"{mode}.txt"
        code, out, err = run(["clf", "predict", "--model", str(model), str(files["test"]),
                              "--eval-mode", mode, "--decision-values", str(values), "--json"],
                             capsys)
        assert code == 0, err
        result = json.loads(out)
        assert result["eval_mode"] == mode and result["backend"] == "pa-slicing"
        written = np.loadtxt(values)
        np.testing.assert_allclose(written[:, 1], expected[:, 0], rtol=1e-9, atol=1e-9)
        accuracy = 100 * np.mean(reference.predict(test_X) == test_y)
        assert result["accuracy"] == pytest.approx(accuracy)

    code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["backend"] == "pa-slicing" and info["degree"] == 3
    assert info["variant"] == "pa1" and info["strategy"] == "split" and info["n_common"] == 9
    assert info["n_support_vectors"] == reference.n_support_vectors
    assert info["split"]["memory_total_bytes"] > 0 and info["pke"]["memory_total_bytes"] > 0
    assert info["training"]["command"] == (
        f"polyparse clf train {files['binary'].name} --classifier pa-slicing --degree 3 "
        "-C 0.5 --iterations 4 --seed 5 --variant pa1 --average --strategy split --n-common 9")

    converted = tmp_path / "split.model"
    code, out, err = run(["clf", "convert", "--model", str(model), "--to", "split",
                          "--output", str(converted), "--json"], capsys)
    assert code == 0, err
    assert json.loads(out)["n_support_vectors"] == reference.n_support_vectors
    values = tmp_path / "converted.txt"
    code, out, err = run(["clf", "predict", "--model", str(converted), str(files["test"]),
                          "--decision-values", str(values), "--json"], capsys)
    assert code == 0, err
    written = np.loadtxt(values)
    np.testing.assert_allclose(written[:, 1], expected[:, 0], rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(written[:, 0], reference.predict(test_X))


def test_same_seed_same_bytes_and_multiclass(files, tmp_path: Path, capsys) -> None:
    paths = [tmp_path / "a.model", tmp_path / "b.model"]
    for path, threads in zip(paths, ("1", "2")):
        code, _, err = run(["clf", "train", str(files["multi"]), "--model", str(path),
                            "--classifier", "pa-slicing", "--iterations", "3", "--threads",
                            threads], capsys)
        assert code == 0, err
        assert "trained pa-slicing on 300 rows, 3 classes" in err
    assert paths[0].read_bytes() == paths[1].read_bytes()
    code, out, err = run(["clf", "predict", "--model", str(paths[0]), str(files["mtest"]),
                          "--json"], capsys)
    assert code == 0, err
    X, y = read_svmlight(files["multi"])
    test_X, test_y = read_svmlight(files["mtest"])
    reference = PASlicing(iterations=3, seed=1).fit(X, y)
    assert reference.n_outputs == 3
    assert json.loads(out)["accuracy"] == pytest.approx(
        100 * np.mean(reference.predict(test_X) == test_y))
    converted = tmp_path / "c.model"
    code, _, err = run(["clf", "convert", "--model", str(paths[0]), "--to", "split",
                        "--output", str(converted)], capsys)
    assert code == 0, err
    code, out, err = run(["clf", "predict", "--model", str(converted), str(files["mtest"]),
                          "--json", "--decision-values", str(tmp_path / "c.values")], capsys)
    assert code == 0, err
    assert json.loads(out)["accuracy"] == pytest.approx(
        100 * np.mean(reference.predict(test_X) == test_y))
    values = np.array([[float(v) for v in line.split()[1:]]
                       for line in (tmp_path / "c.values").read_text().splitlines()[1:]])
    np.testing.assert_allclose(values, reference.decision_function(test_X), rtol=1e-9,
                               atol=1e-9)


def test_no_average_and_variant(files, tmp_path: Path, capsys) -> None:
    model = tmp_path / "p.model"
    code, _, err = run(["clf", "train", str(files["binary"]), "--model", str(model),
                        "--classifier", "pa-slicing", "--no-average", "--variant", "perceptron",
                        "--degree", "1", "--iterations", "2"], capsys)
    assert code == 0, err
    clf = PASlicing.load(model)
    assert clf.average is False and clf.variant == "perceptron" and clf.degree == 1
    X, y = read_svmlight(files["binary"])
    reference = PASlicing(degree=1, variant="perceptron", average=False, iterations=2,
                          seed=1).fit(X, y)
    np.testing.assert_array_equal(clf.expansion_.coefficients,
                                  reference.expansion_.coefficients)
