"""The three ways of the cutting-plane tree sums (cut_values.pyx) against the normalised Gram
matrix of kernels.gram_matrix, on random and real trees, with one and two threads."""
from __future__ import annotations

import zlib
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.cutting_plane.cut_values import (
    dag_cut_values,
    dag_node_sums,
    dag_scores,
    plain_cut_values,
)
from polyparse.classifiers.tree_kernels.dag import TreeDag
from polyparse.classifiers.tree_kernels.kernels import gram_matrix, self_kernels
from polyparse.features.svmlight_tk import read_svmlight_tk
from polyparse.features.trees import TreeForest

from ..test_kernels import random_tree

KINDS = ("sst", "st", "pt", "et")


def _inv_norm(forest: TreeForest, kind: str) -> np.ndarray:
    own = self_kernels(forest, kind, 0.4, 0.3)
    out = np.zeros(own.size)
    np.divide(1.0, np.sqrt(own), out=out, where=own > 0)
    return out


def _cuts(rng: np.random.Generator, n: int, t: int) -> tuple[np.ndarray, list, list]:
    rows = [np.unique(rng.integers(0, n, size=int(rng.integers(1, 8)))) for _ in range(t)]
    coef = [rng.normal(size=r.size) for r in rows]
    ptr = np.zeros(t + 1, dtype=np.int64)
    np.cumsum([r.size for r in rows], out=ptr[1:])
    return ptr, rows, coef


def _dag(forest: TreeForest, kind: str, rows: np.ndarray, coef: np.ndarray,
         inv: np.ndarray) -> TreeDag:
    dag = TreeDag(kind, 0.4, 0.3, False)
    for row, c in zip(rows.tolist(), coef.tolist()):
        dag.add_tree(forest, row, c * inv[row])
    return dag


def _check_all_ways(forest: TreeForest, kind: str, seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = len(forest)
    inv = _inv_norm(forest, kind)
    ptr, rows, coef = _cuts(rng, n, 5)
    sample = rng.integers(0, n, size=25)
    gram = gram_matrix(forest, forest, kind, 0.4, 0.3, True)
    expected = np.stack([gram[r][:, sample].T @ c for r, c in zip(rows, coef)], axis=1)
    scale = np.stack([np.abs(gram[r][:, sample]).T @ np.abs(c) for r, c in zip(rows, coef)],
                     axis=1) + 1e-300
    for threads in (1, 2):
        plain = plain_cut_values(forest, sample, ptr, np.concatenate(rows), np.concatenate(coef),
                                 inv, kind, 0.4, 0.3, threads)
        assert np.all(np.abs(plain - expected) <= 1e-12 * np.maximum(scale, 1.0))
        dags = [_dag(forest, kind, r, c, inv) for r, c in zip(rows, coef)]
        per_cut = dag_cut_values(dags, forest, sample, inv, threads)
        assert np.all(np.abs(per_cut - expected) <= 1e-12 * np.maximum(scale, 1.0))
    # SDAG+: one DAG of all cuts, f = sum_j alpha_j f_j, gives V alpha and the Gram entries.
    alpha = rng.random(5)
    big = TreeDag(kind, 0.4, 0.3, False)
    entries = []
    for j, (r, c) in enumerate(zip(rows, coef)):
        for row, value in zip(r.tolist(), c.tolist()):
            ids = big.add_tree(forest, row, value * inv[row])
            if ids is not None:
                entries += [(d, j, value * inv[row]) for d in ids]
    node, cut, value = (np.array(x) for x in zip(*entries))
    big.set_weights(np.bincount(node, weights=alpha[cut] * value, minlength=big.n_nodes))
    margins = [dag_scores(big, forest, sample, inv, threads) for threads in (1, 2)]
    assert np.array_equal(margins[0], margins[1])
    assert np.all(np.abs(margins[0] - expected @ alpha) <= 1e-12 * np.maximum(scale @ alpha, 1))
    members, member_coef = rows[0], coef[0]
    sums = [dag_node_sums(big, forest, members, member_coef, inv, threads) for threads in (1, 2)]
    assert np.array_equal(sums[0], sums[1])
    column = np.bincount(cut, weights=value * sums[0][node], minlength=5)
    g_expected = np.array([c @ gram[np.ix_(r, members)] @ member_coef
                           for r, c in zip(rows, coef)])
    assert np.allclose(column, g_expected, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("kind", KINDS)
def test_cut_values_on_random_trees(kind: str) -> None:
    rng = np.random.default_rng(zlib.crc32(kind.encode()))
    forest = TreeForest([random_tree(rng) for _ in range(40)] + [None])
    _check_all_ways(forest, kind, 7)


@pytest.mark.parametrize("kind", ("sst", "pt"))
def test_cut_values_on_real_trees(srl_boundary: Path, kind: str) -> None:
    forest = read_svmlight_tk(srl_boundary / "train.5k.tk").forest.select(np.arange(120))
    _check_all_ways(forest, kind, 11)


def test_normalised_dags_are_refused() -> None:
    rng = np.random.default_rng(3)
    forest = TreeForest([random_tree(rng) for _ in range(3)])
    with pytest.raises(ValueError, match="unnormalised"):
        dag_scores(TreeDag("sst", 0.4, 0.4, True), forest, [0], np.ones(3))
