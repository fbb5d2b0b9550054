"""libsvm text model files: round trips with libsvm-official both ways, and every bad input."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.kernel_svm.libsvm_model import (
    format_libsvm_model,
    parse_libsvm_model,
    read_libsvm_model,
    write_libsvm_model,
)
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.errors import InputError
from polyparse.features.svmlight import read_svmlight, write_svmlight
from tests.classifiers.kernel_svm.test_kernel_svm import libsvm_nodes, random_problem

svmutil = pytest.importorskip("libsvm.svmutil")


def libsvm_values(model_path: Path, X) -> tuple[np.ndarray, np.ndarray]:
    """(labels, decision values) of libsvm-official's svm_predict with a saved model."""
    model = svmutil.svm_load_model(str(model_path))
    labels, _, values = svmutil.svm_predict([0] * len(X), libsvm_nodes(X), model, "-q")
    return np.asarray(labels), np.asarray(values)


@pytest.mark.parametrize("labels", [[1, -1], [3, 1, 2]])
def test_our_model_loads_in_libsvm(tmp_path: Path, labels: list[int]) -> None:
    X, y = random_problem(250, 50, labels, seed=len(labels))
    clf = KernelSVM(degree=3, gamma=0.5, coef0=0.25, C=2.0).fit(X, y)
    path = tmp_path / "ours.model"
    clf.save_libsvm(path)
    test, _ = random_problem(300, 70, [0, 1], seed=99)
    predicted, values = libsvm_values(path, test)
    np.testing.assert_allclose(values, clf.decision_function(test), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(predicted, clf.predict(test))


@pytest.mark.parametrize("options", ["-t 1 -d 2 -g 1 -r 1 -c 1", "-t 0 -c 0.5",
                                     "-t 1 -d 3 -g 0.25 -r 0.5 -c 4"])
def test_libsvm_model_loads_in_polyparse(tmp_path: Path, options: str) -> None:
    X, y = random_problem(300, 50, [2, 0, 7], seed=3)
    model = svmutil.svm_train(y.tolist(), libsvm_nodes(X), options + " -q")
    path = tmp_path / "libsvm.model"
    svmutil.svm_save_model(str(path), model)
    clf = KernelSVM.load(path)
    test, _ = random_problem(300, 70, [0, 1], seed=98)
    predicted, values = libsvm_values(path, test)
    np.testing.assert_allclose(clf.decision_function(test), values, rtol=1e-9, atol=1e-6)
    np.testing.assert_array_equal(clf.predict(test), predicted)
    # Written back, the file is byte for byte what libsvm wrote.
    write_libsvm_model(tmp_path / "again.model", clf.expansion_)
    assert (tmp_path / "again.model").read_bytes() == path.read_bytes()


def test_kwdlc_libsvm_model_decision_values(kwdlc: Path, tmp_path: Path) -> None:
    X, y = read_svmlight(kwdlc / "train.5k.svm")
    X, y = X.take(np.arange(800)), y[:800]
    model = svmutil.svm_train(y.tolist(), libsvm_nodes(X), "-t 1 -d 2 -g 1 -r 1 -c 1 -q")
    path = tmp_path / "kwdlc.model"
    svmutil.svm_save_model(str(path), model)
    test, _ = read_svmlight(kwdlc / "test.svm")
    test = test.take(np.arange(500))
    _, values = libsvm_values(path, test)
    np.testing.assert_allclose(KernelSVM.load(path).decision_function(test), values, atol=1e-6)


def test_text_round_trip_keeps_everything() -> None:
    X, y = random_problem(150, 40, [5, -2, 9, 0], seed=7)
    expansion = KernelSVM(degree=4, gamma=0.125, coef0=-0.5, C=3.0).fit(X, y).expansion_
    again = parse_libsvm_model(format_libsvm_model(expansion).encode()).expansion
    assert again.support_vectors.indptr.tolist() == expansion.support_vectors.indptr.tolist()
    assert again.support_vectors.indices.tolist() == expansion.support_vectors.indices.tolist()
    np.testing.assert_array_equal(again.dual_coef, expansion.dual_coef)
    np.testing.assert_array_equal(again.rho, expansion.rho)
    np.testing.assert_array_equal(again.labels, expansion.labels)
    np.testing.assert_array_equal(again.n_support, expansion.n_support)
    assert (again.gamma, again.coef0, again.degree) == (0.125, -0.5, 4)


def test_non_integer_labels_cannot_be_written() -> None:
    X, y = random_problem(60, 20, [0, 1], seed=8)
    expansion = KernelSVM().fit(X, np.where(y == 0, "a", "b")).expansion_
    with pytest.raises(ValueError, match="integer labels"):
        format_libsvm_model(expansion)


GOOD = (
    "svm_type c_svc\nkernel_type polynomial\ndegree 2\ngamma 1\ncoef0 1\nnr_class 2\n"
    "total_sv 3\nrho 0.5\nlabel 1 -1\nnr_sv 2 1\nSV\n"
    "0.25 1:1 4:1 \n0.5 2:1 \n-0.75 1:1 3:1 \n"
)


def bad(text: str, old: str, new: str) -> str:
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    "text, line, fragment",
    [
        (GOOD[:40], 3, "ends before its SV section (cut short?)"),
        (GOOD[: GOOD.index("SV\n")], 10, "ends before its SV section (cut short?)"),
        (GOOD[: GOOD.index("0.5 2:1")], 12, "ends after 1 of its 3 support vectors (cut short?)"),
        (GOOD[:-6], 14, "the last support vector line has no line end (cut short?)"),
        (bad(GOOD, "polynomial", "rbf"), 2, "kernel_type rbf is not supported"),
        (bad(GOOD, "polynomial", "sigmoid"), 2, "kernel_type sigmoid is not supported"),
        (bad(GOOD, "polynomial", "precomputed"), 2, "kernel_type precomputed is not supported"),
        (bad(GOOD, "polynomial", "spline"), 2, "unknown kernel_type 'spline'"),
        (bad(GOOD, "c_svc", "one_class"), 1, "svm_type one_class is not supported"),
        (bad(GOOD, "0.5 2:1", "0.5 2-1"), 13, "expected id:value, found '2-1'"),
        (bad(GOOD, "0.5 2:1", "x 2:1"), 13, "coefficient 'x' is not a number"),
        (bad(GOOD, "0.5 2:1", "2:1"), 13, "starts with 1 coefficient(s)"),
        (bad(GOOD, "1:1 3:1", "3:1 1:1"), 14, "feature ids must be strictly ascending (3 then 1)"),
        (bad(GOOD, "1:1 3:1", "1:1 3:inf"), 14, "value 'inf' of feature 3 is not finite"),
        (bad(GOOD, "1:1 3:1", "1:1 3:x"), 14, "value 'x' of feature 3 is not a number"),
        (bad(GOOD, "rho 0.5", "rho 0.5 1"), 8, "rho holds 2 values, expected 1"),
        (bad(GOOD, "nr_sv 2 1", "nr_sv 2 2"), 10, "nr_sv adds up to 4, not total_sv 3"),
        (bad(GOOD, "degree 2\n", ""), 10, "the polynomial kernel's degree line is missing"),
        (bad(GOOD, "gamma 1", "gamma one"), 4, "gamma 'one' is not a number"),
        (bad(GOOD, "coef0 1\n", "coef0 1\nweights 3\n"), 6, "unknown line in a libsvm model"),
        (GOOD + "0.1 5:1\n", 15, "text after the 3 support vectors"),
    ],
)
def test_bad_libsvm_models(tmp_path: Path, text: str, line: int, fragment: str) -> None:
    path = tmp_path / "bad.model"
    path.write_text(text)
    with pytest.raises(ModelFileError) as caught:
        read_libsvm_model(path)
    message = str(caught.value)
    assert isinstance(caught.value, InputError)
    assert "\n" not in message
    assert message.startswith(f"{path}:{line}: "), message
    assert fragment in message


