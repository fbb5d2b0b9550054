"""The 1-slack cutting-plane SVM with sampled cuts over tree kernels: uSVM, SDAG and SDAG+
(Severyn & Moschitti 2010, "Large-scale support vector learning with structural kernels",
Algorithm 2 and section 3; Yu & Joachims 2008, "Training structural SVMs with kernels using
sampled cuts"; Joachims 2006, SVM-perf), with uSVM+j's rejection sampling (cut_sampling.py).

Problem (1-slack, Joachims 2006), over the sampling distribution p (uniform, or c_i / sum c):
    min_w 0.5 |w|^2 + C' xi   s.t.  w . g >= l - xi  for every cut (g, l),
C' = C sum_i c_i (C: SVM-light's per-example C, so that the same C means the same problem as the
SMO learner, tree_svm.py; c_i = 1 without -j). Each iteration draws a sample S of r examples,
computes their margins w . phi(x_k) (the most-violated-constraint step, MVC) and adds the cut
    g = (1/r) sum_{k in S, y_k w.phi(x_k) < 1} y_k phi(x_k),
    l = |{k in S: y_k w.phi(x_k) < 1}| / r,
unless it is violated by at most epsilon more than the current slack
    xi = max(0, max_j (l_j - w . g_j)),
then solves the dual over the active cuts exactly (cut_qp.pyx):
    max_a  l.a - 0.5 a'Ga,   a >= 0,  sum_j a_j <= C',   G_ij = g_i . g_j,   w = sum_j a_j g_j.
The margin of x is eq. 3, w . phi(x) = sum_j a_j g_j . phi(x). The kernel is SVM-light-TK's
`-C +` sum (combination.py) P_n(v, v') + T TK_n(t, t'), or TK_n alone, plus the product of a
constant bias feature b (SVM-perf's `--b`, default 1): the tree part by pair kernels (uSVM),
one DAG per cut (SDAG, eq. 5) or one DAG of all cuts weighted by a (SDAG+, eq. 6), see
cut_values.pyx; the vector part as explicit weights (explicit_polynomial.py) in all three.
The three algorithms compute the same numbers in different ways: on one seed they draw the same
samples, make the same cuts and reach the same a, to rounding.
"""
from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from polyparse.classifiers.tree_kernels.cutting_plane.cut_qp import solve_cut_qp
from polyparse.classifiers.tree_kernels.cutting_plane.cut_sampling import CutSampler
from polyparse.classifiers.tree_kernels.cutting_plane.cut_values import (
    dag_cut_values,
    dag_node_sums,
    dag_scores,
    plain_cut_values,
)
from polyparse.classifiers.tree_kernels.cutting_plane.explicit_polynomial import ExplicitPolynomial
from polyparse.classifiers.tree_kernels.dag import TreeDag
from polyparse.classifiers.tree_kernels.kernels import self_kernels
from polyparse.classifiers.tree_kernels.settings import ALGORITHMS, SAMPLINGS, TreeKernelSpec
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel
from polyparse.features.binary_matrix import BinaryMatrixLike, optional_binary_matrix
from polyparse.features.trees import TreeForest


@dataclass
class CuttingPlaneResult:
    """What a cutting-plane run did: iterations (samples drawn), whether the last sampled cut
    was within epsilon, the active cuts, C (SVM-light's) and C' (the 1-slack one), the positive
    cost j of rejection sampling (None for uniform), the dual objective, the slack, and seconds
    spent in the MVC step (margins), the Gram columns, the QP and in all."""

    algorithm: str
    sampling: str
    iterations: int
    converged: bool
    n_cuts: int
    C: float
    C_slack: float
    positive_cost: float | None
    objective: float
    slack: float
    mvc_seconds: float = 0.0
    gram_seconds: float = 0.0
    qp_seconds: float = 0.0
    seconds: float = 0.0
    losses: list[float] = field(default_factory=list)


