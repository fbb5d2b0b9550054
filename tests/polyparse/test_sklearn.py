"""polyparse.sklearn: one estimator per backend that scikit-learn's tools take (parameters,
clone, cross_val_score, check_estimator), scikit-learn's conventions of decision values (equal
to its own SVC's on the polynomial kernel), and libsvm's -b 1 probabilities (Platt's sigmoid
against a plain optimiser, pairwise coupling against its linear system, libsvm-official's
probabilities of the same model)."""
from __future__ import annotations

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.model_selection import cross_val_score
from sklearn.svm import SVC
from sklearn.utils.estimator_checks import check_estimator

from polyparse.classifiers.backend_settings import DEFAULTS
from polyparse.classifiers.kernel_svm.probability import (
    pairwise_coupling,
    sigmoid_predict,
    sigmoid_train,
)
from polyparse.sklearn import (
    KernelSVMClassifier,
    LinearClassifier,
    PASlicingClassifier,
    Poly2LinearClassifier,
)

ESTIMATORS = {"kernel-svm": KernelSVMClassifier, "linear": LinearClassifier,
              "poly2-linear": Poly2LinearClassifier, "pa-slicing": PASlicingClassifier}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "python.md"


def scaled(loader) -> tuple[np.ndarray, np.ndarray]:
    X, y = loader(return_X_y=True)
    return (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12), y


def binary_problem(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = (rng.random((n, 15)) < 0.3).astype(float)
    return X, np.where(X[:, 0] + X[:, 1] * X[:, 2] + X[:, 3] > 1, "yes", "no")


@pytest.mark.parametrize("backend", list(ESTIMATORS))
def test_parameters_are_the_backend_settings(backend: str) -> None:
    estimator = ESTIMATORS[backend]()
    params = estimator.get_params()
    assert {name: params[name] for name in DEFAULTS[backend]} == DEFAULTS[backend]
    again = clone(estimator.set_params(C=0.5))
    assert again.get_params()["C"] == 0.5 and again is not estimator


@pytest.mark.parametrize("backend", list(ESTIMATORS))
def test_fit_predict_score_on_arrays_and_sparse(backend: str) -> None:
    sp = pytest.importorskip("scipy.sparse")
    X, y = binary_problem()
    estimator = ESTIMATORS[backend]().fit(X[:150], y[:150])
    assert estimator.classes_.tolist() == ["no", "yes"] and estimator.n_features_in_ == 15
    predicted = estimator.predict(X[150:])
    values = estimator.decision_function(X[150:])
    assert values.shape == (50,)
    np.testing.assert_array_equal(np.where(values > 0, "yes", "no"), predicted)
    assert estimator.score(X[150:], y[150:]) > 0.8
    sparse = ESTIMATORS[backend]().fit(sp.csr_matrix(X[:150]), y[:150])
    np.testing.assert_array_equal(sparse.decision_function(sp.csc_matrix(X[150:])), values)
    assert cross_val_score(ESTIMATORS[backend](), X, y, cv=3).mean() > 0.8


@pytest.mark.parametrize("shape", ["ovr", "ovo"])
@pytest.mark.parametrize("loader", [load_iris, load_breast_cancer])
def test_kernel_values_equal_scikit_learns_svc(loader, shape: str) -> None:
    X, y = scaled(loader)
    ours = KernelSVMClassifier(degree=3, gamma=0.5, coef0=1.0, C=2.0,
                               decision_function_shape=shape).fit(X, y)
    theirs = SVC(kernel="poly", degree=3, gamma=0.5, coef0=1.0, C=2.0,
                 decision_function_shape=shape).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), theirs.decision_function(X),
                               rtol=0, atol=1e-8)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


def test_one_vs_rest_columns_follow_the_sorted_classes() -> None:
    X, y = scaled(load_wine)
    labels = np.array(["c", "a", "b"])[y]
    estimator = LinearClassifier(eps=0.01).fit(X, labels)
    values = estimator.decision_function(X)
    own = estimator.model_.decision_function(X)
    for k, label in enumerate(estimator.classes_):
        column = estimator.model_.classes_.tolist().index(label)
        np.testing.assert_array_equal(values[:, k], own[:, column])
    np.testing.assert_array_equal(estimator.classes_[np.argmax(values, 1)], estimator.predict(X))


def test_evaluators_give_the_naive_values() -> None:
    X, y = binary_problem(300, seed=2)
    naive = KernelSVMClassifier().fit(X, y).decision_function(X)
    for mode in ("split", "pki", "pke"):
        fast = KernelSVMClassifier(eval_mode=mode).fit(X, y)
        assert fast.evaluator_ is not None
        np.testing.assert_allclose(fast.decision_function(X), naive, rtol=1e-9, atol=1e-9)


# --- probabilities --------------------------------------------------------------------------

def test_sigmoid_train_minimises_platts_objective() -> None:
    optimize = pytest.importorskip("scipy.optimize")
    rng = np.random.default_rng(4)
    values = np.concatenate([rng.normal(1.0, 1.0, 60), rng.normal(-1.2, 0.8, 90)])
    positive = np.arange(150) < 60
    A, B = sigmoid_train(values, positive)
    targets = np.where(positive, 61 / 62, 1 / 92)

    def objective(ab: np.ndarray) -> float:
        p = sigmoid_predict(values, ab[0], ab[1])
        return float(-np.sum(targets * np.log(p) + (1 - targets) * np.log(1 - p)))

    best = optimize.minimize(objective, [0.0, 0.0], method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 10000}).x
    np.testing.assert_allclose([A, B], best, atol=1e-4)