def test_good_fixture_and_linear_kernel(tmp_path: Path) -> None:
    model = parse_libsvm_model(GOOD.encode(), "good")
    assert model.expansion.n_support_vectors == 3 and model.kernel_type == "polynomial"
    linear = bad(bad(bad(bad(GOOD, "polynomial", "linear"), "degree 2\n", ""),
                     "gamma 1\n", ""), "coef0 1\n", "")
    expansion = parse_libsvm_model(linear.encode(), "linear").expansion
    assert (expansion.degree, expansion.gamma, expansion.coef0) == (1, 1.0, 0.0)
    assert format_libsvm_model(expansion) == linear


def test_cli_with_libsvm_models(tmp_path: Path, capsys) -> None:
    from polyparse.parser.cli.main import main

    X, y = random_problem(200, 40, [1, -1], seed=9)
    train, test = tmp_path / "train.svm", tmp_path / "test.svm"
    write_svmlight(train, X, y)
    write_svmlight(test, *random_problem(100, 40, [1, -1], seed=10))
    model = svmutil.svm_train(y.tolist(), libsvm_nodes(X), "-t 1 -d 2 -g 1 -r 1 -c 1 -q")
    path = tmp_path / "libsvm.model"
    svmutil.svm_save_model(str(path), model)
    values = tmp_path / "values.txt"
    assert main(["clf", "predict", "--model", str(path), str(test), "--json",
                 "--decision-values", str(values)]) == 0
    capsys.readouterr()
    test_X, _ = read_svmlight(test)
    _, expected = libsvm_values(path, test_X)
    written = np.array([float(line.split()[1]) for line in values.read_text().splitlines()])
    np.testing.assert_allclose(written, expected[:, 0], atol=1e-12)
    path.write_text(bad(path.read_text(), "polynomial", "rbf"))
    assert main(["clf", "info", "--model", str(path)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"polyparse: {path}:2: kernel_type rbf is not supported (polyparse reads " \
        "linear and polynomial kernels)"


@pytest.mark.parametrize("options, labels", [("-t 1 -d 5", [1, -1]),
                                             ("-t 1 -d 5 -g 0.1 -r 1 -c 3", [2, 0, 7]),
                                             ("-t 1 -d 7 -g 0.05 -r 0.5", [1, -1])])
def test_degree_5_and_more_load_and_evaluate(tmp_path: Path, options: str,
                                             labels: list[int]) -> None:
    """A model of svm-train -t 1 -d 5 (or 7) loads, naive and PKI give libsvm's decision values
    and labels, the evaluators that expand conjunctions (PKE, split-svm: degree <= 3) refuse it
    in one line, and it converts to PKI."""
    from polyparse.classifiers.backends import convert_classifier, load_classifier
    from polyparse.classifiers.evaluators.choices import check_evaluator
    from polyparse.classifiers.evaluators.modes import build_evaluator

    X, y = random_problem(300, 50, labels, seed=41)
    model = svmutil.svm_train(y.tolist(), libsvm_nodes(X), options + " -q")
    path = tmp_path / "d5.model"
    svmutil.svm_save_model(str(path), model)
    clf, header = load_classifier(path)
    assert header["format"] == "libsvm" and clf.degree == int(options.split("-d ")[1][0])
    test, _ = random_problem(200, 60, [0, 1], seed=43)
    predicted, values = libsvm_values(path, test)
    for mode in ("naive", "pki"):
        ours = build_evaluator(clf.expansion_, mode).decision_function(test)
        np.testing.assert_allclose(ours, values, rtol=1e-9, atol=1e-9)
        np.testing.assert_array_equal(clf.predict_from_decision(ours), predicted)
    np.testing.assert_array_equal(clf.predict(test), predicted)
    for mode in ("pke", "split"):
        with pytest.raises(ValueError, match=rf"^the {mode} evaluator expands conjunctions of "
                                             r"degree 1..3, and this model has degree \d"):
            check_evaluator(mode, clf.degree)
        with pytest.raises(ValueError, match="expands conjunctions of degree 1..3"):
            convert_classifier(clf, mode)
    pki = convert_classifier(clf, "pki")
    np.testing.assert_allclose(pki.decision_function(test), values, rtol=1e-9, atol=1e-9)
    write_libsvm_model(tmp_path / "again.model", clf.expansion_)
    assert (tmp_path / "again.model").read_bytes() == path.read_bytes()
