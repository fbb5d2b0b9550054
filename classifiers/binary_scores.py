"""Scores of binary decisions: accuracy, and precision, recall and F1 of the positive class.

    P = tp / (tp + fp),  R = tp / (tp + fn),  F1 = 2 P R / (P + R)   (percentages; 0 when a
    denominator is 0), as SVM-light reports them for the +1 class.
"""
from __future__ import annotations

import numpy as np


def precision_recall_f1(tp: int, fp: int, fn: int) -> dict[str, float]:
    """P, R and F1 in percent from the counts of true positives, false positives and misses."""
    precision = 100.0 * tp / (tp + fp) if tp + fp else 0.0
    recall = 100.0 * tp / (tp + fn) if tp + fn else 0.0
    f1 = 2.0 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "F1": f1}


def positive_class_scores(gold: np.ndarray, predicted: np.ndarray) -> dict[str, float | int]:
    """Accuracy and P / R / F1 of the positive class for boolean arrays (True = positive)."""
    gold = np.asarray(gold, dtype=bool)
    predicted = np.asarray(predicted, dtype=bool)
    if gold.shape != predicted.shape:
        raise ValueError(f"{gold.size} gold decisions for {predicted.size} predicted ones")
    tp = int(np.count_nonzero(gold & predicted))
    fp = int(np.count_nonzero(~gold & predicted))
    fn = int(np.count_nonzero(gold & ~predicted))
    correct = int(np.count_nonzero(gold == predicted))
    accuracy = 100.0 * correct / gold.size if gold.size else 0.0
    return {"accuracy": accuracy, **precision_recall_f1(tp, fp, fn), "tp": tp, "fp": fp,
            "fn": fn, "correct": correct}
