"""FeatureVocab: feature keys frozen into ids ranked by frequency (0 = most frequent).

Ties are broken by key, so the ranking is deterministic and "common feature" means "id < N".
"""
from __future__ import annotations

import numpy as np

from polyparse.features.key_index import KeyIndex


class FeatureVocab:
    def __init__(self, keys: np.ndarray, counts: np.ndarray) -> None:
        self.keys = np.ascontiguousarray(keys, dtype=np.uint64)
        self.counts = np.ascontiguousarray(counts, dtype=np.int64)
        if self.keys.shape != self.counts.shape:
            raise ValueError("keys and counts differ in length")
        self.index = KeyIndex.from_keys(self.keys)

    @classmethod
    def count(cls, keys: np.ndarray, min_count: int = 1) -> "FeatureVocab":
        """Count every key occurrence in `keys` (any shape) and rank them."""
        unique, counts = np.unique(np.asarray(keys, dtype=np.uint64).ravel(), return_counts=True)
        keep = counts >= min_count
        unique, counts = unique[keep], counts[keep]
        order = np.lexsort((unique, -counts))
        return cls(unique[order], counts[order])

    def __len__(self) -> int:
        return int(self.keys.shape[0])

    def transform(self, keys: np.ndarray) -> np.ndarray:
        """Ranks of keys (same shape), -1 for keys outside the vocabulary."""
        return self.index.lookup(keys)
