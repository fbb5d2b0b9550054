"""uSVM, SDAG and SDAG+ (cutting_plane_svm.py) make the same cuts and reach the same alpha on
one seed; the Gram matrix they build equals the kernel's; threads do not change the model."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import polynomial_gram
from polyparse.classifiers.tree_kernels.cutting_plane.cutting_plane_svm import (
    ALGORITHMS,
    CuttingPlaneSVM,
)
from polyparse.classifiers.tree_kernels.kernels import gram_matrix
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelSpec
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from ..test_kernels import random_tree
from ..test_poly2_table import random_vectors


@pytest.fixture(scope="module")
def srl_small(srl_boundary: Path):
    train = read_svmlight_tk(srl_boundary / "train.5k.tk")
    rows = np.arange(1500)
    forest, vectors = train.forest.select(rows), train.vectors.take(rows)
    y = np.where(train.labels[rows] > 0, 1, -1)
    test = read_svmlight_tk(srl_boundary / "test.10k.tk", forest.labels, forest.productions)
    keep = np.arange(300)
    return forest, vectors, y, test.forest.select(keep), test.vectors.take(keep)


def _fit(spec, forest, vectors, y, algorithm, **options) -> CuttingPlaneSVM:
    options = {"sample": 150, "iterations": 12, "seed": 4, "epsilon": 1e-9, **options}
    svm = CuttingPlaneSVM(spec, algorithm, **options)
    svm.fit(forest, y, vectors if spec.degree is not None else None)
    return svm


def _brute_gram(svm: CuttingPlaneSVM, forest: TreeForest, vectors) -> np.ndarray:
    spec = svm.spec
    kernel = spec.tree_weight * gram_matrix(forest, forest, spec.kind, spec.lam, spec.mu, True)
    if spec.degree is not None:
        kernel = kernel + polynomial_gram(vectors, vectors, spec.degree, spec.s, spec.r)
    kernel = kernel + svm.bias_feature ** 2
    cuts = svm.cut_members
    return np.array([[ci @ kernel[np.ix_(ri, rj)] @ cj for rj, cj in cuts] for ri, ci in cuts])


@pytest.mark.parametrize("degree,sampling", [(None, "uniform"), (2, "uniform"),
                                             (2, "rejection")])
def test_the_three_algorithms_give_one_model_on_real_trees(srl_small, degree, sampling) -> None:
    forest, vectors, y, test_forest, test_vectors = srl_small
    spec = TreeKernelSpec(degree=degree)
    fits = {a: _fit(spec, forest, vectors, y, a, sampling=sampling) for a in ALGORITHMS}
    reference = fits["usvm"]
    assert reference.result_.n_cuts == 12
    scale = max(1.0, float(np.abs(reference.alpha_).max()))
    for svm in fits.values():
        assert len(svm.cut_members) == len(reference.cut_members)
        for (rows_a, coef_a), (rows_b, coef_b) in zip(svm.cut_members, reference.cut_members):
            assert np.array_equal(rows_a, rows_b) and np.array_equal(coef_a, coef_b)
        assert np.all(np.abs(svm.alpha_ - reference.alpha_) <= 1e-9 * scale)
    models = {a: svm.model() for a, svm in fits.items()}
    values = {a: m.decision_function(test_forest, test_vectors if degree else None)
              for a, m in models.items()}
    terms = (np.abs(models["usvm"].weights).sum() * (spec.tree_weight + (degree is not None))
             + abs(models["usvm"].bias))
    for a in ALGORITHMS:
        assert np.all(np.abs(values[a] - values["usvm"]) <= 1e-9 * terms)
    plain = models["sdag+"].decision_function(test_forest, test_vectors if degree else None,
                                              method="plain")
    assert np.all(np.abs(plain - values["sdag+"]) <= 1e-9 * terms)
    brute = _brute_gram(fits["sdag+"], forest, vectors)
    for svm in fits.values():
        assert np.allclose(svm.gram_, brute, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("kind", ("st", "pt", "et"))
def test_the_three_algorithms_agree_for_every_tree_kernel(kind: str) -> None:
    rng = np.random.default_rng(len(kind))
    forest = TreeForest([random_tree(rng) for _ in range(120)])
    vectors = random_vectors(rng, 120)
    y = np.where(rng.random(120) < 0.3, 1, -1)
    spec = TreeKernelSpec(kind, 0.4, 0.3, 2, 1.0, 1.0, 0.8)
    fits = [_fit(spec, forest, vectors, y, a, sample=40, iterations=8) for a in ALGORITHMS]
    for svm in fits[1:]:
        assert np.allclose(svm.alpha_, fits[0].alpha_, rtol=1e-9, atol=1e-9)
    assert np.allclose(fits[0].gram_, _brute_gram(fits[0], forest, vectors), rtol=1e-10,
                       atol=1e-12)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_threads_do_not_change_the_model(srl_small, algorithm: str) -> None:
    forest, vectors, y, _, _ = srl_small
    spec = TreeKernelSpec()
    one = _fit(spec, forest, vectors, y, algorithm, threads=1, iterations=6)
    two = _fit(spec, forest, vectors, y, algorithm, threads=2, iterations=6)
    assert np.array_equal(one.alpha_, two.alpha_)
    assert np.array_equal(one.gram_, two.gram_)


def test_the_dual_respects_its_constraints_and_C_scales_with_the_costs(srl_small) -> None:
    forest, vectors, y, _, _ = srl_small
    small_C = _fit(TreeKernelSpec(), forest, vectors, y, "sdag+", C=1e-4, iterations=8)
    assert small_C.result_.C_slack == pytest.approx(1e-4 * 1500)
    assert np.all(small_C.alpha_ >= 0)
    assert small_C.alpha_.sum() == pytest.approx(small_C.result_.C_slack, rel=1e-9)
    n_pos = int(np.count_nonzero(y > 0))
    weighted = _fit(TreeKernelSpec(), forest, vectors, y, "sdag+", sampling="rejection",
                    iterations=3)
    assert weighted.result_.positive_cost == pytest.approx((1500 - n_pos) / n_pos)
    assert weighted.result_.C == 1.0
    assert weighted.result_.C_slack == pytest.approx(2 * (1500 - n_pos))
    share = np.mean(np.concatenate([c for _, c in weighted.cut_members]) > 0)
    plain_share = np.mean(np.concatenate([c for _, c in small_C.cut_members]) > 0)
    assert share > plain_share


def test_a_loose_epsilon_stops_early(srl_small) -> None:
    forest, vectors, y, _, _ = srl_small
    svm = _fit(TreeKernelSpec(), forest, vectors, y, "sdag+", epsilon=0.2, iterations=50)
    assert svm.result_.converged and svm.result_.iterations < 50
    assert svm.result_.n_cuts == svm.result_.iterations - 1


@pytest.mark.parametrize("options", [{"algorithm": "svm"}, {"sampling": "importance"},
                                     {"j": 2.0}, {"sample": 0}, {"C": 0.0}, {"epsilon": 0.0},
                                     {"spec": TreeKernelSpec(degree=3)}])
def test_bad_settings_are_refused(options) -> None:
    with pytest.raises(ValueError):
        CuttingPlaneSVM(**options)


def test_a_sample_larger_than_the_data_is_refused() -> None:
    rng = np.random.default_rng(1)
    forest = TreeForest([random_tree(rng) for _ in range(10)])
    with pytest.raises(ValueError, match="sample size"):
        CuttingPlaneSVM(sample=11).fit(forest, np.array([1, -1] * 5))


def test_a_forest_of_empty_trees_is_refused() -> None:
    with pytest.raises(ValueError, match="no instance has a tree"):
        CuttingPlaneSVM(sample=2).fit(TreeForest([None, None, None]), np.array([1, -1, 1]))
