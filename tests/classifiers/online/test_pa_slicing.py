"""pa-slicing: every margin strategy trains the same model, the compiled learner equals a NumPy
PA loop (all variants, averaging by the naive mean), one-vs-rest, files, bad parameters."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.backends import classifier_from_arrays, new_classifier
from polyparse.classifiers.evaluators.modes import EVAL_MODES, build_evaluator
from polyparse.classifiers.model_file import ModelFileError, read_model_file, write_model_file
from polyparse.classifiers.online.kernel_slicing import (
    STRATEGIES,
    VARIANTS,
    BinaryLearner,
    SlicingData,
    permutations,
)
from polyparse.classifiers.online.pa_slicing import PASlicing
from polyparse.features.binary_matrix import BinaryMatrix

RTOL = 1e-9


def zipf_problem(n: int, n_features: int, seed: int, labels=(1, -1), lengths=(2, 14),
                 duplicates: int = 10) -> tuple[BinaryMatrix, np.ndarray]:
    """Rows of Zipf-distributed feature ids (a few frequent, many rare; some rows repeated),
    labels from a noisy rule with conjunctions."""
    rng = np.random.default_rng(seed)
    p = 1.0 / np.arange(1, n_features + 1) ** 0.9
    ids = rng.permutation(n_features)
    rows = [np.sort(ids[rng.choice(n_features, size=rng.integers(*lengths), replace=False,
                                   p=p / p.sum())]) for _ in range(n - duplicates)]
    rows += [rows[i] for i in rng.integers(0, len(rows), size=duplicates)]
    hidden = rng.normal(size=(n_features, len(labels)))
    scores = np.stack([hidden[row].sum(0) + hidden[row[0]] * hidden[row[-1]] for row in rows])
    scores += rng.normal(scale=0.5, size=scores.shape)
    return BinaryMatrix.from_rows(rows, n_features), np.asarray(labels)[np.argmax(scores, 1)]


def signs_of(y: np.ndarray) -> np.ndarray:
    return np.where(y == y[0], 1, -1).astype(np.int8)


def run(data: SlicingData, signs: np.ndarray, **settings) -> tuple[np.ndarray, np.ndarray,
                                                                    np.ndarray, dict]:
    learner = BinaryLearner(data, signs, record=True, **settings)
    learner.train()
    margins, deltas = learner.trace()
    return learner.coefficients(), margins, deltas, learner.stats()


def assert_same_run(run_a, run_b) -> None:
    """Same updates, same coefficients, margins equal to RTOL where both were computed."""
    coef_a, margins_a, deltas_a, _ = run_a
    coef_b, margins_b, deltas_b, _ = run_b
    np.testing.assert_array_equal(deltas_a != 0, deltas_b != 0)
    np.testing.assert_allclose(deltas_a, deltas_b, rtol=RTOL, atol=0)
    both = ~np.isnan(margins_a) & ~np.isnan(margins_b)
    scale = np.maximum(np.abs(margins_a[both]), 1.0)
    assert np.all(np.abs(margins_a[both] - margins_b[both]) <= RTOL * scale)
    np.testing.assert_array_equal(coef_a != 0, coef_b != 0)
    np.testing.assert_allclose(coef_a, coef_b, rtol=RTOL, atol=1e-15)


@pytest.mark.parametrize("degree", [1, 2, 3])
@pytest.mark.parametrize("variant", VARIANTS)
def test_every_strategy_trains_the_same_model(degree: int, variant: str) -> None:
    X, y = zipf_problem(300, 80, seed=degree)
    data = SlicingData(X)
    signs = signs_of(y)
    settings = dict(degree=degree, variant=variant, C=0.5, iterations=4, seed=11)
    reference = run(data, signs, strategy="kernel", **settings)
    assert np.count_nonzero(reference[2]) > 50
    for strategy, n_common in [("expand", None), ("split", 0), ("split", 7), ("split", 30),
                               ("slice", 0), ("slice", 7), ("slice", 30), ("slice", 10**6)]:
        for early in (True, False):
            result = run(data, signs, strategy=strategy, n_common=n_common,
                         early_termination=early, **settings)
            assert_same_run(reference, result)
            if strategy != "slice" or not early:
                assert not np.isnan(result[1]).any()


def test_slicing_reuses_and_ends_early() -> None:
    X, y = zipf_problem(400, 60, seed=5)
    data = SlicingData(X)
    _, margins, _, stats = run(data, signs_of(y), degree=2, strategy="slice", n_common=10,
                               iterations=5, seed=1)
    assert stats["slices_reused"] > 0 and stats["slices_refreshed"] > 0
    assert stats["margins_ended_early"] == np.isnan(margins).sum() > 0
    assert stats["slices"] == 5 * X.nnz
    assert (stats["slices_reused"] + stats["slices_refreshed"] + stats["slices_from_table"]
            + stats["slices_from_index"] + stats["slices_skipped"]) == stats["slices"]


@pytest.mark.parametrize("strategy", ["expand", "split", "slice"])
def test_a_table_cap_halves_n_and_keeps_the_model(strategy: str) -> None:
    X, y = zipf_problem(300, 120, seed=3, lengths=(4, 16))
    data = SlicingData(X)
    signs = signs_of(y)
    settings = dict(degree=3, iterations=3, seed=2)
    reference = run(data, signs, strategy="kernel", **settings)
    n_common = None if strategy == "expand" else 100
    capped = run(data, signs, strategy=strategy, n_common=n_common, max_table_bytes=60_000,
                 **settings)
    assert capped[3]["halvings"] >= 2
    assert capped[3]["n_common"] < capped[3]["n_common_initial"]
    assert capped[3]["peak_table_bytes"] > 60_000 >= capped[3]["table_bytes"]
    assert_same_run(reference, capped)


@pytest.mark.parametrize("degree", [2, 3])
def test_split_counts_common_ranks_by_bitsets_and_by_scans_alike(degree: int) -> None:
    # N <= 256 counts |s_C & x_C| on bitsets of 1-4 words, N > 256 by scanning s's ranks; a
    # table cap that halves N from 400 switches from the scan to bitsets of the existing
    # support vectors mid-run.
    X, y = zipf_problem(400, 700, seed=degree + 20, lengths=(6, 40))
    data = SlicingData(X)
    signs = signs_of(y)
    settings = dict(degree=degree, iterations=3, seed=4)
    reference = run(data, signs, strategy="kernel", **settings)
    assert data.n_ranked > 400
    for n_common in (64, 65, 200, 256, 257, 400):
        assert_same_run(reference, run(data, signs, strategy="split", n_common=n_common,
                                       **settings))
    capped = run(data, signs, strategy="split", n_common=400, max_table_bytes=200_000,
                 **settings)
    assert capped[3]["halvings"] >= 1 and capped[3]["n_common"] <= 256
    assert_same_run(reference, capped)


def reference_pa(X: BinaryMatrix, signs: np.ndarray, degree: int, variant: str, C: float,
                 iterations: int, seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Crammer et al. 2006 with K(x, z) = (x.z + 1)^d, one coefficient per row, in NumPy:
    (final alphas, naive mean of the alphas after each step, margins of every step)."""
    dense = X.to_dense(np.float64)
    kernel = (dense @ dense.T + 1.0) ** degree
    alpha = np.zeros(len(X))
    total = np.zeros(len(X))
    margins = []
    for order in permutations(seed, len(X), iterations):
        for i in order:
            m = float(alpha @ kernel[:, i])
            margins.append(m)
            y = signs[i]
            loss = 1.0 - y * m
            tau = 0.0
            if variant == "perceptron":
                tau = 1.0 if y * m <= 0 else 0.0
            elif loss > 0 and variant == "pa":
                tau = loss / kernel[i, i]
            elif loss > 0 and variant == "pa1":
                tau = min(C, loss / kernel[i, i])
            elif loss > 0:
                tau = loss / (kernel[i, i] + 1.0 / (2.0 * C))
            alpha[i] += y * tau
            total += alpha
    return alpha, total / (iterations * len(X)), np.asarray(margins)


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("degree", [1, 2, 3])
def test_compiled_learner_equals_numpy_pa(variant: str, degree: int) -> None:
    X, y = zipf_problem(120, 40, seed=7 + degree)
    signs = signs_of(y)
    data = SlicingData(X)
    final, mean, margins = reference_pa(X, signs, degree, variant, 0.3, 3, seed=5)
    by_vector = np.zeros((2, data.n_vectors))
    np.add.at(by_vector[0], data.row_vector, final)
    np.add.at(by_vector[1], data.row_vector, mean)
    for average, expected in ((False, by_vector[0]), (True, by_vector[1])):
        for strategy in STRATEGIES:
            n_common = 6 if strategy in ("split", "slice") else None
            coef, got_margins, _, _ = run(data, signs, degree=degree, variant=variant, C=0.3,
                                          iterations=3, seed=5, average=average,
                                          strategy=strategy, n_common=n_common,
                                          early_termination=False)
            np.testing.assert_allclose(coef, expected, rtol=RTOL, atol=1e-12)
            np.testing.assert_allclose(got_margins, margins, rtol=RTOL, atol=1e-9)


