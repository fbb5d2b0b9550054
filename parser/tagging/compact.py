"""Smaller tagger models: the weights of a `linear` classifier whose magnitude is below a
threshold dropped, and the features left without weights dropped from its vocabulary.

One-vs-rest linear SVMs over many classes give almost every feature of every support vector a
weight in almost every class, most of them tiny (UD Korean-GSD's 1,494 XPOS outputs: 7.6
million weights, half below 0.0015 in magnitude); a word's decision values move by the sum of
its few features' tiny weights, far below the margins. Dropping them is the truncation of
Langford, Li & Zhang 2009 ("Sparse online learning via truncated gradient"), applied once after
training.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polyparse.classifiers.backends import classifier_from_arrays
from polyparse.features.vocab import FeatureVocab


def is_linear(clf: Any) -> bool:
    """Whether clf is a fitted `linear` classifier (degree 1) with float32 weights."""
    return getattr(clf, "backend", None) == "linear" and getattr(clf, "dtype", None) == "float32"


def compact_linear(vocab: FeatureVocab, clf: Any, min_weight: float) -> tuple[FeatureVocab, Any]:
    """The vocabulary and `linear` classifier with the weights below min_weight in magnitude
    dropped (0: none) and the features without a weight left out of both (ranks renumbered in
    their order, so still by frequency)."""
    header, arrays = clf.to_arrays()
    n_outputs = arrays["intercept"].size
    keys = arrays["keys"]
    if "weights" in arrays:
        dense = arrays["weights"]
        rows, columns = np.nonzero(dense)
        values = dense[rows, columns]
    else:
        row_ptr = arrays["row_ptr"]
        rows = np.repeat(np.arange(keys.size), np.diff(row_ptr))
        columns, values = arrays["columns"], arrays["values"]
    keep = np.abs(values) >= min_weight
    keep &= values != 0
    rows, columns, values = rows[keep], columns[keep], values[keep]
    ranks = (keys & np.uint64(0xFFFFFFFF)).astype(np.int64)
    used = np.unique(ranks[rows])
    new_rank = np.full(len(vocab), -1, dtype=np.int64)
    new_rank[used] = np.arange(used.size)
    rows = new_rank[ranks[rows]]
    order = np.lexsort((columns, rows))
    rows, columns, values = rows[order], columns[order], values[order]
    new_keys = np.arange(used.size, dtype=np.uint64)
    row_ptr = np.zeros(used.size + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=used.size), out=row_ptr[1:])
    header = {**header, "layout": "sparse"}
    new_arrays = {"keys": (new_keys << np.uint64(32)) | new_keys,
                  "intercept": arrays["intercept"], "row_ptr": row_ptr,
                  "columns": columns.astype(np.int32), "values": values}
    assert n_outputs == new_arrays["intercept"].size
    return (FeatureVocab(vocab.keys[used], vocab.counts[used]),
            classifier_from_arrays(header, new_arrays, "compacted classifier"))