def test_pairwise_coupling_solves_wu_lin_weng() -> None:
    rng = np.random.default_rng(5)
    for k in (3, 4, 6):
        r = rng.uniform(0.05, 0.95, (k, k))
        r = np.triu(r, 1)
        r = r + np.tril(1 - r.T, -1)
        p = pairwise_coupling(r)
        # Method 2's optimum: [Q 1; 1' 0] [p; b] = [0; 1], Q_tt = sum_j r_jt^2,
        # Q_tj = -r_jt r_tj.
        Q = -r.T * r
        np.fill_diagonal(Q, (r * r).sum(axis=0))
        system = np.block([[Q, np.ones((k, 1))], [np.ones((1, k)), np.zeros((1, 1))]])
        exact = np.linalg.solve(system, np.r_[np.zeros(k), 1.0])[:k]
        np.testing.assert_allclose(p, exact, atol=5e-3 / k)
        assert p.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("loader", [load_iris, load_breast_cancer])
def test_probabilities_equal_libsvms_of_one_model(tmp_path: Path, loader) -> None:
    svmutil = pytest.importorskip("libsvm.svmutil")
    from polyparse.classifiers.kernel_svm.libsvm_model import (
        format_libsvm_model,
        read_libsvm_model,
    )
    from polyparse.classifiers.kernel_svm.svc import KernelSVM

    X, y = scaled(loader)
    rows = [{j + 1: v for j, v in enumerate(row) if v} for row in X.tolist()]
    path = tmp_path / "b1.model"
    model = svmutil.svm_train(y.tolist(), rows, "-t 1 -d 2 -g 0.5 -r 1 -b 1 -q")
    svmutil.svm_save_model(str(path), model)
    ours = KernelSVM.from_expansion(read_libsvm_model(path).expansion)
    assert ours.expansion_.prob_a is not None
    loaded = svmutil.svm_load_model(str(path))
    _, _, probabilities = svmutil.svm_predict(y.tolist(), rows, loaded, "-b 1 -q")
    full = np.zeros((len(X), X.shape[1] + 1))
    full[:, 1:] = X
    np.testing.assert_allclose(ours.predict_proba(full), probabilities, rtol=0, atol=1e-12)
    # probA and probB are written back: libsvm reads the same probabilities from our file.
    path.write_text(format_libsvm_model(ours.expansion_))
    _, _, again = svmutil.svm_predict(y.tolist(), rows, svmutil.svm_load_model(str(path)),
                                      "-b 1 -q")
    np.testing.assert_allclose(again, probabilities, rtol=0, atol=1e-12)


def test_predict_proba_of_a_trained_model() -> None:
    X, y = scaled(load_iris)
    estimator = KernelSVMClassifier(gamma=0.5, probability=True).fit(X, y)
    probabilities = estimator.predict_proba(X)
    assert probabilities.shape == (150, 3)
    np.testing.assert_allclose(probabilities.sum(axis=1), 1.0, atol=1e-9)
    assert np.mean(estimator.classes_[np.argmax(probabilities, 1)] == y) > 0.9
    assert np.all(estimator.model_.expansion_.prob_a < 0)
    again = KernelSVMClassifier(gamma=0.5, probability=True).fit(X, y)
    np.testing.assert_array_equal(again.predict_proba(X), probabilities)
    assert not hasattr(KernelSVMClassifier(), "predict_proba")
    saved = type(estimator.model_).from_bytes(estimator.model_.to_bytes())
    np.testing.assert_array_equal(saved.predict_proba(X), estimator.model_.predict_proba(X))


# --- scikit-learn's own checks, as docs/python.md lists them --------------------------------

def documented_failures() -> dict[str, set[str]]:
    """The checks docs/python.md says each estimator fails."""
    text = DOCS.read_text()
    section = text[text.index("<!-- check_estimator -->"):text.index("<!-- /check_estimator -->")]
    found: dict[str, set[str]] = {}
    for name, listed in re.findall(r"`(\w+Classifier)` fails\s+([^.]*)\.", section):
        found[name] = set(re.findall(r"`(check_\w+)`", listed))
    return found


@pytest.mark.parametrize("backend", list(ESTIMATORS))
def test_check_estimator_fails_only_what_the_docs_list(backend: str) -> None:
    estimator = ESTIMATORS[backend]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(estimator, on_fail=None)
    failed = {result["check_name"] for result in results if result["status"] == "failed"}
    assert failed == documented_failures().get(type(estimator).__name__, set())
    if backend == "pa-slicing":
        for result in results:
            if result["status"] == "failed":
                error = result["exception"]
                text = f"{error} {error.__cause__ or error.__context__}"
                assert "pa-slicing takes binary features (0/1) only" in text


def test_without_scikit_learn_one_line_says_what_to_install() -> None:
    import subprocess
    import sys

    code = ("import sys; sys.modules['sklearn'] = None\n"
            "try:\n    import polyparse.sklearn\nexcept ImportError as error:\n    print(error)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout == "polyparse.sklearn needs scikit-learn: pip install scikit-learn\n"
    loaded = subprocess.run([sys.executable, "-c", "import sys, polyparse; "
                             "print('sklearn' in sys.modules, polyparse.sklearn.__name__, "
                             "'sklearn' in sys.modules)"],
                            capture_output=True, text=True, check=True)
    # Imported when first named, as every public name of polyparse.
    assert loaded.stdout == "False polyparse.sklearn True\n"
