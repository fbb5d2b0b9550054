"""A linear SVM on rows of feature keys, read back as explicit weights.

The classifier is the project's `linear` backend (L2-regularized L2-loss SVM by dual
coordinate descent, Hsieh et al. 2008, classifiers/linear/) over the binary features of the
rows' keys (features seen fewer than min_count times left out). Its weights are read back as
explicit weights w and bias b: b is the decision value of the empty row and b + w_i that of
feature i alone, so that b + the sum of w over a row's features is the backend's decision
value (parser/segmentation/boundary_decoder.pyx: LinearWeights).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.segmentation.boundary_decoder import LinearWeights

__all__ = ["fit_linear"]


def fit_linear(keys: np.ndarray, labels: np.ndarray, C: float, min_count: int, seed: int
               ) -> tuple[LinearWeights, dict[str, Any]]:
    """A linear SVM on the binary features of rows of keys with labels 1 / 0, as explicit
    weights of its nonzero features (label 1 where the score is positive), and its statistics."""
    from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM

    labels = np.asarray(labels, dtype=np.int32)
    if labels.size == 0 or labels.min() == labels.max():
        # One class seen (or none): a constant decision.
        bias = 1.0 if labels.size and labels[0] == 1 else -1.0
        return (LinearWeights(np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.float32), bias),
                {"rows": int(labels.size), "features": 0})
    vocab = FeatureVocab.count(keys, min_count)
    ranks = np.sort(vocab.transform(keys), axis=1)
    present = ranks >= 0
    indptr = np.zeros(ranks.shape[0] + 1, dtype=np.int64)
    np.cumsum(present.sum(axis=1), out=indptr[1:])
    matrix = BinaryMatrix(indptr, ranks[present].astype(np.int32), len(vocab), validate=False)
    classifier = LinearSVM(C=C, seed=seed).fit(matrix, labels)
    n = len(vocab)
    # Decision values of the empty row and of each feature alone: b, and b + w_i.
    singles = BinaryMatrix(np.concatenate([[0], np.arange(n + 1)]),
                           np.arange(n, dtype=np.int32), n, validate=False)
    values = classifier.decision_function(singles)[:, 0].astype(np.float64)
    if classifier.classes_[0] != 1:
        values = -values
    bias = float(values[0])
    weights = (values[1:] - bias).astype(np.float32)
    kept = np.flatnonzero(weights)
    order = kept[np.argsort(vocab.keys[kept], kind="stable")]
    stats = {"rows": int(labels.size), "positive": int(labels.sum()), "features": n,
             "nonzero_weights": int(order.size),
             "objective": float(classifier.stats_["objective"][0]),
             "iterations": int(classifier.stats_["iterations"][0])}
    return LinearWeights(vocab.keys[order], weights[order], bias), stats
