"""`poly2-linear` and `linear` backends: a linear SVM on an explicit polynomial mapping.

Poly2LinearSVM trains w on phi(x) of Chang et al. 2010 (see classifiers/linear/poly2_linear.pyx
for the mapping and the solver), so w . phi(x) equals the kernel expansion sum_i y_i alpha_i
(gamma x_i.x + coef0)^degree of the same dual solution (pairs unseen in training carry no weight
in either; min_pair_count > 1 trains on the reduced pair set). LinearSVM is the degree-1 case,
phi(x) = [sqrt(coef0), sqrt(gamma) x_i]; its defaults (gamma = coef0 = 1) are liblinear's `-B 1`.

Storage: after fit the weights are converted to `dtype` (float32 by default) and only the
dimensions with a nonzero stored weight are kept (plus the singles their pairs need, since pairs
are looked up only among present singles), so fit -> predict and save -> load -> predict give
identical decision values. With several outputs the weights are stored by rows sparsely
(row_ptr, columns, values) when that is smaller than the dense (D, K) matrix.

Labels: classes_ in order of first appearance, but -1 and +1 met in that order are swapped so
that +1 is the positive side (libsvm's and liblinear's convention, as kernel-svm and pa-slicing
have it: decision values are never inverted by the order of the file). Two classes give
one output whose positive sign means classes_[0]; K >= 3 classes give K one-vs-rest outputs
(argmax wins); a single class gives a constant model with one output (+1).

A parser's Cython loop uses `clf.scorer` (a classifiers.scorer.BinaryScorer): its
`scores(feats, n, out)` writes `clf.scorer.n_outputs` decision values.

Real-valued rows (a RealMatrix, real arrays) are trained on phi(x) written out explicitly
(classifiers/linear/real_mapping.py: linear, square and pair coordinates; the solver of
real_dual_cd.pyx, liblinear's) and scored by real_mapping.real_decision_function. A linear
model scores real rows whatever it was trained on (w . x); a poly2-linear model trained on
binary rows folds x_f and x_f^2 into one weight and so scores binary rows only.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polyparse.classifiers.backend_settings import DEFAULTS, SOLVERS
from polyparse.classifiers.binary_classifier import (
    BinaryClassifier,
    one_vs_rest_outputs,
    training_inputs,
)
from polyparse.classifiers.linear.poly2_linear import (
    Poly2LinearScorer,
    expand_rows,
    identical_rows,
    remap_rows,
    solve_dual_cd,
)
from polyparse.classifiers.linear.real_dual_cd import solve_dual_cd_real
from polyparse.classifiers.linear.real_mapping import (
    LINEAR,
    PAIR,
    SQUARE,
    monomial_scales,
    monomials,
    real_decision_function,
)
from polyparse.classifiers.linear.trust_region import (
    CondensedPhi,
    ExplicitPhi,
    PhiRows,
    solve_primal_newton,
)
from polyparse.classifiers.model_file import ModelFileError, inconsistent, require_arrays
from polyparse.classifiers.settings import (
    check_choice,
    check_finite,
    check_integer,
    check_positive,
    check_seed,
)
from polyparse.features.binary_matrix import BinaryMatrixLike
from polyparse.features.key_index import KeyIndex
from polyparse.features.real_matrix import RealMatrix, as_feature_matrix

# Outputs solved together in one shared pass over the rows: bounds the float64 training matrix
# at (D, OUTPUT_BLOCK) while a row's weight lines still serve several outputs at once.
OUTPUT_BLOCK = 32
_LOW = np.uint64(0xFFFFFFFF)


_STATS = (
    "objective",
    "iterations",
    "converged",
    "projected_gradient_gap",
    "gradient_ratio",
    "cg_iterations",
    "n_support",
    "n_training_rows",
    "n_dims_trained",
    "weight_sparsity",
)


_POLY2 = DEFAULTS["poly2-linear"]
_LINEAR = DEFAULTS["linear"]


class Poly2LinearSVM(BinaryClassifier):
    """Linear SVM (dual coordinate descent) on the explicit degree-1/2 polynomial mapping."""

    def __init__(
        self,
        degree: int = _POLY2["degree"],
        gamma: float = _POLY2["gamma"],
        coef0: float = _POLY2["coef0"],
        C: float = _POLY2["C"],
        loss: str = _POLY2["loss"],
        eps: float = _POLY2["eps"],
        max_iter: int = _POLY2["max_iter"],
        min_pair_count: int = _POLY2["min_pair_count"],
        seed: int = _POLY2["seed"],
        dtype: str = _POLY2["dtype"],
        solver: str = _POLY2["solver"],
    ) -> None:
        self.degree = int(degree)
        self.gamma = float(gamma)
        self.coef0 = float(coef0)
        self.C = float(C)
        self.loss = loss
        self.eps = float(eps)
        self.max_iter = int(max_iter)
        self.min_pair_count = int(min_pair_count)
        self.seed = int(seed)
        self.dtype = str(np.dtype(dtype))
        self.solver = solver
        self._check_parameters()
        self.classes_: np.ndarray | None = None
        self._scorer: Poly2LinearScorer | None = None
        # The squares' part of the single weights (D, K) of a degree-2 model trained on real
        # values (real_mapping.py); None otherwise.
        self.square_: np.ndarray | None = None
        self.stats_: dict[str, Any] = {}

    @property
    def backend(self) -> str:
        return "linear" if self.degree == 1 else "poly2-linear"

    @property
    def objective_(self) -> list[float]:
        """The solver's objective per output, as liblinear prints it: the dual
        0.5 a^T (Q + D) a - e^T a, or the primal f(w) (solver primal)."""
        return list(self.stats_.get("objective", []))

    def _check_parameters(self) -> None:
        if self.degree not in (1, 2) or isinstance(self.degree, bool):
            raise ValueError(f"degree must be 1 or 2, not {self.degree!r} (the explicit mapping "
                             "is of degree 2 at most: a higher degree needs a kernel model, "
                             "kernel-svm or pa-slicing)")
        self.degree = int(self.degree)
        self.gamma = check_positive("gamma", self.gamma)
        self.coef0 = check_finite("coef0", self.coef0)
        if self.degree == 1 and self.coef0 < 0:
            raise ValueError("coef0 must be >= 0 for degree 1 (the bias feature is sqrt(coef0))")
        if self.degree == 2 and 2 * self.gamma * self.coef0 + self.gamma**2 < 0:
            raise ValueError("coef0 must be >= -gamma/2 for degree 2 (2 gamma coef0 + gamma^2)")
        self.C = check_positive("C", self.C)
        check_choice("loss", self.loss, ("l1", "l2"))
        self.eps = check_positive("eps", self.eps)
        self.max_iter = check_integer("max_iter", self.max_iter, 1)
        self.min_pair_count = check_integer("min_pair_count", self.min_pair_count, 1)
        check_choice("dtype", self.dtype, ("float32", "float64"))
        check_choice("solver", self.solver, SOLVERS)
        if self.solver == "primal" and self.loss != "l2":
            raise ValueError("solver primal (trust-region Newton) needs loss l2, a "
                             "differentiable loss; loss l1 takes solver dual")
        self.seed = check_seed(self.seed)

    def squared_scales(self) -> tuple[float, float, float]:
        """Squared scales of phi's constant, single and pair coordinates."""
        g, r = self.gamma, self.coef0
        if self.degree == 1:
            return r, g, 0.0
        return r * r, 2 * g * r + g * g, 2 * g * g

    def fit(self, X: BinaryMatrixLike, y: np.ndarray) -> "Poly2LinearSVM":
        """Train on the rows of X (a BinaryMatrix, a 2-D 0/1 NumPy array or a scipy sparse matrix)
        with labels y (any hashable numbers or strings)."""
        self._check_parameters()
        X, self.classes_, class_index = training_inputs(X, y, libsvm_order=True,
                                                        backend=self.backend)
        class_index = class_index.astype(np.int32)
        n_classes = self.classes_.size
        storage = np.dtype(self.dtype)
        self.square_ = None
        if isinstance(X, RealMatrix) and n_classes > 1:
            return self._fit_real(X, class_index)
        empty = (np.zeros(0, dtype=np.int64),) * 2 + (np.zeros(0, dtype=storage),)
        if n_classes == 1:
            # A constant model: decision value +1, i.e. always classes_[0].
            self._set_model(np.zeros(0, dtype=np.uint64), None, np.ones(1, dtype=storage), *empty)
            self.stats_ = dict(
                objective=[0.0], iterations=[0], converged=[True], projected_gradient_gap=[0.0],
                n_support=[0], n_training_rows=len(X), n_dims_trained=0, weight_sparsity=1.0,
            )
            return self
        n_outputs = one_vs_rest_outputs(n_classes)

        keys, row_ptr, dims, n_single = expand_rows(X.indptr, X.indices, self.degree)
        keys, dims = self._condense(keys, row_ptr, dims)
        is_single = (keys >> np.uint64(32)) == (keys & _LOW)
        constant_sq, single_sq, pair_sq = self.squared_scales()
        # Dual objective 0.5 ||w||^2 + sum_i alpha_i (0.5 D_ii alpha_i - 1), w_d = v_d / s_d.
        inverse_sq = np.empty(keys.size + 1)
        inverse_sq[0] = _inverse(constant_sq)
        inverse_sq[1:] = np.where(is_single, _inverse(single_sq), _inverse(pair_sq))
        stats: dict[str, list] = {}
        intercept = np.empty(n_outputs, dtype=storage)
        parts = []
        phi = CondensedPhi(row_ptr, dims, n_single, keys.size + 1, (constant_sq, single_sq,
                                                                   pair_sq))
        for first in range(0, n_outputs, OUTPUT_BLOCK):
            width = min(OUTPUT_BLOCK, n_outputs - first)
            if self.solver == "primal":
                weights = self._solve_primal(phi, class_index, first, width, stats)
                weights *= np.sqrt(np.concatenate([[constant_sq], np.where(
                    is_single, single_sq, pair_sq)]))[:, None]
            else:
                weights = self._solve_dual(phi, class_index, first, width, inverse_sq, stats)
            stored = weights.astype(storage)
            del weights
            intercept[first : first + width] = stored[0]
            rows, columns = np.nonzero(stored[1:])
            parts.append((rows, columns + first, stored[1:][rows, columns]))
            del stored
        del dims, row_ptr, phi
        rows, columns, values = (np.concatenate(arrays) for arrays in zip(*parts))
        if len(parts) > 1:
            order = np.lexsort((columns, rows))
            rows, columns, values = rows[order], columns[order], values[order]
        self.stats_ = {
            **stats,
            "n_training_rows": len(X),
            "n_dims_trained": int(keys.size),
            "weight_sparsity": 1.0 - rows.size / max(1, keys.size * n_outputs),
        }
        self._set_model(*self._prune(keys, is_single, rows), intercept, rows, columns, values)
        return self

    def _solve_dual(self, phi: CondensedPhi, class_index: np.ndarray, first: int, width: int,
                    inverse_sq: np.ndarray, stats: dict[str, list]) -> np.ndarray:
        """Effective weights (D, width) of outputs first.. by dual coordinate descent
        (poly2_linear.pyx), their statistics appended to stats."""
        labels = class_index if first == 0 else class_index - np.int32(first)
        row_vector, vector_row = identical_rows(phi.row_ptr, phi.dims)
        weights, iterations, converged, gap, alpha_terms, n_support = solve_dual_cd(
            phi.row_ptr, phi.dims, phi.n_single, labels, row_vector, vector_row, width,
            phi.shape[1], *phi.squared_scales, self.C, self.loss == "l2", self.eps,
            self.max_iter, self.seed % 2**64,
        )
        norm = np.einsum("dk,dk,d->k", weights, weights, inverse_sq)
        objective = 0.5 * norm + alpha_terms
        _extend(stats, objective=[float(v) for v in objective],
                iterations=[int(v) for v in iterations],
                converged=[bool(v) for v in converged],
                projected_gradient_gap=[float(v) for v in gap],
                n_support=[int(v) for v in n_support])
        return weights

    def _solve_primal(self, phi: PhiRows, class_index: np.ndarray, first: int, width: int,
                      stats: dict[str, list]) -> np.ndarray:
        """Weights w (D, width) of outputs first.. (not scaled: w . phi(x)) by the primal
        trust-region Newton method (trust_region.py), their statistics appended to stats."""
        weights = np.empty((phi.shape[1], width))
        for k in range(width):
            signs = np.where(class_index == first + k, 1.0, -1.0)
            result = solve_primal_newton(phi, signs, self.C, self.eps, self.max_iter)
            weights[:, k] = result.w
            margins = signs * phi.margins(result.w)
            _extend(stats, objective=[result.objective], iterations=[result.newton_iterations],
                    converged=[result.converged], gradient_ratio=[result.gradient_ratio],
                    cg_iterations=[result.cg_iterations],
                    n_support=[int(np.count_nonzero(margins < 1.0))])
        return weights

    def _fit_real(self, X: RealMatrix, class_index: np.ndarray) -> "Poly2LinearSVM":
        """fit on real-valued rows: phi(x) written out (real_mapping.py), one dual coordinate
        descent per one-vs-rest output (real_dual_cd.pyx)."""
        if self.degree == 2 and self.coef0 < 0:
            raise ValueError("coef0 must be >= 0 for degree 2 on real-valued features (phi "
                             "holds sqrt(2 gamma coef0) x_i)")
        terms = monomials(X, self.degree)
        keys, dims = self._real_dimensions(terms)
        constant, scales = monomial_scales(self.degree, self.gamma, self.coef0)
        # Columns: 0 the constant, then a LINEAR, a SQUARE and a PAIR block over the keys.
        column = 1 + terms.kind.astype(np.int64) * keys.size + dims
        kept = dims >= 0
        n_columns = 1 + 3 * keys.size
        lengths = np.bincount(terms.row[kept], minlength=len(X)) + 1
        indptr = np.zeros(len(X) + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        rows = np.concatenate([np.arange(len(X)), terms.row[kept]])
        order = np.argsort(rows, kind="stable")
        indices = np.concatenate([np.zeros(len(X), np.int64), column[kept]])[order]
        values = np.concatenate([np.full(len(X), constant),
                                 terms.value[kept] * scales[terms.kind[kept]]])[order]
        n_outputs = one_vs_rest_outputs(self.classes_.size)
        diag = 0.5 / self.C if self.loss == "l2" else 0.0
        effective = np.empty((n_columns, n_outputs))
        stats: dict[str, list] = {}
        if self.solver == "primal":
            from scipy.sparse import csr_matrix

            phi = ExplicitPhi(csr_matrix((values, indices, indptr), shape=(len(X), n_columns)))
            effective[:] = self._solve_primal(phi, class_index, 0, n_outputs, stats)
        for k in range(n_outputs if self.solver == "dual" else 0):
            signs = np.where(class_index == k, 1, -1).astype(np.int8)
            w, alpha, passes, converged, gap = solve_dual_cd_real(
                indptr, indices.astype(np.int32), values, signs, n_columns, self.C,
                self.loss == "l2", self.eps, self.max_iter, self.seed % 2**64)
            _extend(stats, objective=[float(0.5 * w @ w + alpha @ (0.5 * diag * alpha - 1.0))],
                    iterations=[int(passes)], converged=[bool(converged)],
                    projected_gradient_gap=[float(gap)],
                    n_support=[int(np.count_nonzero(alpha > 0))])
            effective[:, k] = w
        scale = np.concatenate([[constant], np.repeat(scales, keys.size)])
        effective *= scale[:, None]
        storage = np.dtype(self.dtype)
        linear, square, pair = (effective[1 + b * keys.size : 1 + (b + 1) * keys.size]
                                for b in (LINEAR, SQUARE, PAIR))
        is_single = (keys >> np.uint64(32)) == (keys & _LOW)
        weights = np.where(is_single[:, None], linear + square, pair).astype(storage)
        self.stats_ = {**stats, "n_training_rows": len(X), "n_dims_trained": int(keys.size),
                       "weight_sparsity": 1.0 - np.count_nonzero(weights) / max(1, weights.size)}
        rows_nz, columns_nz = np.nonzero(weights)
        self._set_model(keys, None, effective[0].astype(storage), rows_nz, columns_nz,
                        weights[rows_nz, columns_nz])
        if self.degree == 2:
            self.square_ = square.astype(storage)
        return self

    def _real_dimensions(self, terms: Any) -> tuple[np.ndarray, np.ndarray]:
        """The keys of the model's dimensions (every single, the pairs held by at least
        min_pair_count rows) and each monomial's dimension (-1: a pair dropped)."""
        keys, dims, counts = np.unique(terms.key, return_inverse=True, return_counts=True)
        is_single = (keys >> np.uint64(32)) == (keys & _LOW)
        pair_rows = np.zeros(keys.size, dtype=np.int64)
        pairs = terms.kind == PAIR
        np.add.at(pair_rows, dims.ravel()[pairs], 1)
        keep = is_single | (pair_rows >= self.min_pair_count)
        new_id = np.full(keys.size, -1, dtype=np.int64)
        new_id[keep] = np.arange(int(keep.sum()))
        return keys[keep], new_id[dims.ravel()]

    def decision_function(self, X: BinaryMatrixLike) -> np.ndarray:
        """Decision values (n_rows, n_outputs) of the rows of X: binary ones by the compiled
        scorer, real-valued ones (a RealMatrix, real arrays) by real_mapping's sum; a degree-2
        model trained on binary rows refuses real values (module notes)."""
        scorer = self._fitted()
        X = as_feature_matrix(X)
        if not isinstance(X, RealMatrix):
            return scorer.decision_function(X)
        if self.degree == 2 and self.square_ is None and self.classes_.size > 1:
            raise ValueError("a poly2-linear model trained on binary features scores binary "
                             "features only (its single weights fold x_i and x_i^2 together); "
                             "train it on real values to score them")
        return real_decision_function(X, self.degree, scorer.index, self._dense_weights(),
                                      self.square_, scorer.arrays["intercept"])

    def _dense_weights(self) -> np.ndarray:
        """The stored weights as a dense (D, K) matrix."""
        scorer = self._fitted()
        if not scorer.sparse:
            return scorer.arrays["weights"]
        arrays = scorer.arrays
        dense = np.zeros((len(scorer.index), scorer.n_outputs), dtype=arrays["values"].dtype)
        rows = np.repeat(np.arange(len(scorer.index)), np.diff(arrays["row_ptr"]))
        dense[rows, arrays["columns"]] = arrays["values"]
        return dense

    def _condense(
        self, keys: np.ndarray, row_ptr: np.ndarray, dims: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Drop pairs seen in fewer than min_pair_count rows; number the rest 1.. by count."""
        counts = np.bincount(dims, minlength=keys.size)
        keep = (keys >> np.uint64(32)) == (keys & _LOW)
        keep |= counts >= self.min_pair_count
        kept = np.flatnonzero(keep)
        # Frequent dimensions first, so the weights most rows touch share cache lines.
        kept = kept[np.argsort(-counts[kept], kind="stable")]
        new_id = np.full(keys.size, -1, dtype=np.int32)
        new_id[kept] = np.arange(1, kept.size + 1, dtype=np.int32)
        size = remap_rows(row_ptr, dims, new_id)
        return keys[kept], dims[:size]

    def _prune(
        self, keys: np.ndarray, is_single: np.ndarray, rows: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray]:
        """Keep the dimensions with a nonzero stored weight, plus the singles their pairs need.

        Returns the kept keys and the new index of each old dimension (-1 when dropped).
        """
        keep = np.zeros(keys.size, dtype=bool)
        keep[rows] = True
        pair_keys = keys[keep & ~is_single]
        needed = np.union1d(pair_keys >> np.uint64(32), pair_keys & _LOW)
        single_ids = keys[is_single] & _LOW
        keep[np.flatnonzero(is_single)[np.isin(single_ids, needed)]] = True
        new_index = np.cumsum(keep) - 1
        new_index[~keep] = -1
        return keys[keep], new_index

    def _set_model(
        self,
        keys: np.ndarray,
        new_index: np.ndarray | None,
        intercept: np.ndarray,
        rows: np.ndarray,
        columns: np.ndarray,
        values: np.ndarray,
    ) -> None:
        """Build the scorer from the nonzero weights (rows, columns, values), sorted by row.

        The weights are stored dense (D, K) unless storing them by rows (row_ptr, columns,
        values) takes less memory.
        """
        if new_index is not None:
            rows = new_index[rows]
        index = KeyIndex.from_keys(keys)
        n_dims, n_outputs = keys.size, intercept.size
        dense_bytes = n_dims * n_outputs * values.itemsize
        sparse_bytes = (n_dims + 1) * 8 + rows.size * (4 + values.itemsize)
        if n_outputs == 1 or dense_bytes <= sparse_bytes:
            weights = np.zeros((n_dims, n_outputs), dtype=values.dtype)
            weights[rows, columns] = values
            self._scorer = Poly2LinearScorer(index, self.degree, intercept, weights=weights)
        else:
            row_ptr = np.zeros(n_dims + 1, dtype=np.int64)
            np.cumsum(np.bincount(rows, minlength=n_dims), out=row_ptr[1:])
            self._scorer = Poly2LinearScorer(
                index, self.degree, intercept,
                row_ptr=row_ptr, columns=columns.astype(np.int32), values=values,
            )

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this classifier."""
        scorer = self._fitted()
        assert self.classes_ is not None
        header = {
            "backend": self.backend,
            "degree": self.degree,
            "gamma": self.gamma,
            "coef0": self.coef0,
            "C": self.C,
            "loss": self.loss,
            "eps": self.eps,
            "max_iter": self.max_iter,
            "min_pair_count": self.min_pair_count,
            "seed": self.seed,
            "dtype": self.dtype,
            "solver": self.solver,
            "classes": self.classes_.tolist(),
            "n_outputs": scorer.n_outputs,
            "layout": "sparse" if scorer.sparse else "dense",
            **self.stats_,
        }
        arrays = {"keys": scorer.index.keys(), **scorer.arrays}
        if self.square_ is not None:
            header["feature_values"] = "real"
            arrays["square"] = self.square_
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> "Poly2LinearSVM":
        """Rebuild a classifier from to_arrays() output; ModelFileError names `source`."""
        cls.check_backend(header, source, ("linear", "poly2-linear"))
        clf = cls.__new__(cls)
        with inconsistent(source):
            Poly2LinearSVM.__init__(
                clf,
                degree=header["degree"],
                gamma=header["gamma"],
                coef0=header["coef0"],
                C=header["C"],
                loss=header["loss"],
                eps=header["eps"],
                max_iter=header["max_iter"],
                min_pair_count=header["min_pair_count"],
                seed=header["seed"],
                dtype=header["dtype"],
                solver=header.get("solver", "dual"),
            )
            classes = np.asarray(header["classes"])
            n_outputs = int(header["n_outputs"])
            layout = header["layout"]
        if classes.ndim != 1 or classes.size < 1 or n_outputs != one_vs_rest_outputs(classes.size):
            raise ModelFileError(
                f"{source}: inconsistent model header ({classes.size} classes, {n_outputs} outputs)"
            )
        expected = {"keys": ("uint64", (None,)), "intercept": (clf.dtype, (n_outputs,))}
        if layout == "dense":
            expected["weights"] = (clf.dtype, (None, n_outputs))
        else:
            expected.update(
                row_ptr=("int64", (None,)), columns=("int32", (None,)), values=(clf.dtype, (None,))
            )
        require_arrays(source, arrays, expected)
        with inconsistent(source, "model"):
            index = KeyIndex.from_keys(arrays["keys"])
            if layout == "dense":
                clf._scorer = Poly2LinearScorer(
                    index, clf.degree, arrays["intercept"], weights=arrays["weights"]
                )
            else:
                clf._scorer = Poly2LinearScorer(
                    index, clf.degree, arrays["intercept"],
                    row_ptr=arrays["row_ptr"], columns=arrays["columns"], values=arrays["values"],
                )
        clf.classes_ = classes
        clf.stats_ = {key: header[key] for key in _STATS if key in header}
        if header.get("feature_values") == "real" and clf.degree == 2:
            require_arrays(source, arrays, {"square": (clf.dtype, (len(index), n_outputs))})
            clf.square_ = arrays["square"]
        return clf

    def memory_bytes(self) -> dict[str, int]:
        """Bytes held by each stored array plus the hash table of the condensed index."""
        scorer = self._fitted()
        sizes = {name: int(array.nbytes) for name, array in scorer.arrays.items()}
        slots = 16
        while slots < 2 * len(scorer.index):
            slots *= 2
        sizes["index"] = slots * 12  # KeyIndex.from_keys: uint64 key + int32 id per slot
        return sizes


def _extend(stats: dict[str, list], **values: list) -> None:
    """Append each output's figures to stats (a list per name)."""
    for name, figures in values.items():
        stats.setdefault(name, []).extend(figures)


def _inverse(value: float) -> float:
    return 1.0 / value if value else 0.0


class LinearSVM(Poly2LinearSVM):
    """Degree-1 backend: phi(x) = [sqrt(coef0), sqrt(gamma) x_i] (defaults = liblinear -B 1)."""

    def __init__(
        self,
        gamma: float = _LINEAR["gamma"],
        coef0: float = _LINEAR["coef0"],
        C: float = _LINEAR["C"],
        loss: str = _LINEAR["loss"],
        eps: float = _LINEAR["eps"],
        max_iter: int = _LINEAR["max_iter"],
        seed: int = _LINEAR["seed"],
        dtype: str = _LINEAR["dtype"],
        solver: str = _LINEAR["solver"],
    ) -> None:
        super().__init__(1, gamma, coef0, C, loss, eps, max_iter, 1, seed, dtype, solver)

