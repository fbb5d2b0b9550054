"""liblinear model files load into the linear backend and give liblinear's decision values
(every classification solver, with and without bias, two and more classes, binary and real
features); linear models are written back as files liblinear reads; bad files are refused in
one line."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.backends import load_classifier
from polyparse.classifiers.linear.liblinear_model import format_liblinear_model
from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.real_matrix import RealMatrix, as_feature_matrix

liblinear = pytest.importorskip("liblinear.liblinearutil")


def problem(n_classes: int, real: bool, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Rows over the feature ids 1..12 (column 0 unused, as in 1-based files)."""
    rng = np.random.default_rng(seed)
    X = (rng.random((150, 13)) < 0.35).astype(float)
    if real:
        X *= rng.normal(size=X.shape)
    X[:, 0] = 0
    scores = X[:, 1:] @ rng.normal(size=(12, n_classes)) + rng.normal(scale=0.3,
                                                                      size=(150, n_classes))
    return X, np.argmax(scores, axis=1) * 2 - 1


def rows(X: np.ndarray) -> list[dict[int, float]]:
    return [{int(j): float(v) for j, v in enumerate(row) if v} for row in X]


@pytest.mark.parametrize("solver", [0, 1, 2, 3, 4, 5, 6, 7])
@pytest.mark.parametrize("n_classes, bias, real", [(2, 1, False), (3, -1, True),
                                                   (2, 2.5, True)])
def test_liblinear_models_give_liblinear_values(tmp_path: Path, solver: int, n_classes: int,
                                                bias: float, real: bool) -> None:
    X, y = problem(n_classes, real, seed=solver)
    model = liblinear.train(y.tolist(), rows(X), f"-s {solver} -B {bias} -q")
    path = tmp_path / "ll.model"
    liblinear.save_model(str(path), model)
    clf, header = load_classifier(path)
    assert header["format"] == "liblinear" and clf.backend == "linear"
    assert clf.classes_.tolist() == model.get_labels()
    labels, accuracy, values = liblinear.predict(y.tolist(), rows(X), model, "-q")
    ours = clf.decision_function(as_feature_matrix(X))
    if solver == 4 and n_classes == 2:
        # MCSVM_CS keeps one weight vector per class (their difference decides here), and
        # liblinear's Python predict returns none of them for two classes.
        w = np.array([model.get_decfun(c)[0] for c in (0, 1)]).T
        b = [model.get_decfun(c)[1] for c in (0, 1)]
        values = X[:, 1:] @ w[:, :1] + b[0] - (X[:, 1:] @ w[:, 1:] + b[1])
    np.testing.assert_allclose(ours, np.asarray(values), rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(clf.predict(as_feature_matrix(X)), labels)
    assert 100 * np.mean(clf.predict(as_feature_matrix(X)) == y) == pytest.approx(accuracy[0])


@pytest.mark.parametrize("n_classes", [2, 4])
def test_linear_models_are_written_as_liblinear_reads_them(tmp_path: Path,
                                                           n_classes: int) -> None:
    X, y = problem(n_classes, real=True, seed=9)
    matrix = as_feature_matrix(X)
    assert isinstance(matrix, RealMatrix)
    clf = LinearSVM(dtype="float64").fit(matrix, y)
    path = tmp_path / "ours.liblinear"
    path.write_text(format_liblinear_model(clf))
    model = liblinear.load_model(str(path))
    _, _, values = liblinear.predict(y.tolist(), rows(X), model, "-q")
    np.testing.assert_allclose(clf.decision_function(matrix), values, rtol=1e-12, atol=1e-12)
    again, _ = load_classifier(path)
    np.testing.assert_allclose(again.decision_function(matrix), values, rtol=1e-12, atol=1e-12)


GOOD = "solver_type L2R_L2LOSS_SVC_DUAL\nnr_class 2\nlabel 1 -1\nnr_feature 2\nbias 1\nw\n0.5 \n" \
       "-0.25 \n0.125 \n"


@pytest.mark.parametrize("text, message", [
    (GOOD.replace("L2R_L2LOSS_SVC_DUAL", "L2R_L2LOSS_SVR"),
     "m:1: solver_type L2R_L2LOSS_SVR is not supported (polyparse reads liblinear's classifiers)"),
    (GOOD.replace("L2R_L2LOSS_SVC_DUAL", "FANCY"), "m:1: unknown solver_type 'FANCY'"),
    (GOOD.replace("label 1 -1", "label 1 1"), "m: label holds 2 distinct values, expected "),
    (GOOD.replace("nr_feature 2", "nr_feature x"), "m:4: nr_feature 'x' is not a number"),
    (GOOD.replace("-0.25", "-0.25 3"), "m:8: a weight line holds 1 number(s), found 2"),
    (GOOD.replace("-0.25", "y"), "m:8: weight 'y' is not a number"),
    (GOOD[:-8], "m:9: the liblinear model file ends after 2 of its 3 weight lines (cut short?)"),
    (GOOD + "1\n", "m:10: text after the 3 weight lines"),
    (GOOD[:GOOD.index("w\n")], "m:6: the liblinear model file ends before its w section "
     "(cut short?)"),
    (GOOD.replace("bias 1", "bias 1\nextra 2"), "m:6: unknown line in a liblinear model header"),
])
def test_bad_liblinear_models(text: str, message: str) -> None:
    from polyparse.classifiers.linear.liblinear_model import parse_liblinear_model

    with pytest.raises(ModelFileError, match="^" + re.escape(message)):
        parse_liblinear_model(text.encode(), "m")
