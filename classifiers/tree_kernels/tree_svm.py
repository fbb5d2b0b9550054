"""C-SVC over trees (plus a binary vector): libsvm's SMO on tree-kernel columns.

The problem is the C-SVC dual that SVM-light-TK (Moschitti 2006, `svm_learn -t 5`) solves
approximately, here solved by libsvm's SMO with second-order working-set selection, shrinking and
a kernel column cache (Fan, Chen & Lin 2005; classifiers/kernel_svm/smo.pyx):

    min_a  0.5 a^T Q a - e^T a,   y^T a = 0,   0 <= a_i <= C_i,   Q_ij = y_i y_j K(x_i, x_j),

C_i = j C for positives and C for negatives (SVM-light's -j), decision value
f(x) = sum_i a_i y_i K(x_i, x) + b. K is the tree kernel (SST, ST, PT, ET) alone or SVM-light-TK's
`-C +` sum P_n + T * TK_n with the polynomial P(x, z) = (s x.z + r)^d on the instance vectors,
both parts normalised by default (`-N 3`); columns come from
classifiers/tree_kernels/tree_columns.pyx (one DAG of the training trees for SST and ST).

C defaults to SVM-light's rule, the inverse squared mean norm of the instances,
    C = 1 / (mean_i sqrt(K(x_i, x_i) - 2 K(x_i, 0) + K(0, 0)))^2,
0 being the empty instance (K(x, 0) = 0 for the normalised parts and the tree part, r^d for the
un-normalised polynomial): 1 / (1 + T) for `-C +` on non-empty normalised instances, 0.5 with
SVM-light-TK's defaults. Rows are grouped by class, positives first, as libsvm does, so the
solver reaches libsvm's solution on the same kernel. The primal objective
    0.5 |w|^2 + sum_i C_i max(0, 1 - y_i f(x_i)),   |w|^2 = sum_ij a_i y_i a_j y_j K(x_i, x_j),
is recomputed in double precision from the solution, with the dual e^T a - 0.5 |w|^2 and the gap.
"""
from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from polyparse.classifiers.kernel_svm.smo import solve_c_svc_columns
from polyparse.classifiers.tree_kernels.tree_columns import TreeColumnSource, TreeKernelColumns
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelSpec
from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike, optional_binary_matrix
from polyparse.features.trees import TreeForest


@dataclass
class TreeSVMResult:
    """A trained tree C-SVC: support instances (training row indices) and their trees in the
    training forest, dual coefficients a_i y_i, the bias b (f(x) = sum coef K + b), libsvm's
    objective 0.5 a^T Q a - e^T a, SMO steps, the box bounds (C_rule: "svm-light" when C came
    from SVM-light's rule, "given" otherwise) and the kernel."""

    spec: TreeKernelSpec
    normalize: bool
    support: np.ndarray
    support_trees: np.ndarray
    dual_coef: np.ndarray
    bias: float
    objective: float
    iterations: int
    converged: bool
    C: float
    Cp: float
    Cn: float
    C_rule: str
    kernel_columns: int
    n_bounded: int
    seconds: float

    @property
    def n_support_vectors(self) -> int:
        return int(self.support.size)


