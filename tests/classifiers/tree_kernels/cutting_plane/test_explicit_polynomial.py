"""The explicit vector part of the cutting-plane learners against polynomial_gram."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.tree_kernels.combination import polynomial_gram
from polyparse.classifiers.tree_kernels.cutting_plane.explicit_polynomial import ExplicitPolynomial

from ..test_poly2_table import random_vectors


@pytest.mark.parametrize("degree,s,r", [(2, 1.0, 1.0), (2, 0.5, 0.3), (1, 1.0, 1.0),
                                        (1, 2.0, 0.0)])
def test_cut_weights_scores_and_dots_equal_the_kernel(degree: int, s: float, r: float) -> None:
    rng = np.random.default_rng(degree * 10 + int(4 * s))
    vectors = random_vectors(rng, 50)
    explicit = ExplicitPolynomial(vectors, degree, s, r)
    gram = polynomial_gram(vectors, vectors, degree, s, r)
    rows_a, rows_b = rng.choice(50, 12, replace=False), rng.choice(50, 9, replace=False)
    coef_a, coef_b = rng.normal(size=12), rng.normal(size=9)
    slots_a, weights_a = explicit.cut_weights(rows_a, coef_a)
    slots_b, weights_b = explicit.cut_weights(rows_b, coef_b)
    dense = np.zeros(explicit.n_slots)
    dense[slots_a] = weights_a
    queries = np.arange(50)
    assert np.allclose(explicit.scores(dense, queries), gram[:, rows_a] @ coef_a,
                       rtol=1e-12, atol=1e-12)
    common, ia, ib = np.intersect1d(slots_a, slots_b, return_indices=True)
    dot = float(np.sum(explicit.per_unit(common, weights_a[ia]) * weights_b[ib]))
    assert dot == pytest.approx(coef_a @ gram[np.ix_(rows_a, rows_b)] @ coef_b, rel=1e-12,
                                abs=1e-12)


def test_degree_three_is_refused() -> None:
    with pytest.raises(ValueError, match="degree 1 or 2"):
        ExplicitPolynomial(random_vectors(np.random.default_rng(1), 3), 3)
