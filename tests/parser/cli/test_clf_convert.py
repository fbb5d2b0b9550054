"""`polyparse clf predict --eval-mode`, `clf convert` and `clf info` on kernel models (run
in-process): the four evaluators and the converted models give the same predictions and decision
values, info describes the split form, and bad input gets one line on stderr and exit code 2."""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.features.svmlight import read_svmlight, write_svmlight
from polyparse.parser.cli.main import main
from tests.classifiers.evaluators.test_evaluator_model import assert_same_values
from tests.classifiers.kernel_svm.test_kernel_svm import random_problem

EVAL_MODES = ("naive", "pki", "pke", "split")
CONVERSIONS = {"split": "split-svm", "pki": "pki", "pke": "pke"}


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line_error(code: int, err: str) -> str:
    lines = err.strip().splitlines()
    assert code == 2 and len(lines) == 1, err
    assert lines[0].startswith("polyparse: ") and "Traceback" not in err
    return lines[0]


def read_values(path: Path) -> tuple[list[str], np.ndarray]:
    """Labels and decision values of a --decision-values file (after its header line)."""
    rows = [line.split() for line in path.read_text().splitlines() if not line.startswith("#")]
    return [row[0] for row in rows], np.array([[float(v) for v in row[1:]] for row in rows])


@pytest.fixture(scope="module")
def problem(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A three-class kernel-svm model (ours and as a libsvm file) and a test file."""
    folder = tmp_path_factory.mktemp("convert")
    X, y = random_problem(300, 60, [2, 1, 3], seed=21)
    test = folder / "test.svm"
    write_svmlight(test, *random_problem(200, 70, [2, 1, 3], seed=22))
    clf = KernelSVM(degree=2, gamma=0.5, coef0=1.0, C=2.0).fit(X, y)
    model, libsvm = folder / "kernel.model", folder / "libsvm.model"
    clf.save(model)
    clf.save_libsvm(libsvm)
    return {"folder": folder, "model": model, "libsvm": libsvm, "test": test}


def predict(model: Path, test: Path, values: Path, capsys, *extra: str) -> dict:
    code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--json",
                          "--decision-values", str(values), *extra], capsys)
    assert code == 0, err
    return json.loads(out)


def check_all_modes_agree(model: Path, test: Path, folder: Path, capsys) -> None:
    """The four eval modes and the three converted models: same labels, same values."""
    results, outputs = {}, {}
    for mode in EVAL_MODES:
        values = folder / f"values.{mode}"
        results[mode] = predict(model, test, values, capsys, "--eval-mode", mode)
        outputs[mode] = read_values(values)
    for evaluator, backend in CONVERSIONS.items():
        converted = folder / f"converted.{evaluator}"
        code, _, err = run(["clf", "convert", "--model", str(model), "--to", evaluator,
                            "--output", str(converted)], capsys)
        assert code == 0, err
        values = folder / f"values.converted.{evaluator}"
        results[backend] = predict(converted, test, values, capsys)
        outputs[backend] = read_values(values)
        assert results[backend]["eval_mode"] == evaluator
    labels, reference = outputs["naive"]
    for name, result in results.items():
        assert {"accuracy", "n", "seconds", "eval_mode"} <= result.keys()
        assert result["accuracy"] == results["naive"]["accuracy"], name
        assert outputs[name][0] == labels, name
        assert_same_values(outputs[name][1], reference)


def test_eval_modes_and_conversions_agree_on_three_classes(problem, capsys) -> None:
    X, y = read_svmlight(problem["test"])
    clf = KernelSVM.load(problem["model"])
    check_all_modes_agree(problem["model"], problem["test"], problem["folder"], capsys)
    labels, values = read_values(problem["folder"] / "values.split")
    assert_same_values(values, clf.expansion_.naive_decision_function(X))
    assert labels == [str(label) for label in clf.predict(X).tolist()]


def test_eval_modes_and_conversions_agree_on_six_classes(tmp_path: Path, capsys) -> None:
    labels = [4, 1, 6, 2, 5, 3]
    model, test = tmp_path / "six.model", tmp_path / "test.svm"
    KernelSVM(degree=3, gamma=0.25).fit(*random_problem(360, 60, labels, seed=31)).save(model)
    write_svmlight(test, *random_problem(150, 60, labels, seed=32))
    check_all_modes_agree(model, test, tmp_path, capsys)


def test_kwdlc_eval_modes_and_conversions_agree(kwdlc: Path, tmp_path: Path, capsys) -> None:
    model, test = tmp_path / "kwdlc.model", tmp_path / "test300.svm"
    code, _, err = run(["clf", "train", str(kwdlc / "train.5k.svm"), "--model", str(model),
                        "--classifier", "kernel-svm", "--degree", "2"], capsys)
    assert code == 0, err
    with open(kwdlc / "test.svm", "rb") as rows:
        test.write_bytes(b"".join(next(rows) for _ in range(300)))
    check_all_modes_agree(model, test, tmp_path, capsys)


def test_default_eval_mode_is_split(problem, capsys) -> None:
    values = problem["folder"] / "values.default"
    assert predict(problem["model"], problem["test"], values, capsys)["eval_mode"] == "split"
    code, out, err = run(["clf", "predict", "--model", str(problem["model"]),
                          str(problem["test"])], capsys)
    assert code == 0 and out.startswith("accuracy ") and "(split)" in out, err


def test_libsvm_models_convert_and_predict(problem, capsys) -> None:
    folder = problem["folder"]
    converted = folder / "from-libsvm.split"
    code, out, err = run(["clf", "convert", "--model", str(problem["libsvm"]), "--to", "split",
                          "--rare-threshold", "4", "--output", str(converted), "--json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["backend"] == "split-svm" and summary["output"] == str(converted)
    naive = read_values(folder / "values.naive") if (folder / "values.naive").exists() else None
    predict(problem["libsvm"], problem["test"], folder / "values.libsvm", capsys,
            "--eval-mode", "naive")
    predict(converted, problem["test"], folder / "values.libsvm.split", capsys)
    labels, values = read_values(folder / "values.libsvm")
    assert read_values(folder / "values.libsvm.split")[0] == labels
    assert_same_values(read_values(folder / "values.libsvm.split")[1], values)
    if naive is not None:
        assert naive[0] == labels


def test_info_of_kernel_and_converted_models(problem, capsys) -> None:
    model, folder = problem["model"], problem["folder"]
    clf = KernelSVM.load(model)
    holders = np.bincount(clf.expansion_.support_vectors.indices)
    s = int(np.median(holders[holders > 0])) + 1
    code, out, err = run(["clf", "info", "--model", str(model), "--json",
                          "--rare-threshold", str(s)], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["backend"] == "kernel-svm"
    assert info["n_support_vectors"] == clf.n_support_vectors
    assert info["objective"] == clf.objective_ and len(info["objective"]) == 3
    assert info["classes"] == clf.classes_.tolist() and len(info["classes"]) == 3
    assert (info["degree"], info["gamma"], info["coef0"]) == (2, 0.5, 1.0)
    split = info["split"]
    assert split["rare_threshold"] == s and split["min_common_count"] == float(s)
    assert split["n_common_features"] > 0 and split["n_rare_features"] > 0
    assert split["memory_total_bytes"] == sum(split["memory_bytes"].values())
    assert info["pke"]["memory_total_bytes"] == sum(info["pke"]["memory_bytes"].values())

    converted = folder / "info.split"
    assert run(["clf", "convert", "--model", str(model), "--to", "split", "--rare-threshold",
                str(s), "--output", str(converted)], capsys)[0] == 0
    code, out, err = run(["clf", "info", "--model", str(converted), "--json"], capsys)
    assert code == 0, err
    converted_info = json.loads(out)
    assert converted_info["backend"] == "split-svm" and converted_info["evaluator"] == "split"
    for key in ("n_support_vectors", "objective", "classes", "degree", "gamma", "coef0"):
        assert converted_info[key] == info[key], key
    assert converted_info["split"] == split
    assert converted_info["memory_bytes"] == split["memory_bytes"]
    assert converted_info["pke"]["memory_total_bytes"] == info["pke"]["memory_total_bytes"]
    assert converted_info["conversion"]["source"] == model.name
    assert converted_info["training"] == info["training"]

    code, out, err = run(["clf", "info", "--model", str(converted)], capsys)
    assert code == 0, err
    assert "backend: split-svm" in out and "split.n_common_features: " in out
    assert "pke.memory_total_bytes: " in out and "Traceback" not in err


def test_info_of_a_libsvm_model_and_a_pke_model(problem, capsys) -> None:
    code, out, err = run(["clf", "info", "--model", str(problem["libsvm"]), "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["format"] == "libsvm" and info["objective"] is None
    assert info["split"]["rare_threshold"] == "auto"
    pke = problem["folder"] / "info.pke"
    assert run(["clf", "convert", "--model", str(problem["libsvm"]), "--to", "pke",
                "--output", str(pke)], capsys)[0] == 0
    code, out, err = run(["clf", "info", "--model", str(pke), "--json"], capsys)
    info_pke = json.loads(out)
    assert info_pke["backend"] == "pke" and "split" not in info_pke
    assert info_pke["memory_total_bytes"] == info["pke"]["memory_total_bytes"]


def test_degree_4_defaults_to_pki(tmp_path: Path, capsys) -> None:
    X, y = random_problem(120, 40, [1, -1], seed=4)
    model, test = tmp_path / "d4.model", tmp_path / "test.svm"
    KernelSVM(degree=4, gamma=0.25).fit(X, y).save(model)
    write_svmlight(test, X, y)
    assert predict(model, test, tmp_path / "v", capsys)["eval_mode"] == "pki"
    code, _, err = run(["clf", "predict", "--model", str(model), str(test), "--eval-mode",
                        "split"], capsys)
    assert "expands conjunctions of degree 1..3, and this model has degree 4" in \
        one_line_error(code, err)
    code, _, err = run(["clf", "convert", "--model", str(model), "--to", "pke", "--output",
                        str(tmp_path / "out")], capsys)
    assert one_line_error(code, err).startswith(f"polyparse: clf convert: {model}: the pke")
    assert not (tmp_path / "out").exists()
    code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
    info = json.loads(out)
    assert code == 0 and info["split"] is None and info["pke"] is None
    code, _, err = run(["clf", "info", "--model", str(model), "--rare-threshold", "3"], capsys)
    assert "the model has no split form (degree 4" in one_line_error(code, err)


LIBSVM = (
    "svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 1\nnr_class 2\n"
    "total_sv 3\nrho 0.5\nlabel 1 -1\nnr_sv 2 1\nSV\n"
    "0.25 1:1 4:1 \n0.5 2:1 \n-0.75 1:1 3:1 \n"
)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        (LIBSVM[: LIBSVM.index("0.5 2:1")], 12,
         "ends after 1 of its 3 support vectors (cut short?)"),
        (LIBSVM[:60], 5, "ends before its SV section (cut short?)"),
        (LIBSVM.replace("polynomial", "foo"), 2, "unknown kernel_type 'foo'"),
        (LIBSVM.replace("polynomial", "rbf"), 2,
         "kernel_type rbf is not supported (polyparse reads linear and polynomial kernels)"),
    ],
    ids=["cut short in SV", "cut short in header", "unknown kernel", "rbf kernel"],
)
def test_bad_libsvm_models(tmp_path: Path, capsys, text: str, line: int, fragment: str) -> None:
    model, output, test = tmp_path / "bad.model", tmp_path / "out.model", tmp_path / "t.svm"
    model.write_text(text)
    test.write_text("1 1:1\n")
    for argv in (
        ["clf", "convert", "--model", str(model), "--to", "split", "--output", str(output)],
        ["clf", "predict", "--model", str(model), str(test), "--decision-values", str(output)],
        ["clf", "info", "--model", str(model)],
    ):
        code, out, err = run(argv, capsys)
        message = one_line_error(code, err)
        assert message.startswith(f"polyparse: {model}:{line}: ") and fragment in message
        assert out == "" and not output.exists()


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("1 1:1\n-1 a:1\n", "t.svm:2: unexpected character 'a' in 'a:1'"),
        ("1 1:1\n-1 1.5:1\n", "t.svm:2: feature id '1.5' is not a non-negative integer"),
        ("1 1:1\n-1 4:1 2:1\n", "t.svm:2: feature ids must be strictly ascending (4 then 2)"),
    ],
)
def test_bad_test_files(problem, tmp_path: Path, capsys, text: str, fragment: str) -> None:
    test, values = tmp_path / "t.svm", tmp_path / "values.txt"
    test.write_text(text)
    converted = tmp_path / "m.split"
    assert run(["clf", "convert", "--model", str(problem["model"]), "--to", "split",
                "--output", str(converted)], capsys)[0] == 0
    for model in (problem["model"], problem["libsvm"], converted):
        code, out, err = run(["clf", "predict", "--model", str(model), str(test),
                              "--decision-values", str(values)], capsys)
        assert fragment in one_line_error(code, err) and out == ""
        assert not values.exists()


def test_truncated_converted_model(problem, tmp_path: Path, capsys) -> None:
    converted = tmp_path / "m.pke"
    assert run(["clf", "convert", "--model", str(problem["model"]), "--to", "pke",
                "--output", str(converted)], capsys)[0] == 0
    data = converted.read_bytes()
    converted.write_bytes(data[: len(data) - 1000])
    expected = f"polyparse: {converted}: truncated or corrupt model file (checksum mismatch)"
    for argv in (
        ["clf", "predict", "--model", str(converted), str(problem["test"])],
        ["clf", "info", "--model", str(converted)],
        ["clf", "convert", "--model", str(converted), "--to", "split", "--output",
         str(tmp_path / "out")],
    ):
        code, _, err = run(argv, capsys)
        assert one_line_error(code, err) == expected
    assert not (tmp_path / "out").exists()


def test_convert_to_an_unknown_evaluator(problem, tmp_path: Path, capsys) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["clf", "convert", "--model", str(problem["model"]), "--to", "bogus", "--output",
              str(tmp_path / "out")])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert "argument --to: invalid choice: 'bogus'" in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("value", ["x", "-1", "1.5", "auto2"])
def test_bad_rare_thresholds(problem, tmp_path: Path, capsys, value: str) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["clf", "convert", "--model", str(problem["model"]), "--to", "split",
              "--rare-threshold", value, "--output", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert caught.value.code == 2 and "argument --rare-threshold: " in err
    assert f"{value!r} is not 'auto', a count of support vectors or a fraction in (0, 1]" in err


def test_a_pki_model_converts_to_the_other_evaluators(problem, tmp_path: Path,
                                                       capsys) -> None:
    """A pki model keeps every support vector, so it converts like the kernel model it came
    from: the same labels, and decision values up to the order of the sums."""
    pki = tmp_path / "m.pki"
    assert run(["clf", "convert", "--model", str(problem["model"]), "--to", "pki", "--output",
                str(pki)], capsys)[0] == 0
    for to in ("split", "pke"):
        direct, again = tmp_path / f"direct.{to}", tmp_path / f"again.{to}"
        assert run(["clf", "convert", "--model", str(problem["model"]), "--to", to,
                    "--output", str(direct)], capsys)[0] == 0
        assert run(["clf", "convert", "--model", str(pki), "--to", to, "--output", str(again)],
                   capsys)[0] == 0
        labels, values = [], []
        for model in (direct, again):
            out = tmp_path / f"{model.name}.values"
            assert run(["clf", "predict", "--model", str(model), str(problem["test"]),
                        "--decision-values", str(out)], capsys)[0] == 0
            row_labels, row_values = read_values(out)
            labels.append(row_labels)
            values.append(row_values)
        assert labels[0] == labels[1]
        assert_same_values(values[1], values[0])


def test_models_that_do_not_convert(problem, tmp_path: Path, capsys) -> None:
    linear = tmp_path / "poly2.model"
    train = tmp_path / "train.svm"
    write_svmlight(train, *random_problem(100, 30, [1, -1], seed=6))
    assert run(["clf", "train", str(train), "--model", str(linear), "--classifier",
                "poly2-linear"], capsys)[0] == 0
    output = tmp_path / "out.model"
    code, _, err = run(["clf", "convert", "--model", str(linear), "--to", "split", "--output",
                        str(output)], capsys)
    assert one_line_error(code, err) == (
        f"polyparse: clf convert: {linear}: it holds a poly2-linear model (explicit weights, no "
        "support vectors); only kernel-svm, pa-slicing, libsvm and pki models convert"
    )
    converted = tmp_path / "m.split"
    assert run(["clf", "convert", "--model", str(problem["model"]), "--to", "split", "--output",
                str(converted)], capsys)[0] == 0
    code, _, err = run(["clf", "convert", "--model", str(converted), "--to", "pke",
                        "--output", str(output)], capsys)
    assert "holds a split-svm model (a converted model without its support vectors" in \
        one_line_error(code, err)
    one_class = tmp_path / "one.model"
    X, _ = random_problem(20, 30, [1], seed=7)
    KernelSVM().fit(X, np.ones(len(X), dtype=int)).save(one_class)
    code, _, err = run(["clf", "convert", "--model", str(one_class), "--to", "pke", "--output",
                        str(output)], capsys)
    assert "knows one class (1) and has no decision function" in one_line_error(code, err)
    assert not output.exists()


def test_options_that_do_not_apply(problem, tmp_path: Path, capsys) -> None:
    model, test = str(problem["model"]), str(problem["test"])
    converted = tmp_path / "m.split"
    assert run(["clf", "convert", "--model", model, "--to", "split", "--output",
                str(converted)], capsys)[0] == 0
    linear = tmp_path / "linear.model"
    assert run(["clf", "train", test, "--model", str(linear), "--classifier", "linear"],
               capsys)[0] == 0
    cases = [
        (["clf", "predict", "--model", str(converted), test, "--eval-mode", "pke"],
         f"{converted} holds the split evaluator (backend split-svm); --eval-mode pke needs "
         "the kernel model it was converted from"),
        (["clf", "predict", "--model", str(converted), test, "--rare-threshold", "3"],
         "whose split is fixed; --rare-threshold applies to kernel models"),
        (["clf", "info", "--model", str(converted), "--rare-threshold", "3"],
         "whose split is fixed"),
        (["clf", "predict", "--model", model, test, "--eval-mode", "pke", "--rare-threshold",
          "3"], "--rare-threshold applies to the split evaluator, not pke"),
        (["clf", "convert", "--model", model, "--to", "pki", "--rare-threshold", "3",
          "--output", str(tmp_path / "out")], "--rare-threshold applies to --to split, not pki"),
        (["clf", "predict", "--model", str(linear), test, "--eval-mode", "split"],
         "--eval-mode split applies to kernel models"),
        (["clf", "predict", "--model", str(linear), test, "--rare-threshold", "3"],
         "--rare-threshold applies to kernel models, not linear"),
    ]
    for argv, fragment in cases:
        code, _, err = run(argv, capsys)
        assert fragment in one_line_error(code, err), argv
    assert not (tmp_path / "out").exists()
    code, out, err = run(["clf", "predict", "--model", str(converted), test, "--eval-mode",
                          "split", "--json"], capsys)
    assert code == 0 and json.loads(out)["eval_mode"] == "split", err