class TreeSVM:
    """Binary C-SVC on trees (+ vectors) trained by libsvm's SMO; see the module notes."""

    def __init__(self, spec: TreeKernelSpec | None = None, C: float | None = None,
                 j: float = 1.0, eps: float = 1e-3, cache_mb: float = 100.0,
                 shrinking: bool = True, max_iter: int | None = None, threads: int = 1,
                 normalize: bool = True) -> None:
        """spec: the kernel (default SST with SVM-light-TK's `-C + -S 1 -d 2` vector part);
        C: the box bound (None: SVM-light's rule); j: cost factor of positives;
        eps: stopping tolerance on the maximal violation; cache_mb: kernel column cache;
        threads: threads per kernel column (the model does not depend on it); normalize:
        both kernel parts normalised (SVM-light-TK's default; TreeKernelModel needs it)."""
        self.spec = spec if spec is not None else TreeKernelSpec(degree=2)
        self.normalize = bool(normalize)
        if C is not None and not C > 0:
            raise ValueError(f"C must be positive, not {C}")
        if not j > 0:
            raise ValueError(f"the cost factor j must be positive, not {j}")
        if not eps > 0 or not cache_mb > 0:
            raise ValueError("eps and cache_mb must be positive")
        if int(threads) != threads or threads < 1:
            raise ValueError(f"threads must be a positive integer, not {threads}")
        self.threads = int(threads)
        self.C, self.j, self.eps, self.cache_mb = C, float(j), float(eps), float(cache_mb)
        self.shrinking = bool(shrinking)
        self.max_iter = max_iter
        self.result_: TreeSVMResult | None = None
        self.forest_: TreeForest | None = None
        self.vectors_: BinaryMatrix | None = None
        self.columns_: TreeKernelColumns | None = None
        self.labels_: np.ndarray | None = None
        self.order_: np.ndarray | None = None

    @property
    def has_vector(self) -> bool:
        return self.spec.degree is not None

    def columns(self, forest: TreeForest, rows: np.ndarray | None = None,
                vectors: BinaryMatrix | None = None) -> TreeKernelColumns:
        """The kernel columns against trees `rows` of forest (and `vectors`) as targets."""
        if self.has_vector and vectors is None:
            raise ValueError("the kernel has a vector part: vectors are needed")
        spec = self.spec
        return TreeKernelColumns(
            forest, rows, vectors if self.has_vector else None, spec.kind, spec.lam, spec.mu,
            self.normalize, int(spec.degree or 1), spec.s, spec.r, spec.tree_constant,
            self.threads,
        )

    def null_kernel(self) -> float:
        """K(x, 0) = K(0, 0) for the empty instance 0 (SVM-light's norm estimate)."""
        if self.has_vector and not self.normalize:
            return self.spec.r ** self.spec.degree
        return 0.0

    def default_C(self, diagonal: np.ndarray) -> float:
        """SVM-light's C = 1 / (mean sqrt(K(x, x) - 2 K(x, 0) + K(0, 0)))^2."""
        null = self.null_kernel()
        norms = np.sqrt(np.maximum(np.asarray(diagonal) - null, 0.0))
        mean = float(norms.mean()) if norms.size else 0.0
        if not mean > 0:
            raise ValueError("every instance has a zero kernel norm: C cannot be set by "
                             "SVM-light's rule")
        return 1.0 / (mean * mean)

    def fit(self, forest: TreeForest, y: np.ndarray, vectors: BinaryMatrixLike | None = None,
            rows: np.ndarray | None = None) -> TreeSVMResult:
        """Train on trees `rows` of forest (all by default, one per instance), labels y in
        {+1, -1} and, for a vector part, one row of vectors per instance (a BinaryMatrix, a 2-D
        0/1 NumPy array or a scipy sparse matrix)."""
        started = time.perf_counter()
        vectors = optional_binary_matrix(vectors)
        labels = np.asarray(y)
        if labels.ndim != 1 or not np.all((labels == 1) | (labels == -1)):
            raise ValueError("labels must be +1 or -1")
        trees = (np.arange(len(forest), dtype=np.int64) if rows is None
                 else np.ascontiguousarray(rows, dtype=np.int64))
        if trees.shape != labels.shape:
            raise ValueError(f"{labels.size} labels for {trees.size} trees")
        if labels.size == 0:
            raise ValueError("cannot train on no instances")
        if self.has_vector and (vectors is None or len(vectors) != labels.size):
            raise ValueError("the kernel has a vector part: one vector per instance is needed")
        # libsvm's grouping: positives first, each class in input order.
        order = np.concatenate([np.flatnonzero(labels == 1), np.flatnonzero(labels == -1)])
        grouped_vectors = _take_rows(vectors, order) if self.has_vector else None
        columns = self.columns(forest, trees[order], grouped_vectors)
        source = TreeColumnSource(columns)
        C = self.default_C(columns.diagonal) if self.C is None else float(self.C)
        Cp, Cn = C * self.j, C
        if np.all(labels == labels[0]):
            # One class: as libsvm, a model that gives it to every input (no support vector,
            # the decision value the class's sign), not an SMO whose bias runs off to infinity.
            coef = np.zeros(labels.size, dtype=np.float64)
            rho, objective, iterations, converged, n_columns = -float(labels[0]), 0.0, 0, True, 0
        else:
            coef, rho, objective, iterations, converged, n_columns = solve_c_svc_columns(
                source, labels[order].astype(np.int8), Cp, Cn, self.eps, self.cache_mb,
                self.shrinking, 0 if self.max_iter is None else int(self.max_iter),
            )
        if source.failed:
            raise MemoryError("out of memory in the tree kernel columns")
        support_grouped = np.flatnonzero(coef)
        support = order[support_grouped]
        by_input = np.argsort(support, kind="stable")
        bounds = np.where(labels[order] > 0, Cp, Cn)
        n_bounded = int(np.count_nonzero(np.abs(coef) >= bounds))
        self.result_ = TreeSVMResult(
            spec=self.spec,
            normalize=self.normalize,
            support=support[by_input],
            support_trees=trees[support[by_input]],
            dual_coef=coef[support_grouped][by_input],
            bias=-float(rho),
            objective=float(objective),
            iterations=int(iterations),
            converged=bool(converged),
            C=C, Cp=Cp, Cn=Cn, C_rule="svm-light" if self.C is None else "given",
            kernel_columns=int(n_columns),
            n_bounded=n_bounded,
            seconds=time.perf_counter() - started,
        )
        self.forest_, self.vectors_ = forest, vectors
        self.columns_, self.labels_, self.order_ = columns, labels, order
        return self.result_

    def _result(self) -> TreeSVMResult:
        if self.result_ is None:
            raise RuntimeError("the classifier is not fitted")
        return self.result_

    def decision_function(self, forest: TreeForest, vectors: BinaryMatrixLike | None = None,
                          rows: np.ndarray | None = None) -> np.ndarray:
        """f(x) = sum_i coef_i K(x_i, x) + b for trees `rows` of forest (all by default) and
        their vectors (as fit takes them); forest must share the training forest's interners."""
        result = self._result()
        vectors = optional_binary_matrix(vectors)
        if self.has_vector and vectors is None:
            raise ValueError("the kernel has a vector part: vectors are needed")
        targets = self.columns(forest, rows, vectors)
        support_vectors = _take_rows(self.vectors_, result.support) if self.has_vector else None
        return targets.expansion(self.forest_, result.support_trees, result.dual_coef,
                                 support_vectors) + result.bias

    def predict(self, forest: TreeForest, vectors: BinaryMatrixLike | None = None,
                rows: np.ndarray | None = None) -> np.ndarray:
        return np.where(self.decision_function(forest, vectors, rows) > 0, 1, -1)

    def model_arguments(self) -> tuple:
        """(spec, forest, rows, weights, vectors, bias) of the trained expansion, the arguments
        of TreeKernelModel.from_weighted_trees: rows are the support trees in the training
        forest, vectors (with a vector part) one row per tree of that forest, the support
        instances' vectors at their trees' rows. Normalised kernels only (ValueError)."""
        result = self._result()
        if not self.normalize:
            raise ValueError("tree-kernel models hold normalised kernels only")
        vectors = None
        if self.has_vector:
            vectors = _rows_at(self.vectors_, result.support, result.support_trees,
                               len(self.forest_))
        return (self.spec, self.forest_, result.support_trees,
                result.dual_coef, vectors, result.bias)

    def objectives(self) -> dict[str, float]:
        """libsvm's objective, the dual e^T a - 0.5 |w|^2, the primal 0.5 |w|^2 + sum C_i xi_i
        and the duality gap primal - dual, recomputed in double precision on the training set."""
        result = self._result()
        columns, labels, order = self.columns_, self.labels_, self.order_
        grouped = np.empty(order.size, dtype=np.int64)
        grouped[order] = np.arange(order.size)
        support_grouped = grouped[result.support]
        support_vectors = (_take_rows(self.vectors_, result.support) if self.has_vector
                           else None)
        without_bias = columns.expansion(self.forest_, result.support_trees, result.dual_coef,
                                         support_vectors)
        w_squared = float(np.dot(result.dual_coef, without_bias[support_grouped]))
        margins = labels[order] * (without_bias + result.bias)
        bounds = np.where(labels[order] > 0, result.Cp, result.Cn)
        hinge = float(np.dot(bounds, np.maximum(0.0, 1.0 - margins)))
        dual = float(np.abs(result.dual_coef).sum()) - 0.5 * w_squared
        primal = 0.5 * w_squared + hinge
        return {
            "libsvm_objective": result.objective,
            "dual": dual,
            "primal": primal,
            "gap": primal - dual,
            "relative_gap": (primal - dual) / max(abs(primal), 1e-300),
        }


def _rows_at(matrix: BinaryMatrix, rows: np.ndarray, places: np.ndarray,
             n_rows: int) -> BinaryMatrix:
    """A matrix of n_rows rows whose row places[k] is row rows[k] of matrix (others empty)."""
    lists = [np.zeros(0, dtype=np.int32)] * n_rows
    for row, place in zip(np.asarray(rows).tolist(), np.asarray(places).tolist()):
        lists[place] = matrix.row(row)
    return BinaryMatrix.from_rows(lists, matrix.n_features)


def _take_rows(matrix: BinaryMatrix | None, rows: np.ndarray) -> BinaryMatrix | None:
    """The rows `rows` of matrix, in that order."""
    if matrix is None:
        return None
    rows = np.asarray(rows, dtype=np.int64)
    starts, ends = matrix.indptr[rows], matrix.indptr[rows + 1]
    lengths = ends - starts
    indptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    offsets = np.arange(int(indptr[-1]), dtype=np.int64) - np.repeat(indptr[:-1], lengths)
    indices = matrix.indices[np.repeat(starts, lengths) + offsets]
    return BinaryMatrix(indptr, indices, matrix.n_features, validate=False)
