"""Backend registry: classifier names of the CLI and of model headers -> classes.

BACKENDS are trained (`--classifier`); CONVERTED_BACKENDS are made from a trained kernel model
by `convert_classifier` (`polyparse clf convert`, one per exact evaluator); model files may hold
either, and `load_classifier` also reads libsvm's text model files.
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from classifiers.evaluators.evaluator_model import BACKENDS as EVALUATOR_BACKENDS
from classifiers.evaluators.evaluator_model import KernelEvaluatorModel
from classifiers.evaluators.split_svm import DEFAULT_RARE_THRESHOLD
from classifiers.kernel_svm.libsvm_model import is_libsvm_model
from classifiers.kernel_svm.svc import KernelSVM
from classifiers.linear.poly2_linear_svm import LinearSVM, Poly2LinearSVM
from classifiers.model_file import CLASSIFIER_FORMAT, ModelFileError, read_model_file
from classifiers.online.pa_slicing import PASlicing

Classifier = Poly2LinearSVM | KernelSVM | KernelEvaluatorModel | PASlicing
# Classifiers whose decision function is a kernel expansion (evaluated by any exact evaluator).
KernelModel = KernelSVM | PASlicing
KERNEL_MODELS = (KernelSVM, PASlicing)

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


def load_classifier(path: str | os.PathLike) -> tuple[Classifier, dict[str, Any]]:
    """Classifier and header of a polyparse-clf model file, or of a libsvm text model file
    (header {"format": "libsvm", "backend": "kernel-svm"}); one-line ModelFileError when the
    file cannot be used."""
    if is_libsvm_model(path):
        clf = KernelSVM.load_libsvm(path)
        return clf, {"format": "libsvm", "backend": clf.backend}
    header, arrays = read_model_file(path, CLASSIFIER_FORMAT)
    backend = header.get("backend")
    if backend not in MODEL_BACKENDS:
        raise ModelFileError(f"{path}: holds a {backend} model, which this polyparse cannot load")
    return classifier_from_arrays(header, arrays, source=str(path)), header


def convert_classifier(clf: Classifier, to: str,
                       rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD,
                       stats: dict[str, Any] | None = None) -> KernelEvaluatorModel:
    """A kernel model (kernel-svm, libsvm, pa-slicing) kept as one of its exact evaluators:
    `to` is split, pki or pke (rare_threshold: split only). ValueError (one sentence) for a
    model without support vectors, a converted one, or one of a single class."""
    if not isinstance(clf, (KernelSVM, PASlicing)):
        what = ("a converted model (convert the kernel model it came from)"
                if isinstance(clf, KernelEvaluatorModel)
                else "explicit weights, no support vectors")
        raise ValueError(f"it holds a {clf.backend} model ({what}); only kernel-svm, "
                         "pa-slicing and libsvm models convert")
    if to != "split" and rare_threshold != DEFAULT_RARE_THRESHOLD:
        raise ValueError(f"the rare threshold applies to the split evaluator, not {to}")
    if isinstance(clf, PASlicing):
        return KernelEvaluatorModel.convert_one_vs_rest(clf.expansion_, clf.classes_, to,
                                                        rare_threshold, stats)
    return KernelEvaluatorModel.convert(clf.expansion_, to, rare_threshold, stats)
