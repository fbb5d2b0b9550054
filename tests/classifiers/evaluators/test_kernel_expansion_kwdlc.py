"""The evaluators on libsvm-official models: kwdlc_dep (real parser decisions) and one-vs-one.

The kwdlc_dep models are trained on the first rows of train.5k.svm and scored on the first rows
of test.svm: equality needs real decisions, not all of them. benchmarks/kernel_evaluators.py
scores every test.svm row with models trained on all of train.5k.svm (and train.20k.svm), and
reports each evaluator's largest difference from the NumPy kernel sum."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.evaluators.kernel_sum import KernelSumScorer
from polyparse.classifiers.evaluators.pke import PKEScorer
from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import read_svmlight
from tests.classifiers.evaluators.test_kernel_expansion import assert_close

svmutil = pytest.importorskip("libsvm.svmutil")

TRAIN_ROWS = 2500
TEST_ROWS = 1000


def libsvm_expansion(model, n_features: int) -> KernelExpansion:
    """A libsvm-official model as a KernelExpansion: one output per pair of classes.

    For the pair (i, j), i < j in libsvm's order, the support vectors of class i carry
    sv_coef[j - 1] and those of class j carry sv_coef[i]; the intercept is -rho.
    """
    n_classes = model.get_nr_class()
    n_support = np.array(model.nSV[:n_classes], dtype=np.int64)
    start = np.concatenate([[0], np.cumsum(n_support)])
    sv_coef = np.array(model.get_sv_coef(), dtype=np.float64).T.reshape(n_classes - 1, -1)
    rows = [np.array(sorted(i for i in sv if i > 0), dtype=np.int64) for sv in model.get_SV()]
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    coefficients = np.zeros((len(pairs), int(start[-1])))
    for p, (i, j) in enumerate(pairs):
        coefficients[p, start[i] : start[i + 1]] = sv_coef[j - 1, start[i] : start[i + 1]]
        coefficients[p, start[j] : start[j + 1]] = sv_coef[i, start[j] : start[j + 1]]
    intercepts = -np.array(model.rho[: len(pairs)], dtype=np.float64)
    parameters = model.param
    return KernelExpansion(
        BinaryMatrix.from_rows(rows, n_features=n_features), coefficients, intercepts,
        parameters.gamma, parameters.coef0, parameters.degree,
    )


def as_libsvm_rows(X: BinaryMatrix) -> list[dict[int, float]]:
    return [{int(i): 1.0 for i in X.row(r)} for r in range(len(X))]


def libsvm_values(model, X: BinaryMatrix) -> np.ndarray:
    _, _, values = svmutil.svm_predict([0.0] * len(X), as_libsvm_rows(X), model, "-q")
    return np.array(values, dtype=np.float64).reshape(len(X), -1)


def check_evaluators(expansion: KernelExpansion, X: BinaryMatrix, reference: np.ndarray) -> None:
    scorers = {
        "naive": KernelSumScorer(expansion),
        "pki": PKIScorer(expansion),
        "pke": PKEScorer(expansion),
        "split 0.01": SplitSVMScorer(expansion, 0.01),
        "split 10 hashed": SplitSVMScorer(expansion, 10, max_dense_bytes=0),
        "split 100": SplitSVMScorer(expansion, 100),
    }
    for scorer in scorers.values():
        assert_close(scorer.decision_function(X), reference)


@pytest.fixture(scope="module", params=[2, 3], ids=["degree2", "degree3"])
def kwdlc_model(request: pytest.FixtureRequest, kwdlc: Path) -> tuple[object, int]:
    """libsvm C-SVC, (x.y + 1)^d, C = 1, trained on the first TRAIN_ROWS rows of
    kwdlc_dep/train.5k.svm (about 1,500 support vectors)."""
    y, x = svmutil.svm_read_problem(str(kwdlc / "train.5k.svm"))
    options = f"-q -s 0 -t 1 -d {request.param} -g 1 -r 1 -c 1"
    return svmutil.svm_train(y[:TRAIN_ROWS], x[:TRAIN_ROWS], options), request.param


def test_evaluators_equal_the_kernel_sum_on_kwdlc_test_rows(
    kwdlc: Path, kwdlc_model: tuple[object, int]
) -> None:
    model, degree = kwdlc_model
    X, y = read_svmlight(kwdlc / "test.svm")
    train, _ = read_svmlight(kwdlc / "train.5k.svm")
    expansion = libsvm_expansion(model, max(X.n_features, train.n_features))
    assert (expansion.degree, expansion.n_outputs) == (degree, 1)
    X, y = X.take(np.arange(TEST_ROWS)), y[:TEST_ROWS]
    reference = expansion.naive_decision_function(X)
    assert_close(reference, libsvm_values(model, X))
    labels = np.array(model.get_labels())
    accuracy = np.mean(np.where(reference[:, 0] > 0, labels[0], labels[1]) == y)
    assert accuracy > 0.87  # 88.8 % for both degrees: the expansion's signs are libsvm's
    check_evaluators(expansion, X, reference)


def test_one_vs_one_models_become_one_output_per_pair() -> None:
    rng = np.random.default_rng(3)
    rows = [np.sort(rng.choice(60, size=rng.integers(1, 12), replace=False)) + 1
            for _ in range(240)]
    X = BinaryMatrix.from_rows(rows, n_features=61)
    weights = rng.normal(size=(61, 3))
    y = np.array([np.argmax(weights[row].sum(0) + 0.3 * rng.normal(size=3)) for row in rows])
    model = svmutil.svm_train((y * 10 + 5).tolist(), as_libsvm_rows(X),
                              "-q -s 0 -t 1 -d 3 -g 0.5 -r 2 -c 1")
    expansion = libsvm_expansion(model, 61)
    assert expansion.n_outputs == 3
    reference = expansion.naive_decision_function(X)
    assert_close(reference, libsvm_values(model, X))
    check_evaluators(expansion, X, reference)
