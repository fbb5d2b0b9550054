"""One-vs-one models with many classes: class-by-class evaluators and the guided exact vote,
against libsvm's joint kernel sum and a plain Python vote."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.classifiers.evaluators.modes import EVAL_MODES, build_evaluator, sum_expansion
from polyparse.classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion, class_expansion
from polyparse.classifiers.evaluators.one_vs_one_scorer import OneVsOneScorer
from polyparse.classifiers.evaluators.one_vs_one_split import OneVsOneSplitScorer
from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.features.binary_matrix import BinaryMatrix
from tests.classifiers.evaluators.test_kernel_expansion import assert_close, zipf_rows


def random_one_vs_one(seed: int, n_classes: int, degree: int,
                      n_sv: int = 400) -> tuple[OneVsOneExpansion, np.ndarray]:
    """A random one-vs-one model in libsvm's layout over a Zipfian vocabulary."""
    rng = np.random.default_rng(seed)
    vocabulary = np.sort(rng.choice(50_000, size=600, replace=False))
    support_vectors = zipf_rows(rng, n_sv, vocabulary, 14)
    cuts = np.sort(rng.choice(np.arange(1, n_sv), size=n_classes - 1, replace=False))
    n_support = np.diff(np.concatenate([[0], cuts, [n_sv]])).astype(np.int32)
    dual_coef = rng.normal(size=(n_classes - 1, n_sv)) * (rng.random((n_classes - 1, n_sv)) < 0.7)
    rho = rng.normal(size=n_classes * (n_classes - 1) // 2)
    model = OneVsOneExpansion(support_vectors, dual_coef, rho, float(rng.uniform(0.1, 1.0)),
                              float(rng.uniform(0.0, 1.0)), degree,
                              np.arange(100, 100 + n_classes), n_support)
    return model, vocabulary


def python_vote(values: np.ndarray, allowed: np.ndarray) -> int:
    """libsvm's vote over the pairs of allowed classes, ties to the first; -1 if none."""
    k = allowed.size
    votes = np.zeros(k, dtype=int)
    p = 0
    for i in range(k):
        for j in range(i + 1, k):
            if allowed[i] and allowed[j]:
                votes[i if values[p] > 0 else j] += 1
            p += 1
    candidates = np.flatnonzero(allowed)
    return int(candidates[np.argmax(votes[candidates])]) if candidates.size else -1


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("rare_threshold", ["auto", 1, 0.02, 10**6])
def test_one_vs_one_split_equals_the_kernel_sum(degree: int, rare_threshold) -> None:
    model, vocabulary = random_one_vs_one(degree, 14, degree)
    X = zipf_rows(np.random.default_rng(7), 600, vocabulary, 16)
    reference = model.naive_decision_function(X)
    scorer = OneVsOneSplitScorer(model, rare_threshold)
    assert scorer.n_outputs == model.n_pairs
    assert_close(scorer.decision_function(X), reference)
    holders = np.bincount(model.support_vectors.indices)
    assert scorer.n_common_features + scorer.n_rare_features == np.count_nonzero(holders)


@pytest.mark.parametrize("mode", EVAL_MODES)
def test_every_mode_of_a_many_class_model_equals_libsvm_sum(mode: str) -> None:
    model, vocabulary = random_one_vs_one(11, 13, 2)
    X = zipf_rows(np.random.default_rng(3), 400, vocabulary, 16)
    scorer = build_evaluator(model, mode)
    if mode == "split":
        assert isinstance(scorer, OneVsOneSplitScorer)
    elif mode != "naive":
        assert isinstance(scorer, OneVsOneScorer)
    assert_close(scorer.decision_function(X), model.naive_decision_function(X))


def test_sum_expansion_signs_each_pair_towards_its_class() -> None:
    model, vocabulary = random_one_vs_one(5, 6, 2)
    X = zipf_rows(np.random.default_rng(1), 50, vocabulary, 12)
    pairs = model.naive_decision_function(X)
    expected = np.zeros((len(X), model.n_classes))
    for p, (i, j) in enumerate(model.pairs()):
        expected[:, i] += pairs[:, p]
        expected[:, j] -= pairs[:, p]
    assert_close(sum_expansion(model).naive_decision_function(X), expected)


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_guided_vote_is_libsvm_vote_among_allowed_classes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    k = int(rng.integers(3, 16))
    model, vocabulary = random_one_vs_one(seed % 1000, k, int(rng.integers(1, 4)), n_sv=200)
    X = zipf_rows(rng, 60, vocabulary, 14)
    values = model.naive_decision_function(X)
    guided = OneVsOneSplitScorer(model, "auto")
    weak_guide = OneVsOneSplitScorer(model, 0.02, guide_rows=0.01)
    unguided = OneVsOneSplitScorer(model, 0.05, guided=False)
    by_class = OneVsOneScorer([PKIScorer(class_expansion(model, c)) for c in range(k)], model.rho)
    for r in range(len(X)):
        allowed = (rng.random(k) < rng.uniform(0.0, 1.0)).astype(np.intc)
        if rng.random() < 0.3:
            allowed[:] = 1
        expected = python_vote(values[r], allowed)
        row = X.row(r).astype(np.int32)
        assert by_class.vote_classes(row, allowed) == expected
        assert guided.vote_classes(row, allowed) == expected
        assert weak_guide.vote_classes(row, allowed) == expected
        assert unguided.vote_classes(row, allowed) == expected


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("rare_threshold", ["auto", 1, 0.05, 10**6])
def test_guide_and_candidate_pass_equal_the_signed_pair_values(degree: int,
                                                               rare_threshold) -> None:
    model, vocabulary = random_one_vs_one(degree + 20, 9, degree, n_sv=300)
    X = zipf_rows(np.random.default_rng(degree), 80, vocabulary, 14)
    pairs = model.naive_decision_function(X)
    k = model.n_classes
    toward = np.zeros((len(X), k, k))
    for p, (i, j) in enumerate(model.pairs()):
        toward[:, i, j], toward[:, j, i] = pairs[:, p], -pairs[:, p]
    scorer = OneVsOneSplitScorer(model, rare_threshold, guide_rows=1.0)
    for r in range(len(X)):
        row = X.row(r).astype(np.int32)
        guide = toward[r].sum(axis=1)
        # With every row, the guide is S_c in float32 (it only names a candidate).
        assert np.allclose(scorer.guide_values(row), guide, rtol=1e-5,
                           atol=1e-5 * np.abs(guide).max())
        for c in range(k):
            others = [j for j in range(k) if j != c]
            exact, no_slack = scorer.champion_values(row, c)
            assert no_slack == 0.0
            assert_close(exact[None], toward[r, c, others][None])
            narrow, slack = scorer.champion_values(row, c, exact=False)
            assert np.all(np.abs(narrow - exact) <= slack + 1e-12 * np.abs(exact))
            assert slack < 1e-3 * max(1.0, np.abs(exact).max())


def test_every_path_of_the_guided_vote_is_taken_and_exact() -> None:
    # A guide over 1 % of the rows misses often: the second candidates and the full pass run.
    model, vocabulary = random_one_vs_one(5, 12, 2)
    X = zipf_rows(np.random.default_rng(5), 400, vocabulary, 14)
    values = model.naive_decision_function(X)
    scorer = OneVsOneSplitScorer(model, 0.02, guide_rows=0.01)
    everything = np.ones(model.n_classes, dtype=np.intc)
    expected = [python_vote(values[r], everything) for r in range(len(X))]
    assert scorer.vote_rows(X, everything).tolist() == expected
    assert scorer.n_votes == len(X)
    assert scorer.n_second_candidates > 0 and scorer.n_full_passes > 0
    assert scorer.n_full_passes < scorer.n_votes


def test_a_pair_too_close_for_float32_is_decided_in_float64() -> None:
    model, vocabulary = random_one_vs_one(8, 12, 2)
    row = zipf_rows(np.random.default_rng(8), 1, vocabulary, 14)
    a, b = 3, 7
    p = model.pairs().index((a, b))
    value = model.naive_decision_function(row)[0, p]
    rho = model.rho.copy()
    rho[p] += value - 1e-9 * max(1.0, abs(value))
    close = OneVsOneExpansion(model.support_vectors, model.dual_coef, rho, model.gamma,
                              model.coef0, model.degree, model.labels, model.n_support)
    assert 0 < close.naive_decision_function(row)[0, p] < 1e-8 * max(1.0, abs(value))
    scorer = OneVsOneSplitScorer(close)
    allowed = np.zeros(12, dtype=np.intc)
    allowed[[a, b]] = 1
    assert scorer.vote_classes(row.row(0).astype(np.int32), allowed) == a
    assert scorer.n_exact_candidate_passes >= 1 and scorer.n_full_passes == 0


def test_guided_vote_on_a_trained_model_agrees_with_predict() -> None:
    rng = np.random.default_rng(0)
    rows = [np.unique(rng.integers(0, 60, rng.integers(3, 10))).astype(np.int32)
            for _ in range(900)]
    X = BinaryMatrix.from_rows(rows)
    y = np.array([int(r.sum()) % 14 for r in rows])
    clf = KernelSVM(degree=2, gamma=0.2, coef0=0.4).fit(X, y)
    scorer = build_evaluator(clf.expansion_, "split")
    assert isinstance(scorer, OneVsOneSplitScorer)
    everything = np.ones(clf.expansion_.n_classes, dtype=np.intc)
    votes = [scorer.vote_classes(X.row(r).astype(np.int32), everything) for r in range(len(X))]
    assert np.array_equal(clf.classes_[votes], clf.predict(X))
    assert np.array_equal(scorer.vote_rows(X, everything), votes)
    # A weak guide: some first candidates miss and a second candidate wins.
    weak = OneVsOneSplitScorer(clf.expansion_, "auto", guide_rows=0.02)
    assert np.array_equal(weak.vote_rows(X, everything), votes)
    assert weak.n_candidate_misses > weak.n_full_passes


def test_bad_compositions_are_refused() -> None:
    model, _ = random_one_vs_one(1, 4, 2)
    with pytest.raises(ValueError, match="three classes"):
        OneVsOneScorer([], [])
    with pytest.raises(ValueError, match="outputs"):
        OneVsOneScorer([SplitSVMScorer(sum_expansion(model))] * 4, model.rho)
    two, _ = random_one_vs_one(1, 2, 2)
    with pytest.raises(ValueError, match="three classes"):
        OneVsOneSplitScorer(two)