def test_permutations_are_shuffles_that_depend_on_the_seed() -> None:
    orders = permutations(3, 50, 4)
    assert orders.shape == (4, 50)
    assert all(sorted(order) == list(range(50)) for order in orders)
    assert not np.array_equal(orders[0], orders[1])
    np.testing.assert_array_equal(orders, permutations(3, 50, 4))
    assert not np.array_equal(orders, permutations(4, 50, 4))


def test_slicing_data_ranks_features_and_merges_rows() -> None:
    X = BinaryMatrix.from_rows([[5, 9], [2, 5], [5, 9], [2, 5, 7], []], 10)
    data = SlicingData(X)
    np.testing.assert_array_equal(data.rank_ids, [5, 2, 9, 7])
    np.testing.assert_array_equal(data.row_vector, [0, 1, 0, 2, 3])
    np.testing.assert_array_equal(data.vector_ranks, [0, 2, 0, 1, 0, 1, 3])
    np.testing.assert_array_equal(data.vector_ids(2), [2, 5, 7])
    data.build_prefix_nodes()
    # prefixes: (0), (0 2), (0 1), (0 1 3): four nodes, the first shared.
    assert data.n_nodes == 4
    node_of = data.node_of
    assert node_of[0] == node_of[2] == node_of[4]
    assert node_of[3] == node_of[5] and len(set(node_of.tolist())) == 4


