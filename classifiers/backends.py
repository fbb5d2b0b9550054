"""Backend registry: classifier names of the CLI and of model headers -> classes.

BACKENDS are trained (`--classifier`); CONVERTED_BACKENDS are made from a trained kernel model
by `convert_classifier` (`polyparse clf convert`, one per exact evaluator); model files may hold
either, and `load_classifier` also reads libsvm's text model files (into kernel-svm) and
liblinear's (into linear).

The registry knows each class by module and name and imports it when it is first asked for, so
that a command knows the names (its `--classifier` choices) without importing any backend, and
a parse imports only the backends its model holds.
"""
from __future__ import annotations

import importlib
import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from polyparse.classifiers.evaluators.choices import CONVERSIONS, DEFAULT_RARE_THRESHOLD
from polyparse.classifiers.settings import settings_over_defaults

if TYPE_CHECKING:
    import numpy as np

    from polyparse.classifiers.evaluators.evaluator_model import KernelEvaluatorModel
    from polyparse.classifiers.kernel_svm.svc import KernelSVM
    from polyparse.classifiers.linear.poly2_linear_svm import Poly2LinearSVM
    from polyparse.classifiers.online.pa_slicing import PASlicing

    Classifier = Poly2LinearSVM | KernelSVM | KernelEvaluatorModel | PASlicing
    # Classifiers whose decision function is a kernel expansion (evaluated by any exact
    # evaluator).
    KernelModel = KernelSVM | PASlicing
else:
    Classifier = Any
    KernelModel = Any

# How a liblinear model file starts (`solver_type L2R_L2LOSS_SVC_DUAL`).
LIBLINEAR_START = b"solver_type "
# The backends whose models are kernel expansions: they convert to the exact evaluators.
KERNEL_BACKENDS = ("kernel-svm", "pa-slicing")
_EVALUATOR_MODEL = "polyparse.classifiers.evaluators.evaluator_model:KernelEvaluatorModel"


class LazyClasses(Mapping[str, type]):
    """A read-only mapping name -> class whose classes are imported when first looked up."""

    def __init__(self, places: dict[str, str]) -> None:
        self._places = dict(places)
        self._classes: dict[str, type] = {}

    def __getitem__(self, name: str) -> type:
        found = self._classes.get(name)
        if found is None:
            module, _, attribute = self._places[name].partition(":")
            found = self._classes[name] = getattr(importlib.import_module(module), attribute)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._places

    def __iter__(self) -> Iterator[str]:
        return iter(self._places)

    def __len__(self) -> int:
        return len(self._places)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(self._places)})"


BACKENDS = LazyClasses({
    "poly2-linear": "polyparse.classifiers.linear.poly2_linear_svm:Poly2LinearSVM",
    "linear": "polyparse.classifiers.linear.poly2_linear_svm:LinearSVM",
    "kernel-svm": "polyparse.classifiers.kernel_svm.svc:KernelSVM",
    "pa-slicing": "polyparse.classifiers.online.pa_slicing:PASlicing",
})
CONVERTED_BACKENDS = LazyClasses({name: _EVALUATOR_MODEL for name in CONVERSIONS.values()})
MODEL_BACKENDS = LazyClasses({
    **{name: BACKENDS._places[name] for name in BACKENDS},
    **{name: _EVALUATOR_MODEL for name in CONVERSIONS.values()},
})


def is_kernel_model(clf: Any) -> bool:
    """Whether clf is a trained kernel model (kernel-svm, pa-slicing): a kernel expansion that
    converts to any exact evaluator."""
    return getattr(clf, "backend", None) in KERNEL_BACKENDS


def new_classifier(name: str, **params: Any) -> Poly2LinearSVM | KernelSVM | PASlicing:
    """A classifier of the named backend with the given settings; ValueError for an unknown
    backend or a setting the backend does not take (naming the ones it takes)."""
    if name not in BACKENDS:
        raise ValueError(f"unknown classifier {name!r} (available: {', '.join(BACKENDS)})")
    accepted = backend_settings(name)
    unknown = sorted(set(params) - set(accepted))
    if unknown:
        raise ValueError(f"{name} does not take {', '.join(unknown)} (its settings: "
                         f"{', '.join(accepted)})")
    return BACKENDS[name](**params)


