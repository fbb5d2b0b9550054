"""The classifier backends as a Python user meets them: train, load, convert.

Every backend keeps the contract of classifiers/binary_classifier.py: fit(X, y) on a
BinaryMatrix, decision_function(X) of shape (n_rows, n_outputs), predict(X), save(path).
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from polyparse.classifiers.backends import Classifier, new_classifier
from polyparse.classifiers.backends import load_classifier as read_classifier
from polyparse.features.binary_matrix import BinaryMatrix


def train_classifier(X: BinaryMatrix, y: np.ndarray, classifier: str = "poly2-linear",
                     **settings: Any) -> Classifier:
    """A classifier of the named backend (poly2-linear, linear, kernel-svm or pa-slicing)
    fitted on the rows of X with labels y; settings are the backend's constructor arguments."""
    return new_classifier(classifier, **settings).fit(X, y)


def load_classifier(path: str | os.PathLike) -> Classifier:
    """Any classifier model file: ours (every backend, converted evaluators included) or a
    libsvm text model (svm-train, polynomial kernel)."""
    return read_classifier(path)[0]