def test_classifier_two_classes(tmp_path: Path) -> None:
    X, y = zipf_problem(300, 70, seed=2)
    test_X, test_y = zipf_problem(200, 70, seed=3)
    clf = PASlicing(degree=2, iterations=5, seed=4).fit(X, y)
    assert clf.classes_.tolist() == [1, -1] and clf.n_outputs == 1
    values = clf.decision_function(test_X)
    expansion = clf.expansion_
    np.testing.assert_allclose(values, expansion.naive_decision_function(test_X), rtol=1e-9,
                               atol=1e-9)
    for mode in EVAL_MODES:
        np.testing.assert_allclose(build_evaluator(expansion, mode).decision_function(test_X),
                                   values, rtol=1e-9, atol=1e-9)
    predicted = clf.predict(test_X)
    np.testing.assert_array_equal(predicted, np.where(values[:, 0] > 0, 1, -1))
    assert np.mean(predicted == test_y) > 0.6
    assert clf.n_support_vectors == expansion.n_support_vectors > 0
    assert np.all(expansion.intercepts == 0) and expansion.gamma == expansion.coef0 == 1.0
    stats = clf.stats_["outputs"][0]
    assert stats["strategy"] == "slice" and stats["seconds"] >= 0
    assert stats["n_support_vectors"] >= clf.n_support_vectors

    path = tmp_path / "pa.model"
    clf.save(path)
    loaded = PASlicing.load(path)
    np.testing.assert_array_equal(loaded.decision_function(test_X), values)
    assert loaded.parameters() == clf.parameters()
    header, arrays = read_model_file(path)
    assert header["backend"] == "pa-slicing"
    assert "seconds" not in header["stats"]["outputs"][0]
    assert isinstance(classifier_from_arrays(header, arrays), PASlicing)


def test_same_seed_gives_byte_identical_files(tmp_path: Path) -> None:
    X, y = zipf_problem(250, 60, seed=8, labels=(0, 1, 2))
    paths = []
    for name, seed in (("a", 3), ("b", 3), ("c", 4)):
        clf = new_classifier("pa-slicing", seed=seed, iterations=4, threads=2).fit(X, y)
        paths.append(tmp_path / f"{name}.model")
        clf.save(paths[-1])
    assert paths[0].read_bytes() == paths[1].read_bytes()
    assert paths[0].read_bytes() != paths[2].read_bytes()