def params_with_seed(name: str, params: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """The named backend's constructor arguments: params, plus the seed where the backend takes
    one (kernel-svm's SMO is deterministic and has none)."""
    given = dict(params)
    if "seed" in backend_settings(name):
        given["seed"] = seed
    return given


def check_classifier_params(name: str, params: Mapping[str, Any], seed: int,
                            defaults: Mapping[str, Mapping[str, Any]],
                            build: bool = True) -> None:
    """ValueError when the named backend does not take params. build: the backend is made with
    them (and the seed), so that it checks their values too; otherwise (a model file's
    settings, whose model is made from its arrays) they are only laid over the application's
    defaults, which refuse a setting the backend does not take, without importing it."""
    if not build:
        settings_over_defaults(name, defaults, **params)
        return
    try:
        new_classifier(name, **params_with_seed(name, params, seed))
    except TypeError as error:
        raise ValueError(f"{name}: {error}") from None


def backend_settings(name: str) -> list[str]:
    """The keyword settings of the named backend's constructor, in order."""
    import inspect

    parameters = list(inspect.signature(BACKENDS[name].__init__).parameters.values())[1:]
    return [parameter.name for parameter in parameters
            if parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)]


def classifier_from_arrays(header: dict[str, Any], arrays: dict[str, np.ndarray],
                           source: str = "model") -> Classifier:
    backend = header.get("backend")
    if backend not in MODEL_BACKENDS:
        from polyparse.classifiers.model_file import ModelFileError

        raise ModelFileError(f"{source}: unknown classifier backend {backend!r}")
    return MODEL_BACKENDS[backend].from_arrays(header, arrays, source=source)


def load_classifier(path: str | os.PathLike) -> tuple[Classifier, dict[str, Any]]:
    """Classifier and header of a polyparse-clf model file, of a libsvm text model file
    (header {"format": "libsvm", "backend": "kernel-svm"}) or of a liblinear one ({"format":
    "liblinear", "backend": "linear", "solver_type": ...}); one-line ModelFileError when the
    file cannot be used. The file is read once (it may be a pipe)."""
    from polyparse.classifiers.model_file import model_file_data
    from polyparse.features.input_files import input_name

    return classifier_of_data(model_file_data(path), input_name(path))


def classifier_of_data(data: Any, source: str) -> tuple[Classifier, dict[str, Any]]:
    """load_classifier of a model file's bytes (model_file_data), named source."""
    from polyparse.classifiers.kernel_svm.libsvm_model import MAGIC as LIBSVM_START
    from polyparse.classifiers.kernel_svm.libsvm_model import parse_libsvm_model
    from polyparse.classifiers.model_file import CLASSIFIER_FORMAT, ModelFileError, decode_model

    start = bytes(data[:max(len(LIBSVM_START), len(LIBLINEAR_START))])
    if start.startswith(LIBSVM_START):
        kernel_svm = BACKENDS["kernel-svm"]
        clf = kernel_svm.from_expansion(parse_libsvm_model(bytes(data), source).expansion)
        return clf, {"format": "libsvm", "backend": clf.backend}
    if start.startswith(LIBLINEAR_START):
        from polyparse.classifiers.linear.liblinear_model import parse_liblinear_model

        linear = parse_liblinear_model(bytes(data), source)
        return linear, {"format": "liblinear", "backend": linear.backend,
                        "solver_type": linear.stats_["solver_type"]}
    header, arrays = decode_model(data, source, CLASSIFIER_FORMAT)
    backend = header.get("backend")
    if backend not in MODEL_BACKENDS:
        raise ModelFileError(f"{source}: holds a {backend} model, which this polyparse cannot "
                             "load")
    return classifier_from_arrays(header, arrays, source=source), header


def convert_classifier(clf: Classifier, to: str,
                       rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD,
                       stats: dict[str, Any] | None = None) -> KernelEvaluatorModel:
    """A kernel model (kernel-svm, libsvm, pa-slicing, or one kept as its pki index, which
    holds every support vector) kept as one of its exact evaluators: `to` is split, pki or pke
    (rare_threshold: split only). ValueError (one sentence) for a model without support
    vectors, a split or PKE one, or one of a single class."""
    backend = getattr(clf, "backend", None)
    if to != "split" and rare_threshold != DEFAULT_RARE_THRESHOLD:
        raise ValueError(f"the rare threshold applies to the split evaluator, not {to}")
    if backend == CONVERSIONS["pki"]:
        return clf.reconverted(to, rare_threshold)
    if not is_kernel_model(clf):
        what = ("a converted model without its support vectors (convert the kernel model "
                "or the pki model it came from)" if backend in CONVERTED_BACKENDS
                else "explicit weights, no support vectors")
        raise ValueError(f"it holds a {backend} model ({what}); only kernel-svm, "
                         "pa-slicing, libsvm and pki models convert")
    evaluator_model = CONVERTED_BACKENDS[CONVERSIONS["split"]]
    if clf.backend == "pa-slicing":
        return evaluator_model.convert_one_vs_rest(clf.expansion_, clf.classes_, to,
                                                   rare_threshold, stats)
    return evaluator_model.convert(clf.expansion_, to, rare_threshold, stats)
