"""KernelEvaluatorModel: a kernel-svm model kept as its PKI, PKE or split-svm evaluator predicts
exactly like the kernel model, survives its file, and refuses what it cannot hold."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.backends import classifier_from_arrays, new_classifier
from polyparse.classifiers.evaluators.choices import (
    EXPANDED_DEGREES,
    check_evaluator,
    default_eval_mode,
)
from polyparse.classifiers.evaluators.evaluator_model import KernelEvaluatorModel, split_summary
from polyparse.classifiers.evaluators.one_vs_one_expansion import (
    OneVsOneExpansion,
    one_vs_one_vote,
)
from polyparse.classifiers.evaluators.pke import PKEScorer
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.model_file import ModelFileError, read_model_file, write_model_file
from polyparse.features.binary_matrix import BinaryMatrix
from tests.classifiers.kernel_svm.test_kernel_svm import random_problem

EVALUATORS = ("pki", "pke", "split")


def assert_same_values(values: np.ndarray, reference: np.ndarray) -> None:
    """Equal to 1e-9 relative to the largest decision value (values near 0 are differences of
    large sums)."""
    scale = max(1.0, float(np.abs(reference).max()))
    np.testing.assert_allclose(values, reference, rtol=1e-9, atol=1e-9 * scale)


@pytest.fixture(scope="module", params=[[1, -1], [3, 1, 2, 4]], ids=["2 classes", "4 classes"])
def trained(request: pytest.FixtureRequest) -> tuple[KernelSVM, object]:
    labels = request.param
    X, y = random_problem(240, 50, labels, seed=len(labels))
    test_X, _ = random_problem(150, 60, labels, seed=10 + len(labels))
    return KernelSVM(degree=2, gamma=0.5, coef0=1.0, C=2.0).fit(X, y), test_X


@pytest.mark.parametrize("evaluator", EVALUATORS)
def test_converted_models_predict_like_the_kernel_model(
    trained, evaluator: str, tmp_path: Path
) -> None:
    clf, X = trained
    expansion = clf.expansion_
    model = KernelEvaluatorModel.convert(expansion, evaluator, stats={"objective": [1.5]})
    reference = expansion.naive_decision_function(X)
    assert model.backend == {"split": "split-svm"}.get(evaluator, evaluator)
    assert model.n_outputs == expansion.n_pairs
    assert model.n_support_vectors == expansion.n_support_vectors
    assert_same_values(model.decision_function(X), reference)
    np.testing.assert_array_equal(model.predict(X), clf.predict(X))
    path = tmp_path / f"{evaluator}.model"
    model.save(path)
    loaded = KernelEvaluatorModel.load(path)
    np.testing.assert_array_equal(loaded.decision_function(X), model.decision_function(X))
    np.testing.assert_array_equal(loaded.classes_, clf.classes_)
    np.testing.assert_array_equal(loaded.n_support, expansion.n_support)
    assert loaded.stats_ == {"objective": [1.5]}
    header, arrays = read_model_file(path)
    assert (header["degree"], header["gamma"], header["coef0"]) == (2, 0.5, 1.0)
    assert header["n_support_vectors"] == expansion.n_support_vectors
    assert type(classifier_from_arrays(header, arrays)) is KernelEvaluatorModel


def test_split_summary_reports_the_threshold_used(trained) -> None:
    clf, _ = trained
    expansion = clf.expansion_
    holders = np.bincount(expansion.support_vectors.indices)
    s = int(np.median(holders[holders > 0])) + 1
    model = KernelEvaluatorModel.convert(expansion, "split", rare_threshold=s)
    summary = split_summary(model.scorer)
    assert summary["rare_threshold"] == s and summary["min_common_count"] == float(s)
    assert summary["n_common_features"] == int((holders >= s).sum()) > 0
    assert summary["n_rare_features"] == int(((holders > 0) & (holders < s)).sum()) > 0
    assert summary["memory_total_bytes"] == sum(summary["memory_bytes"].values())


def test_same_model_gives_identical_files(trained, tmp_path: Path) -> None:
    clf, _ = trained
    for name in ("a", "b"):
        KernelEvaluatorModel.convert(clf.expansion_, "split").save(tmp_path / name)
    assert (tmp_path / "a").read_bytes() == (tmp_path / "b").read_bytes()


def test_degree_limits_and_defaults() -> None:
    X, y = random_problem(80, 30, [1, 2, 3], seed=5)
    clf = KernelSVM(degree=4, gamma=0.25).fit(X, y)
    for evaluator in ("pke", "split"):
        with pytest.raises(ValueError, match=f"the {evaluator} evaluator expands conjunctions "
                                             "of degree 1..3, and this model has degree 4"):
            KernelEvaluatorModel.convert(clf.expansion_, evaluator)
    model = KernelEvaluatorModel.convert(clf.expansion_, "pki")
    assert_same_values(model.decision_function(X), clf.decision_function(X))
    with pytest.raises(ValueError, match=f"degree 1..{EXPANDED_DEGREES[-1]}, not 4"):
        PKEScorer(clf.expansion_.as_kernel_expansion())
    PKEScorer(KernelSVM(degree=EXPANDED_DEGREES[-1]).fit(X, y).expansion_.as_kernel_expansion())
    assert [default_eval_mode(d) for d in (1, 2, 3, 4)] == ["split"] * 3 + ["pki"]
    check_evaluator("naive", 4)
    with pytest.raises(ValueError, match="unknown evaluation mode 'fast'"):
        check_evaluator("fast", 2)
    with pytest.raises(ValueError, match="unknown evaluator 'naive'"):
        KernelEvaluatorModel.convert(clf.expansion_, "naive")


def test_one_class_models_have_nothing_to_convert() -> None:
    X, _ = random_problem(20, 30, [1], seed=3)
    clf = KernelSVM().fit(X, np.full(len(X), 7))
    with pytest.raises(ValueError, match=r"one class \(7\) and has no decision function"):
        KernelEvaluatorModel.convert(clf.expansion_, "split")


def test_vote_breaks_ties_towards_the_first_label() -> None:
    labels = np.array([5, 6, 7])
    values = np.array([[1.0, -1.0, 1.0], [-1.0, 1.0, -1.0], [1.0, 1.0, 1.0]])
    # Row 0: 5, 7, 6 each win once; row 1: 6, 5, 7 each once; row 2: 5 twice.
    assert one_vs_one_vote(labels, values).tolist() == [5, 5, 5]
    assert one_vs_one_vote(np.array([9]), np.zeros((2, 1))).tolist() == [9, 9]
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        one_vs_one_vote(labels, np.zeros((2, 2)))


def test_bad_files(trained, tmp_path: Path) -> None:
    clf, _ = trained
    path = tmp_path / "m"
    KernelEvaluatorModel.convert(clf.expansion_, "pke").save(path)
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError, match="truncated or corrupt model file"):
        KernelEvaluatorModel.load(path)
    header, arrays = KernelEvaluatorModel.convert(clf.expansion_, "pke").to_arrays()
    missing = {name: array for name, array in arrays.items() if name != "constant"}
    write_model_file(path, dict(header, format="polyparse-clf"), missing)
    with pytest.raises(ModelFileError, match=r"array 'constant' is missing"):
        KernelEvaluatorModel.load(path)
    write_model_file(path, dict(header, format="polyparse-clf", evaluator="pki"), arrays)
    with pytest.raises(ModelFileError, match="backend pke with evaluator 'pki'"):
        KernelEvaluatorModel.load(path)
    write_model_file(path, dict(header, format="polyparse-clf", classes=[1, 2, 3, 4, 5]), arrays)
    with pytest.raises(ModelFileError, match=f"{path}: inconsistent model"):
        KernelEvaluatorModel.load(path)


def test_registry_loads_but_does_not_train_converted_backends() -> None:
    with pytest.raises(ValueError, match="unknown classifier 'split-svm'"):
        new_classifier("split-svm")
    with pytest.raises(ModelFileError, match="unknown classifier backend 'bogus'"):
        classifier_from_arrays({"backend": "bogus"}, {})


@pytest.mark.parametrize("evaluator", EVALUATORS)
def test_a_class_without_support_vectors(evaluator: str, tmp_path: Path) -> None:
    support_vectors = BinaryMatrix.from_rows([[1, 4], [2, 4, 5], [1, 3]], n_features=6)
    dual_coef = [[0.5, 0.25, -0.75], [0.0, 0.0, -0.5]]
    expansion = OneVsOneExpansion(support_vectors, dual_coef, [0.1, -0.2, 0.3], 1.0, 1.0, 2,
                                  np.array([1, 2, 3]), np.array([2, 0, 1]))
    X = BinaryMatrix.from_rows([[1], [2, 4], [], [1, 3, 4, 5]], n_features=6)
    model = KernelEvaluatorModel.convert(expansion, evaluator)
    reference = expansion.naive_decision_function(X)
    assert_same_values(model.decision_function(X), reference)
    model.save(tmp_path / "m")
    loaded = KernelEvaluatorModel.load(tmp_path / "m")
    assert_same_values(loaded.decision_function(X), reference)
    np.testing.assert_array_equal(loaded.predict(X), expansion.vote(reference))