@pytest.mark.parametrize("threads", [1, 3])
def test_one_vs_rest(threads: int) -> None:
    X, y = zipf_problem(300, 70, seed=6, labels=("nsubj", "obj", "root", "det"))
    clf = PASlicing(degree=2, iterations=4, seed=1, threads=threads, strategy="split").fit(X, y)
    assert clf.n_outputs == 4
    first = {label: i for i, label in reversed(list(enumerate(y.tolist())))}
    assert clf.classes_.tolist() == sorted(first, key=first.get)
    data = SlicingData(X)
    expansion = clf.expansion_
    dense = np.zeros((4, data.n_vectors))
    for c, label in enumerate(clf.classes_):
        signs = np.where(y == label, 1, -1).astype(np.int8)
        learner = BinaryLearner(data, signs, degree=2, iterations=4, seed=1, strategy="kernel")
        learner.train()
        dense[c] = learner.coefficients()
    support = np.flatnonzero(np.any(dense != 0, axis=0))
    np.testing.assert_allclose(expansion.coefficients, dense[:, support], rtol=1e-9, atol=1e-15)
    values = clf.decision_function(X)
    np.testing.assert_allclose(values, expansion.naive_decision_function(X), rtol=1e-9,
                               atol=1e-9)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[np.argmax(values, axis=1)])
    assert np.mean(clf.predict(X) == y) > 0.6


def test_one_class_and_string_labels() -> None:
    X, _ = zipf_problem(40, 20, seed=1)
    clf = PASlicing().fit(X, np.array(["only"] * 40))
    assert clf.classes_.tolist() == ["only"] and clf.n_support_vectors == 0
    np.testing.assert_array_equal(clf.decision_function(X), np.ones((40, 1)))
    assert clf.predict(X).tolist() == ["only"] * 40
    header, arrays = clf.to_arrays()
    assert PASlicing.from_arrays(header, arrays).predict(X).tolist() == ["only"] * 40


@pytest.mark.parametrize("params, message", [
    ({"degree": 4}, "degree must be 1, 2 or 3"),
    ({"degree": 0}, "degree must be 1, 2 or 3"),
    ({"C": 0}, "C must be positive"),
    ({"C": float("inf")}, "C must be positive"),
    ({"variant": "pa3"}, "unknown variant 'pa3'"),
    ({"strategy": "trie"}, "unknown strategy 'trie'"),
    ({"iterations": 0}, "iterations must be at least 1"),
    ({"iterations": 2.5}, "iterations must be an integer"),
    ({"strategy": "kernel", "n_common": 10}, "n_common applies to the split and slice"),
    ({"strategy": "expand", "n_common": 10}, "expand expands every feature"),
    ({"n_common": -1}, "n_common must be at least 0"),
    ({"max_table_mb": 0}, "max_table_mb must be positive"),
    ({"strategy": "kernel", "max_table_mb": 5}, "max_table_mb applies to"),
    ({"threads": 0}, "threads must be at least 1"),
    ({"seed": -1}, "seed must lie in"),
])
def test_bad_parameters(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        PASlicing(**params)


def test_bad_inputs() -> None:
    X, y = zipf_problem(30, 20, seed=1)
    with pytest.raises(ValueError, match="rows but y has shape"):
        PASlicing().fit(X, y[:-1])
    with pytest.raises(ValueError, match="zero rows"):
        PASlicing().fit(BinaryMatrix(np.zeros(1, np.int64), np.zeros(0, np.int32), 3), [])
    with pytest.raises(RuntimeError, match="not fitted"):
        PASlicing().decision_function(X)
    with pytest.raises(ValueError, match="signs must hold"):
        BinaryLearner(SlicingData(X), np.zeros(len(X), np.int8))


def test_inconsistent_files(tmp_path: Path) -> None:
    X, y = zipf_problem(60, 20, seed=1)
    clf = PASlicing(iterations=2).fit(X, y)
    header, arrays = clf.to_arrays()
    path = tmp_path / "bad.model"
    write_model_file(path, dict(header, format="polyparse-clf", classes=[1, 2, 3]), arrays)
    with pytest.raises(ModelFileError, match="1 outputs for 3 classes"):
        PASlicing.load(path)
    write_model_file(path, dict(header, format="polyparse-clf", gamma=2.0), arrays)
    with pytest.raises(ModelFileError, match=r"the kernel is not \(x.z \+ 1\)\^2"):
        PASlicing.load(path)
    write_model_file(path, dict(header, format="polyparse-clf", variant="pa9"), arrays)
    with pytest.raises(ModelFileError, match="unknown variant 'pa9'"):
        PASlicing.load(path)
    del arrays["coefficients"]
    write_model_file(path, dict(header, format="polyparse-clf"), arrays)
    with pytest.raises(ModelFileError, match="'coefficients' is missing"):
        PASlicing.load(path)
