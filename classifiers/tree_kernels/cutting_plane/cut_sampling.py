"""The examples of each cut: uniform sampling (uSVM; Yu & Joachims 2008) or cost-proportionate
rejection sampling (uSVM+j; Severyn & Moschitti 2010, Algorithm 3; Zadrozny, Langford & Abe 2003).

Uniform: r indices drawn with replacement, each with probability 1/n.

Rejection sampling with importance weights: example i has cost c_i (j for positives, 1 for
negatives); a uniformly drawn candidate is kept with probability c_i / max_k c_k, until r are
kept. The kept examples are distributed as c_i / sum_k c_k, so the sampled cut
    g = (1/r) sum_{kept i, y_i w.x_i < 1} y_i phi(x_i),  loss (1/r) |{kept i: y_i w.x_i < 1}|,
has the expectation of the cut of the cost-weighted 1-slack problem
    min 0.5 |w|^2 + C xi,  xi >= (1 / sum_k c_k) sum_i c_i max(0, 1 - y_i w.x_i).
Convergence (section 4.2 of the paper): the weighted problem is the plain 1-slack problem over
the distribution c_i / sum_k c_k, and each sampled cut is an unbiased estimate of its most
violated constraint over r independent draws from that distribution, which is exactly what
Yu & Joachims' analysis of sampled cuts assumes of uniform sampling (there the distribution
is 1/n); their termination bound (a number of iterations that does not grow with n) and their
high-probability bound on the sampled solution's objective therefore carry over to the weighted
objective, with the losses of the weighted distribution in place of the uniform ones. With
j = n_neg / n_pos both classes are expected equally often in a cut.

Both draw from numpy's PCG64 with the given seed, so the same seed gives the same cuts.
"""
from __future__ import annotations

import numpy as np


class CutSampler:
    """r example indices per call; positive_cost None for uniform sampling, else j (the cost of
    a positive, negatives cost 1) for rejection sampling."""

    def __init__(self, y: np.ndarray, r: int, seed: int = 1,
                 positive_cost: float | None = None) -> None:
        self.y = np.asarray(y)
        n = int(self.y.size)
        if r < 1 or r > n:
            raise ValueError(f"the sample size must lie in 1 .. {n} (the examples), not {r}")
        if positive_cost is not None and not positive_cost > 0:
            raise ValueError(f"the positive cost j must be positive, not {positive_cost}")
        self.r = int(r)
        self.positive_cost = positive_cost
        self.rng = np.random.Generator(np.random.PCG64(seed))
        if positive_cost is None:
            self.accept = None
        else:
            cost = np.where(self.y > 0, positive_cost, 1.0)
            self.accept = cost / cost.max()

    def total_cost(self) -> float:
        """sum_i c_i (n for uniform sampling): the 1-slack C is SVM-light's C times this."""
        if self.positive_cost is None:
            return float(self.y.size)
        return float(np.where(self.y > 0, self.positive_cost, 1.0).sum())

    def sample(self) -> np.ndarray:
        n = self.y.size
        if self.accept is None:
            return self.rng.integers(0, n, size=self.r, dtype=np.int64)
        kept: list[np.ndarray] = []
        missing = self.r
        while missing > 0:
            candidates = self.rng.integers(0, n, size=2 * self.r, dtype=np.int64)
            keep = candidates[self.rng.random(candidates.size) < self.accept[candidates]]
            kept.append(keep[:missing])
            missing -= kept[-1].size
        return np.concatenate(kept)
