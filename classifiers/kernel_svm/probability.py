"""Class probabilities of a one-vs-one SVM as libsvm's `-b 1` computes them.

Training (libsvm's svm_binary_svc_probability): for each pair of classes, the decision values
of its rows come from a 5-fold cross-validation on that pair's problem (rows shuffled once, each
fold predicted by an SVM trained on the other four with the same kernel, C and class weights),
and Platt's sigmoid P(y = +1 | f) = 1 / (1 + exp(A f + B)) is fitted to them by Newton's method
with a backtracking line search on the regularised targets of Lin, Lin & Weng 2007, "A note on
Platt's probabilistic outputs for support vector machines", Machine Learning 68, Algorithm 1:

    min_{A,B} sum_i -t_i log p_i - (1 - t_i) log(1 - p_i),   p_i = sigmoid(f_i A + B),
    t_i = (N+ + 1) / (N+ + 2) for y_i = +1, 1 / (N- + 2) for y_i = -1.

Prediction (svm_predict_probability): r_ij = sigmoid(d_ij A_ij + B_ij), clipped to
[1e-7, 1 - 1e-7], r_ji = 1 - r_ij; two classes give (r_01, r_10); more are coupled by Wu, Lin &
Weng 2004, "Probability estimates for multi-class classification by pairwise coupling", JMLR 5,
method 2 (min_p 0.5 sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2 with sum p = 1, by libsvm's
fixed-point iteration).
"""
from __future__ import annotations

from collections.abc import Callable

import numpy as np

MIN_PROBABILITY = 1e-7
FOLDS = 5


def sigmoid_predict(values: np.ndarray, A: float, B: float) -> np.ndarray:
    """1 / (1 + exp(A f + B)) for each decision value f, without overflow (libsvm's form)."""
    fApB = np.asarray(values, dtype=np.float64) * A + B
    with np.errstate(over="ignore"):
        positive = np.exp(-np.abs(fApB))
    return np.where(fApB >= 0, positive / (1.0 + positive), 1.0 / (1.0 + positive))


def _objective(values: np.ndarray, targets: np.ndarray, A: float, B: float) -> float:
    fApB = values * A + B
    return float(np.sum(np.where(fApB >= 0, targets * fApB + np.log1p(np.exp(-np.abs(fApB))),
                                 (targets - 1) * fApB + np.log1p(np.exp(-np.abs(fApB))))))


def sigmoid_train(values: np.ndarray, positive: np.ndarray) -> tuple[float, float]:
    """(A, B) of Platt's sigmoid fitted to decision values and whether each row is of the
    positive class, by libsvm's sigmoid_train (Lin, Lin & Weng 2007, Algorithm 1)."""
    values = np.asarray(values, dtype=np.float64)
    positive = np.asarray(positive, dtype=bool)
    prior1 = float(np.count_nonzero(positive))
    prior0 = float(positive.size) - prior1
    targets = np.where(positive, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0))
    A, B = 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0)))
    fval = _objective(values, targets, A, B)
    for _ in range(100):
        fApB = values * A + B
        with np.errstate(over="ignore"):
            e = np.exp(-np.abs(fApB))
        p = np.where(fApB >= 0, e / (1.0 + e), 1.0 / (1.0 + e))
        q = 1.0 - p
        d2 = p * q
        h11 = 1e-12 + float(values @ (values * d2))
        h22 = 1e-12 + float(d2.sum())
        h21 = float(values @ d2)
        d1 = targets - p
        g1, g2 = float(values @ d1), float(d1.sum())
        if abs(g1) < 1e-5 and abs(g2) < 1e-5:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= 1e-10:
            newA, newB = A + step * dA, B + step * dB
            newf = _objective(values, targets, newA, newB)
            if newf < fval + 0.0001 * step * gd:
                A, B, fval = newA, newB, newf
                break
            step /= 2.0
        if step < 1e-10:
            break
    return A, B


def cross_validated_values(n_rows: int, positive: np.ndarray, seed: int,
                           fit_predict: Callable[[np.ndarray, np.ndarray], np.ndarray]
                           ) -> np.ndarray:
    """Decision values of a binary problem's rows by FOLDS-fold cross-validation, as libsvm's
    svm_binary_svc_probability: the rows shuffled once (a seeded generator here, libsvm's rand()
    there), fold k the rows k n / 5 .. (k + 1) n / 5 - 1 of that order, each predicted by
    fit_predict(training rows, rows to predict) (positive: the +1 side); a fold whose training
    rows hold one class gets +1 or -1, as libsvm gives it."""
    order = np.random.default_rng(seed).permutation(n_rows)
    values = np.zeros(n_rows)
    for k in range(FOLDS):
        held = order[k * n_rows // FOLDS : (k + 1) * n_rows // FOLDS]
        rest = np.concatenate([order[: k * n_rows // FOLDS],
                               order[(k + 1) * n_rows // FOLDS :]])
        n_positive = int(np.count_nonzero(positive[rest]))
        if rest.size == 0:
            values[held] = 0.0
        elif n_positive == rest.size:
            values[held] = 1.0
        elif n_positive == 0:
            values[held] = -1.0
        else:
            values[held] = fit_predict(rest, held)
    return values


def pairwise_coupling(r: np.ndarray) -> np.ndarray:
    """Class probabilities (k,) from pairwise ones r (k, k), r[i, j] = P(i | i or j): libsvm's
    multiclass_probability (Wu, Lin & Weng 2004, method 2)."""
    k = r.shape[0]
    Q = -r.T * r
    np.fill_diagonal(Q, 0.0)
    Q[np.diag_indices(k)] = (r * r).sum(axis=0) - np.diag(r) ** 2
    p = np.full(k, 1.0 / k)
    for _ in range(max(100, k)):
        Qp = Q @ p
        pQp = float(p @ Qp)
        if np.max(np.abs(Qp - pQp)) < 0.005 / k:
            break
        for t in range(k):
            diff = (-Qp[t] + pQp) / Q[t, t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t, t] + 2 * Qp[t])) / (1 + diff) / (1 + diff)
            Qp = (Qp + diff * Q[t]) / (1 + diff)
            p /= 1 + diff
    return p


def pair_probabilities(values: np.ndarray, prob_a: np.ndarray, prob_b: np.ndarray,
                       n_classes: int) -> np.ndarray:
    """Class probabilities (n, n_classes) of one-vs-one decision values (n, n_pairs) in
    libsvm's pair order, from each pair's sigmoid (libsvm's svm_predict_probability)."""
    n = values.shape[0]
    out = np.empty((n, n_classes))
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    r = np.zeros((n, n_classes, n_classes))
    for p, (i, j) in enumerate(pairs):
        clipped = np.clip(sigmoid_predict(values[:, p], prob_a[p], prob_b[p]),
                          MIN_PROBABILITY, 1 - MIN_PROBABILITY)
        r[:, i, j], r[:, j, i] = clipped, 1 - clipped
    if n_classes == 2:
        out[:, 0], out[:, 1] = r[:, 0, 1], r[:, 1, 0]
        return out
    for row in range(n):
        out[row] = pairwise_coupling(r[row])
    return out
