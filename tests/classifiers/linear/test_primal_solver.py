"""The primal trust-region Newton solver of linear and poly2-linear (solver="primal"): its
objective, gradient and Hessian products against NumPy on phi written out, its optimum against
liblinear's -s 2 on the explicit mapping and against the dual solver's, its settings."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.linear.poly2_linear import expand_rows
from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM, Poly2LinearSVM
from polyparse.classifiers.linear.trust_region import (
    CondensedPhi,
    ExplicitPhi,
    L2LossObjective,
)
from polyparse.classifiers.model_file import read_model_file, write_model_file
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.real_matrix import as_feature_matrix
from tests.classifiers.linear.test_poly2_linear import explicit_phi_rows, random_problem


def written_out(X: BinaryMatrix, degree: int, squared: tuple[float, float, float]
                ) -> tuple[CondensedPhi, np.ndarray]:
    """The condensed rows of X and Phi as a dense NumPy matrix (column 0: the constant, then
    expand_rows's keys), built row by row from the features."""
    keys, row_ptr, dims, n_single = expand_rows(X.indptr, X.indices, degree)
    column = {int(key): j + 1 for j, key in enumerate(keys)}
    s_constant, s_single, s_pair = (math.sqrt(v) for v in squared)
    dense = np.zeros((len(X), keys.size + 1))
    dense[:, 0] = s_constant
    for i in range(len(X)):
        ids = X.row(i).tolist()
        for a, u in enumerate(ids):
            dense[i, column[(u << 32) | u]] = s_single
            for v in ids[a + 1:] if degree == 2 else []:
                dense[i, column[(u << 32) | v]] = s_pair
    phi = CondensedPhi(row_ptr, (dims + 1).astype(np.int32), n_single, keys.size + 1, squared)
    return phi, dense


@pytest.mark.parametrize("degree", [1, 2])
def test_objective_gradient_and_hessian_products_equal_numpy(degree: int) -> None:
    X, labels = random_problem(120, 30, 2, seed=3)
    y = np.where(labels == labels[0], 1.0, -1.0)
    squared = (1.0, 3.0, 2.0) if degree == 2 else (1.0, 1.0, 0.0)
    condensed, dense = written_out(X, degree, squared)
    from scipy.sparse import csr_matrix

    rng = np.random.default_rng(4)
    w, v = rng.normal(scale=0.3, size=(2, dense.shape[1]))
    C = 0.7
    margins = dense @ w
    active = y * margins < 1
    loss = np.maximum(0.0, 1.0 - y * margins)
    f = 0.5 * w @ w + C * loss @ loss
    g = w + 2 * C * dense[active].T @ (margins[active] - y[active])
    Hv = v + 2 * C * dense[active].T @ (dense[active] @ v)
    assert 0 < active.sum() < len(y)
    for phi in (condensed, ExplicitPhi(csr_matrix(dense))):
        objective = L2LossObjective(phi, y, C)
        assert objective.value(w) == pytest.approx(f, rel=1e-12)
        np.testing.assert_allclose(objective.gradient(w), g, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(objective.hessian_product(v), Hv, rtol=1e-12, atol=1e-12)


def liblinear_objective(liblinear, model, rows: list[dict[int, float]], y: np.ndarray,
                        C: float) -> float:
    """P(w) of a liblinear model on its training rows: 0.5 w.w (the bias weight included)
    + C sum of squared hinge losses (decision values positive for its first label)."""
    w, bias = model.get_decfun()
    _, _, values = liblinear.predict(y.tolist(), rows, model, "-q")
    margins = np.where(y == model.get_labels()[0], 1.0, -1.0) * np.array(values)[:, 0]
    return 0.5 * (np.dot(w, w) + bias * bias) + C * float(
        np.sum(np.maximum(0.0, 1.0 - margins) ** 2))


@pytest.mark.parametrize("degree", [1, 2])
def test_primal_solver_reaches_liblinear_s2_on_the_explicit_mapping(degree: int,
                                                                    capfd) -> None:
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y = random_problem(300, 40, 2, seed=11)
    X_test, _ = random_problem(100, 40, 2, seed=12)
    clf = Poly2LinearSVM(degree=degree, solver="primal", eps=1e-7, dtype="float64",
                         C=0.5).fit(X, y)
    assert clf.stats_["converged"] == [True]
    if degree == 2:
        columns: dict[tuple[int, int], int] = {}
        rows = explicit_phi_rows(X, clf, columns, True)
        test_rows = explicit_phi_rows(X_test, clf, columns, False)
        options = "-s 2 -c 0.5 -e 1e-10 -q"
    else:
        rows, test_rows = ([{int(f) + 1: 1.0 for f in M.row(i)} for i in range(len(M))]
                           for M in (X, X_test))
        options = "-s 2 -c 0.5 -e 1e-10 -B 1 -q"
    model = liblinear.train(y.astype(float).tolist(), rows, options)
    capfd.readouterr()
    assert [int(v) for v in model.get_labels()] == clf.classes_.tolist()
    theirs = liblinear_objective(liblinear, model, rows, y.astype(float), 0.5)
    assert clf.objective_[0] == pytest.approx(theirs, rel=1e-6)
    _, _, values = liblinear.predict([0.0] * len(X_test), test_rows, model, "-q")
    np.testing.assert_allclose(clf.decision_function(X_test), np.array(values), atol=1e-6)


@pytest.mark.parametrize("real", [False, True])
def test_primal_and_dual_solvers_reach_one_optimum(real: bool) -> None:
    """Three classes (one-vs-rest), binary or real-valued rows: the primal objectives are
    minus the dual ones and the decision values agree, both solved tightly."""
    X, y = random_problem(200, 25, 3, seed=5)
    if real:
        values = np.random.default_rng(6).uniform(0.2, 2.0, size=X.indices.size)
        dense = np.zeros((len(X), X.n_features))
        dense[np.repeat(np.arange(len(X)), np.diff(X.indptr)), X.indices] = values
        X = as_feature_matrix(dense)
    settings = dict(max_iter=100000, dtype="float64", C=0.3)
    primal = Poly2LinearSVM(solver="primal", eps=1e-7, **settings).fit(X, y)
    dual = Poly2LinearSVM(solver="dual", eps=1e-9, **settings).fit(X, y)
    assert all(primal.stats_["converged"]) and all(dual.stats_["converged"])
    np.testing.assert_allclose(primal.objective_, -np.array(dual.objective_), rtol=1e-6)
    np.testing.assert_allclose(primal.decision_function(X), dual.decision_function(X),
                               atol=1e-5)


def test_primal_solver_needs_the_l2_loss() -> None:
    with pytest.raises(ValueError, match="solver primal .* needs loss l2"):
        LinearSVM(solver="primal", loss="l1")
    with pytest.raises(ValueError, match="solver"):
        Poly2LinearSVM(solver="newton")


def test_the_solver_is_kept_in_the_model_file(tmp_path: Path) -> None:
    X, y = random_problem(100, 20, 2, seed=8)
    clf = Poly2LinearSVM(solver="primal").fit(X, y)
    header, arrays = clf.to_arrays()
    write_model_file(tmp_path / "m.model", {**header, "format": "x"}, arrays)
    header, arrays = read_model_file(tmp_path / "m.model")
    assert Poly2LinearSVM.from_arrays(header, arrays).solver == "primal"
    del header["solver"]
    again = Poly2LinearSVM.from_arrays(header, arrays)
    assert again.solver == "dual"
    assert np.array_equal(again.decision_function(X), clf.decision_function(X))


def test_clf_train_refuses_the_primal_solver_with_the_l1_loss(tmp_path: Path, capsys) -> None:
    from polyparse.features.svmlight import write_svmlight
    from polyparse.parser.cli.main import main

    X, y = random_problem(50, 10, 2, seed=9)
    write_svmlight(tmp_path / "train.svm", X, y)
    code = main(["clf", "train", str(tmp_path / "train.svm"), "--model",
                 str(tmp_path / "m.model"), "--classifier", "linear", "--solver", "primal",
                 "--loss", "l1"])
    lines = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(lines) == 1 and "needs loss l2" in lines[0], lines
