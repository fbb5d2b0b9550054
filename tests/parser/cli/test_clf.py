"""`polyparse clf train|predict|info` run in-process: exit codes, JSON keys, one-line errors."""
from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_file import write_model_file
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import write_svmlight
from polyparse.parser.cli.main import main


def datasets() -> Path | None:
    value = os.environ.get("POLYPARSE_DATASETS")
    repo = Path(__file__).resolve().parents[3]
    folder = (Path(value) if value else repo.parent / "shared" / "datasets") / "kwdlc_dep"
    return folder if (folder / "train.5k.svm").is_file() else None


@pytest.fixture()
def svm_files(tmp_path: Path) -> tuple[Path, Path]:
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(30, 3))

    def make(n: int, name: str) -> Path:
        rows = [np.sort(rng.choice(30, size=6, replace=False)) for _ in range(n)]
        scores = [hidden[row].sum(0) + hidden[row[0]] * hidden[row[1]] for row in rows]
        y = np.argmax(np.array(scores), axis=1)
        path = tmp_path / name
        write_svmlight(path, BinaryMatrix.from_rows(rows, n_features=31), y + 1, id_offset=1)
        return path

    return make(400, "train.svm"), make(200, "test.svm")


def train_argv(data: Path, model: Path, *extra: str) -> list[str]:
    return ["clf", "train", str(data), "--model", str(model), *extra]


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("classifier", ["linear", "poly2-linear"])
def test_train_predict_info(svm_files, tmp_path: Path, capsys, classifier: str) -> None:
    train, test = svm_files
    model = tmp_path / "m.model"
    code, out, err = run(train_argv(train, model, "--classifier", classifier, "--json"), capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["backend"] == classifier and summary["rows"] == 400 and summary["classes"] == 3

    values = tmp_path / "values.txt"
    predict = ["clf", "predict", "--model", str(model), str(test), "--json"]
    code, out, err = run([*predict, "--decision-values", str(values)], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert {"accuracy", "n", "seconds"} <= set(result)
    assert result["n"] == 200 and 50 < result["accuracy"] <= 100
    header, *lines = values.read_text().splitlines()
    assert header == "# label 3 2 1"  # the classes in order of first appearance
    assert len(lines) == 200 and len(lines[0].split()) == 1 + 3
    assert np.loadtxt(values).shape == (200, 4)

    code, out, err = run(["clf", "predict", "--model", str(model), str(test)], capsys)
    assert code == 0 and out.startswith("accuracy ")

    code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert {"backend", "objective", "dims", "memory_bytes", "n_outputs", "classes"} <= set(info)
    assert info["backend"] == classifier and len(info["objective"]) == 3
    assert info["training"]["data"] == "train.svm"
    code, out, err = run(["clf", "info", "--model", str(model)], capsys)
    assert code == 0 and "backend: " + classifier in out


def test_same_settings_give_identical_model_files(svm_files, tmp_path: Path, capsys) -> None:
    train, _ = svm_files
    for name in ("a.model", "b.model"):
        argv = train_argv(train, tmp_path / name, "--classifier", "poly2-linear", "--seed", "3")
        code, _, err = run(argv, capsys)
        assert code == 0, err
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()


def one_line_error(code: int, err: str) -> str:
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("polyparse: ")
    return lines[0]


def test_bad_svmlight_line(tmp_path: Path, capsys) -> None:
    bad = tmp_path / "bad.svm"
    bad.write_text("+1 1:1 2:1\n-1 4:1 3:1\n")
    code, _, err = run(train_argv(bad, tmp_path / "m.model", "--classifier", "linear"), capsys)
    line = one_line_error(code, err)
    assert f"{bad}:2: feature ids must be strictly ascending" in line
    assert not (tmp_path / "m.model").exists()


def test_bad_test_file(svm_files, tmp_path: Path, capsys) -> None:
    train, _ = svm_files
    model = tmp_path / "m.model"
    assert run(train_argv(train, model, "--classifier", "poly2-linear"), capsys)[0] == 0
    bad = tmp_path / "bad.svm"
    bad.write_text("1 1:1\n2 3:0.5\n")
    code, _, err = run(["clf", "predict", "--model", str(model), str(bad)], capsys)
    assert "bad.svm:2: feature 3 has value 0.5; a poly2-linear model trained on binary " \
        "features" in one_line_error(code, err)
    bad.write_text("1 1:1\n2 3:x\n")
    code, _, err = run(["clf", "predict", "--model", str(model), str(bad)], capsys)
    assert "bad.svm:2: unexpected character 'x' in '3:x'" in one_line_error(code, err)


def test_truncated_model(svm_files, tmp_path: Path, capsys) -> None:
    train, test = svm_files
    model = tmp_path / "m.model"
    assert run(train_argv(train, model, "--classifier", "poly2-linear"), capsys)[0] == 0
    model.write_bytes(model.read_bytes()[:-100])
    expected = f"polyparse: {model}: truncated or corrupt model file (checksum mismatch)"
    for argv in (
        ["clf", "predict", "--model", str(model), str(test)],
        ["clf", "info", "--model", str(model)],
    ):
        code, _, err = run(argv, capsys)
        assert one_line_error(code, err) == expected


def test_foreign_and_wrong_format_models(svm_files, tmp_path: Path, capsys) -> None:
    _, test = svm_files
    libsvm = tmp_path / "svm.model"
    libsvm.write_text("svm_type c_svc\nkernel_type polynomial\n")
    code, _, err = run(["clf", "predict", "--model", str(libsvm), str(test)], capsys)
    line = one_line_error(code, err)
    assert f"{libsvm}:2: the libsvm model file ends before its SV section" in line
    text = tmp_path / "notes.model"
    text.write_text("hello\n")
    code, _, err = run(["clf", "info", "--model", str(text)], capsys)
    assert one_line_error(code, err) == f"polyparse: {text}: not a polyparse model file"
    dep = tmp_path / "dep.model"
    write_model_file(dep, {"format": "polyparse-dep"}, {})
    code, _, err = run(["clf", "info", "--model", str(dep)], capsys)
    assert one_line_error(code, err).endswith("is a polyparse-dep model, expected polyparse-clf")


@pytest.mark.parametrize(
    "extra, fragment",
    [
        (["--classifier", "pa-slicing", "--degree", "4"], "degree must be 1, 2 or 3"),
        (["--classifier", "pa-slicing", "--gamma", "2"], "--gamma applies to poly2-linear, linear and kernel-svm, not pa-slicing"),
        (["--classifier", "pa-slicing", "--eps", "0.1"], "--eps applies to poly2-linear, linear and kernel-svm, not pa-slicing"),
        (["--classifier", "pa-slicing", "--strategy", "kernel", "--n-common", "9"],
         "n_common applies to the split and slice strategies"),
        (["--classifier", "kernel-svm", "--variant", "pa"], "--variant applies to pa-slicing"),
        (["--classifier", "poly2-linear", "--degree", "3"], "a higher degree needs a kernel model"),
        (["--classifier", "linear", "--degree", "2"], "--degree applies to poly2-linear, kernel-svm and pa-slicing, not linear"),
        (["--classifier", "linear", "-C", "0"], "C must be positive"),
        (["--classifier", "linear", "--average"], "--average applies to pa-slicing"),
        # Every option a backend does not take is refused, defaults included.
        (["--classifier", "linear", "--cache-mb", "10"], "--cache-mb applies to kernel-svm, "
         "not linear"),
        (["--classifier", "poly2-linear", "--threads", "2"],
         "--threads applies to kernel-svm and pa-slicing, not poly2-linear"),
        (["--classifier", "kernel-svm", "--seed", "3"],
         "--seed applies to poly2-linear, linear and pa-slicing, not kernel-svm"),
        (["--classifier", "kernel-svm", "--min-pair-count", "2"],
         "--min-pair-count applies to poly2-linear, not kernel-svm"),
        (["--classifier", "pa-slicing", "--dtype", "float64"],
         "--dtype applies to poly2-linear and linear, not pa-slicing"),
        (["--classifier", "linear", "--no-shrinking"], "--no-shrinking applies to kernel-svm"),
    ],
)
def test_unavailable_or_invalid_settings(
    svm_files, tmp_path: Path, capsys, extra: list[str], fragment: str
) -> None:
    train, _ = svm_files
    code, _, err = run(train_argv(train, tmp_path / "m.model", *extra), capsys)
    assert fragment in one_line_error(code, err)


def test_missing_file(tmp_path: Path, capsys) -> None:
    argv = train_argv(tmp_path / "none.svm", tmp_path / "m", "--classifier", "linear")
    code, _, err = run(argv, capsys)
    assert "none.svm" in one_line_error(code, err)


def test_kwdlc_5k_poly2(tmp_path: Path, capsys) -> None:
    folder = datasets()
    if folder is None:
        pytest.skip("kwdlc_dep dataset not found (set POLYPARSE_DATASETS)")
    model = tmp_path / "k.model"
    argv = train_argv(folder / "train.5k.svm", model, "--classifier", "poly2-linear")
    code, _, err = run(argv, capsys)
    assert code == 0, err
    predict = ["clf", "predict", "--model", str(model), str(folder / "test.svm"), "--json"]
    code, out, err = run(predict, capsys)
    assert code == 0, err
    assert json.loads(out)["accuracy"] > 89.0


def test_other_tools_files_are_named_for_what_they_are(tmp_path: Path, capsys) -> None:
    """Issue 22, C6: a tree file given to a vector model, and a liblinear model file, are each
    one line saying so; query ids are skipped with one warning line."""
    data = tmp_path / "q.svm"
    data.write_text("1 qid:1 1:1 3:1\n-1 qid:1 2:1\n1 qid:2 1:1\n")
    model = tmp_path / "m.model"
    assert main(["clf", "train", str(data), "--model", str(model), "--classifier",
                 "linear"]) == 0
    assert "warning: " + str(data) + ": 3 query ids (qid:) skipped" in capsys.readouterr().err
    trees = tmp_path / "t.tk"
    trees.write_text("1 |BT| (S (NP a) (VP b)) |ET|\n")
    assert main(["clf", "predict", "--model", str(model), str(trees)]) == 2
    assert "holds trees (SVM-light-TK)" in capsys.readouterr().err
    liblinear = tmp_path / "ll.model"
    liblinear.write_text("solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\n"
                         "nr_feature 3\nbias -1\nw\n0.5\n-0.5\n0.1\n")
    # liblinear's model files load into the linear backend.
    assert main(["clf", "predict", "--model", str(liblinear), str(data)]) == 0
    assert main(["clf", "info", "--model", str(liblinear)]) == 0
    assert "backend: linear" in capsys.readouterr().out
    liblinear.write_text(liblinear.read_text()[:-4])
    assert main(["clf", "predict", "--model", str(liblinear), str(data)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line == (f"polyparse: {liblinear}:9: the liblinear model file ends after 2 of its 3 "
                    "weight lines (cut short?)")