class CuttingPlaneSVM:
    """uSVM / SDAG / SDAG+ (see the module notes) on trees plus optional binary vectors."""

    def __init__(self, spec: TreeKernelSpec | None = None, algorithm: str = "sdag+",
                 sample: int = 1000, iterations: int = 500, epsilon: float = 1e-3,
                 C: float | None = None, sampling: str = "uniform", j: float | None = None,
                 seed: int = 1, threads: int = 1, bias: float = 1.0) -> None:
        """spec: the kernel (vector part of degree 1 or 2, or none); sample: r; iterations:
        the most samples drawn; epsilon: the stopping tolerance; C: SVM-light's C (None: its
        rule, 1 / mean sqrt(K(x, x))^2); sampling: uniform (uSVM) or rejection (uSVM+j) with
        positive cost j (None: n_neg / n_pos); seed: the sampler's; threads: for the MVC step
        (the model does not depend on it); bias: the constant feature's value (0: none)."""
        self.spec = spec if spec is not None else TreeKernelSpec()
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown cutting-plane algorithm {algorithm!r} (expected one of "
                             f"{', '.join(ALGORITHMS)})")
        if sampling not in SAMPLINGS:
            raise ValueError(f"unknown sampling {sampling!r} (expected one of "
                             f"{', '.join(SAMPLINGS)})")
        if self.spec.degree not in (None, 1, 2):
            raise ValueError(f"the cutting-plane learners take a vector part of degree 1 or 2, "
                             f"not {self.spec.degree}")
        if sample < 1 or iterations < 1 or threads < 1:
            raise ValueError("the sample size, iterations and threads must be at least 1")
        if not epsilon > 0 or (C is not None and not C > 0) or (j is not None and not j > 0):
            raise ValueError("epsilon, C and j must be positive")
        if j is not None and sampling != "rejection":
            raise ValueError("the positive cost j belongs to rejection sampling (uSVM+j)")
        self.algorithm = algorithm
        self.sample_size = int(sample)
        self.iterations = int(iterations)
        self.epsilon = float(epsilon)
        self.C = C
        self.sampling = sampling
        self.j = j
        self.seed = int(seed)
        self.threads = int(threads)
        self.bias_feature = float(bias)

    def fit(self, forest: TreeForest, y: np.ndarray, vectors: BinaryMatrixLike | None = None,
            progress: Callable[[int], object] | None = None) -> CuttingPlaneResult:
        """Train on one tree (and vector row: a BinaryMatrix, a 2-D 0/1 NumPy array or a scipy
        sparse matrix) per instance with labels y in {+1, -1}; progress(1) is told of each cut
        drawn."""
        started = time.perf_counter()
        vectors = optional_binary_matrix(vectors)
        labels = np.asarray(y)
        if labels.ndim != 1 or labels.size != len(forest):
            raise ValueError(f"{labels.size} labels for {len(forest)} trees")
        if not np.all((labels == 1) | (labels == -1)):
            raise ValueError("labels must be +1 or -1")
        n_pos = int(np.count_nonzero(labels == 1))
        if n_pos == 0 or n_pos == labels.size:
            raise ValueError("training needs both positive and negative instances")
        spec = self.spec
        if spec.degree is not None and (vectors is None or len(vectors) != labels.size):
            raise ValueError("the kernel has a vector part: one vector per instance is needed")
        positive_cost = None
        if self.sampling == "rejection":
            positive_cost = (self.j if self.j is not None
                             else (labels.size - n_pos) / n_pos)
        sampler = CutSampler(labels, self.sample_size, self.seed, positive_cost)
        own = self_kernels(forest, spec.kind, spec.lam, spec.mu)
        inv_norm = np.zeros(own.size, dtype=np.float64)
        np.divide(1.0, np.sqrt(own), out=inv_norm, where=own > 0.0)
        if spec.degree is None and not np.any(inv_norm > 0.0):
            raise ValueError("no instance has a tree: the tree kernel is 0 everywhere")
        tree_weight = spec.tree_weight
        C = self._default_C(inv_norm > 0.0) if self.C is None else float(self.C)
        C_slack = C * sampler.total_cost()
        cuts = _Cuts(self.algorithm, spec, forest, inv_norm, self.threads,
                     None if spec.degree is None else
                     ExplicitPolynomial(vectors, spec.degree, spec.s, spec.r))
        result = CuttingPlaneResult(self.algorithm, self.sampling, 0, False, 0, C, C_slack,
                                    positive_cost, 0.0, 0.0)
        b2 = self.bias_feature ** 2
        gram = np.zeros((0, 0))
        losses = np.zeros(0)
        alpha = np.zeros(0)
        for _ in range(self.iterations):
            rows = sampler.sample()
            result.iterations += 1
            if progress is not None:
                progress(1)
            clock = time.perf_counter()
            tree_margin, values = cuts.margins(rows, alpha)
            margin = (tree_weight * tree_margin + cuts.vector_margins(rows)
                      + b2 * float(alpha @ cuts.beta))
            result.mvc_seconds += time.perf_counter() - clock
            y_rows = labels[rows]
            violated = np.flatnonzero(y_rows * margin < 1.0)
            loss = violated.size / self.sample_size
            w_dot_g = float(y_rows[violated] @ margin[violated]) / self.sample_size
            slack = max(0.0, float(np.max(losses - gram @ alpha))) if alpha.size else 0.0
            result.losses.append(loss)
            if loss - w_dot_g <= slack + self.epsilon:
                result.converged = True
                break
            clock = time.perf_counter()
            members, coef, first = _merge(rows[violated], y_rows[violated], self.sample_size)
            column = cuts.add(members, coef,
                              None if values is None else values[violated[first]])
            column = tree_weight * column[0] + column[1] + b2 * column[2]
            t = alpha.size
            grown = np.zeros((t + 1, t + 1))
            grown[:t, :t] = gram
            grown[t, :] = column
            grown[:, t] = column
            gram, losses = grown, np.append(losses, loss)
            result.gram_seconds += time.perf_counter() - clock
            clock = time.perf_counter()
            solution = solve_cut_qp(gram, losses, C_slack, np.append(alpha, 0.0))
            alpha = solution.alpha
            result.qp_seconds += time.perf_counter() - clock
            cuts.set_alpha(alpha)
        result.n_cuts = int(alpha.size)
        result.objective = float(losses @ alpha - 0.5 * alpha @ gram @ alpha)
        result.slack = max(0.0, float(np.max(losses - gram @ alpha))) if alpha.size else 0.0
        result.seconds = time.perf_counter() - started
        self.alpha_, self.gram_, self.losses_ = alpha, gram, losses
        self.cuts_, self.forest_, self.vectors_ = cuts, forest, vectors
        self.bias_ = b2 * float(alpha @ cuts.beta)
        self.result_ = result
        return result

    def _default_C(self, nonempty: np.ndarray) -> float:
        # SVM-light's rule on the kernel's diagonal: T TK_n(x, x) + P_n(x, x) (both 1 unless
        # the tree is empty), without the bias feature.
        diagonal = self.spec.tree_weight * nonempty + (self.spec.degree is not None)
        mean = float(np.sqrt(diagonal).mean())
        if not mean > 0:
            raise ValueError("every instance has a zero kernel norm: C cannot be set by "
                             "SVM-light's rule")
        return 1.0 / (mean * mean)

    @property
    def cut_members(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """(training rows, coefficients) of every active cut, in the order they were made."""
        return [(self.cuts_.rows[j], self.cuts_.coef[j]) for j in range(len(self.cuts_.rows))]

    def model_arguments(self) -> tuple:
        """Arguments of TreeKernelModel.from_weighted_trees for w = sum_j a_j g_j."""
        rows = np.concatenate(self.cuts_.rows) if self.cuts_.rows else np.zeros(0, np.int64)
        weights = (np.concatenate([a * c for a, c in zip(self.alpha_.tolist(), self.cuts_.coef)])
                   if self.cuts_.rows else np.zeros(0))
        return self.spec, self.forest_, rows, weights, self.vectors_, self.bias_

    def model(self) -> TreeKernelModel:
        return TreeKernelModel.from_weighted_trees(*self.model_arguments())


def _merge(rows: np.ndarray, y: np.ndarray, r: int
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    # The cut's distinct examples in sample order, coefficient y times the count over r, and
    # the sample position of each one's first draw.
    distinct, first, counts = np.unique(rows, return_index=True, return_counts=True)
    order = np.argsort(first, kind="stable")
    first = first[order]
    return distinct[order], y[first] * counts[order] / r, first


class _Cuts:
    """The active cuts as each algorithm keeps them, with the shared vector and bias parts."""

    def __init__(self, algorithm: str, spec: TreeKernelSpec, forest: TreeForest,
                 inv_norm: np.ndarray, threads: int,
                 explicit: ExplicitPolynomial | None) -> None:
        self.algorithm, self.spec, self.forest = algorithm, spec, forest
        self.inv_norm, self.threads, self.explicit = inv_norm, threads, explicit
        self.rows: list[np.ndarray] = []
        self.coef: list[np.ndarray] = []
        self.beta = np.zeros(0)
        self.dags: list[TreeDag] = []
        self.dag = TreeDag(spec.kind, spec.lam, spec.mu, False)
        # SDAG+: f_j(d) of every cut as (node, cut, value) entries.
        self.f_node = np.zeros(0, np.int64)
        self.f_cut = np.zeros(0, np.int64)
        self.f_value = np.zeros(0)
        # the vector part: T_j as (slot, cut, weight) entries and W = sum_j a_j T_j.
        self.v_slot = np.zeros(0, np.int64)
        self.v_cut = np.zeros(0, np.int64)
        self.v_value = np.zeros(0)
        self.weights = np.zeros(explicit.n_slots if explicit is not None else 0)

    def margins(self, rows: np.ndarray, alpha: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray | None]:
        """sum_j a_j g_j . phi(t_x) (tree part) for the sampled rows, and for uSVM and SDAG the
        per-cut values g_j . phi(t_x) behind it."""
        spec = self.spec
        if not self.rows:
            return np.zeros(rows.size), np.zeros((rows.size, 0))
        if self.algorithm == "sdag+":
            return dag_scores(self.dag, self.forest, rows, self.inv_norm, self.threads), None
        if self.algorithm == "sdag":
            values = dag_cut_values(self.dags, self.forest, rows, self.inv_norm, self.threads)
        else:
            ptr = np.zeros(len(self.rows) + 1, dtype=np.int64)
            np.cumsum([r.size for r in self.rows], out=ptr[1:])
            values = plain_cut_values(self.forest, rows, ptr, np.concatenate(self.rows),
                                      np.concatenate(self.coef), self.inv_norm, spec.kind,
                                      spec.lam, spec.mu, self.threads)
        return values @ alpha, values

    def vector_margins(self, rows: np.ndarray) -> np.ndarray:
        if self.explicit is None or not self.rows:
            return np.zeros(rows.size)
        return self.explicit.scores(self.weights, rows)

    def add(self, members: np.ndarray, coef: np.ndarray, member_values: np.ndarray | None
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Add the cut sum_m coef[m] phi(x_members[m]); its Gram column (g_new . g_j for every
        cut j, itself last) as tree, vector and bias parts. member_values: the members' rows
        of the per-cut values of the MVC step (uSVM, SDAG)."""
        spec, t = self.spec, len(self.rows)
        tree = np.zeros(t + 1)
        if self.algorithm == "sdag+":
            self._add_to_dag(members, coef, t)
            sums = dag_node_sums(self.dag, self.forest, members, coef, self.inv_norm,
                                 self.threads)
            tree = np.bincount(self.f_cut, weights=self.f_value * sums[self.f_node],
                               minlength=t + 1)
        else:
            if t:
                tree[:t] = coef @ member_values
            if self.algorithm == "sdag":
                self.dags.append(_cut_dag(spec, self.forest, members, coef, self.inv_norm))
                own = dag_cut_values([self.dags[-1]], self.forest, members, self.inv_norm,
                                     self.threads)
            else:
                own = plain_cut_values(self.forest, members, [0, members.size], members, coef,
                                       self.inv_norm, spec.kind, spec.lam, spec.mu,
                                       self.threads)
            tree[t] = float(coef @ own[:, 0])
        self.rows.append(members)
        self.coef.append(coef)
        self.beta = np.append(self.beta, coef.sum())
        bias = coef.sum() * self.beta
        vector = np.zeros(t + 1)
        if self.explicit is not None:
            slots, values = self.explicit.cut_weights(members, coef)
            dense = np.zeros(self.explicit.n_slots)
            dense[slots] = self.explicit.per_unit(slots, values)
            self.v_slot = np.concatenate([self.v_slot, slots])
            self.v_cut = np.concatenate([self.v_cut, np.full(slots.size, t, np.int64)])
            self.v_value = np.concatenate([self.v_value, values])
            vector = np.bincount(self.v_cut, weights=self.v_value * dense[self.v_slot],
                                 minlength=t + 1)
        return tree, vector, bias

    def _add_to_dag(self, members: np.ndarray, coef: np.ndarray, cut: int) -> None:
        nodes, values = [], []
        for row, c in zip(members.tolist(), coef.tolist()):
            weight = c * float(self.inv_norm[row])
            ids = self.dag.add_tree(self.forest, row, weight)
            if ids is not None:
                nodes.extend(ids)
                values.extend([weight] * len(ids))
        distinct, inverse = np.unique(np.asarray(nodes, dtype=np.int64), return_inverse=True)
        summed = np.bincount(inverse.reshape(-1), weights=np.asarray(values, dtype=np.float64),
                             minlength=distinct.size)
        self.f_node = np.concatenate([self.f_node, distinct])
        self.f_cut = np.concatenate([self.f_cut, np.full(distinct.size, cut, np.int64)])
        self.f_value = np.concatenate([self.f_value, summed])

    def set_alpha(self, alpha: np.ndarray) -> None:
        """Rescale what depends on a: the SDAG+ DAG's f (eq. 6) and the vector weights W."""
        if self.algorithm == "sdag+":
            self.dag.set_weights(np.bincount(self.f_node, weights=alpha[self.f_cut] * self.f_value,
                                             minlength=self.dag.n_nodes))
        if self.explicit is not None:
            self.weights = np.bincount(self.v_slot, weights=alpha[self.v_cut] * self.v_value,
                                       minlength=self.explicit.n_slots)


def _cut_dag(spec: TreeKernelSpec, forest: TreeForest, members: np.ndarray, coef: np.ndarray,
             inv_norm: np.ndarray) -> TreeDag:
    # SDAG (eq. 5): the cut's own DAG, f(d) = sum_m coef_m inv_norm[m] count_m(d).
    dag = TreeDag(spec.kind, spec.lam, spec.mu, False)
    for row, c in zip(members.tolist(), coef.tolist()):
        weight = c * float(inv_norm[row])
        if weight != 0.0:
            dag.add_tree(forest, row, weight)
    return dag
