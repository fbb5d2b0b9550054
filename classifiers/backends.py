"""Backend registry: classifier names of the CLI and of model headers -> classes."""
from __future__ import annotations

from typing import Any

import numpy as np

from classifiers.kernel_svm import KernelSVM
from classifiers.model_file import ModelFileError
from classifiers.poly2_linear_svm import LinearSVM, Poly2LinearSVM

BACKENDS = {"poly2-linear": Poly2LinearSVM, "linear": LinearSVM, "kernel-svm": KernelSVM}


def new_classifier(name: str, **params: Any) -> Poly2LinearSVM | KernelSVM:
    if name not in BACKENDS:
        raise ValueError(f"unknown classifier {name!r} (available: {', '.join(BACKENDS)})")
    return BACKENDS[name](**params)


def classifier_from_arrays(header: dict[str, Any], arrays: dict[str, np.ndarray],
                           source: str = "model") -> Poly2LinearSVM | KernelSVM:
    backend = header.get("backend")
    if backend not in BACKENDS:
        raise ModelFileError(f"{source}: unknown classifier backend {backend!r}")
    return BACKENDS[backend].from_arrays(header, arrays, source=source)
