"""Backend registry: classifier names of the CLI and of model headers -> classes.

BACKENDS are trained (`--classifier`); CONVERTED_BACKENDS are made from a trained kernel model
by `polyparse clf convert` (one per exact evaluator); model files may hold either.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from classifiers.evaluators.evaluator_model import BACKENDS as EVALUATOR_BACKENDS
from classifiers.evaluators.evaluator_model import KernelEvaluatorModel
from classifiers.kernel_svm.svc import KernelSVM
from classifiers.linear.poly2_linear_svm import LinearSVM, Poly2LinearSVM
from classifiers.model_file import ModelFileError
from classifiers.online.pa_slicing import PASlicing

Classifier = Poly2LinearSVM | KernelSVM | KernelEvaluatorModel | PASlicing

BACKENDS = {
    "poly2-linear": Poly2LinearSVM, "linear": LinearSVM, "kernel-svm": KernelSVM,
    "pa-slicing": PASlicing,
}
CONVERTED_BACKENDS = {name: KernelEvaluatorModel for name in EVALUATOR_BACKENDS.values()}
MODEL_BACKENDS = {**BACKENDS, **CONVERTED_BACKENDS}


def new_classifier(name: str, **params: Any) -> Poly2LinearSVM | KernelSVM | PASlicing:
    if name not in BACKENDS:
        raise ValueError(f"unknown classifier {name!r} (available: {', '.join(BACKENDS)})")
    return BACKENDS[name](**params)


def classifier_from_arrays(header: dict[str, Any], arrays: dict[str, np.ndarray],
                           source: str = "model") -> Classifier:
    backend = header.get("backend")
    if backend not in MODEL_BACKENDS:
        raise ModelFileError(f"{source}: unknown classifier backend {backend!r}")
    return MODEL_BACKENDS[backend].from_arrays(header, arrays, source=source)
