"""ParserConfig: what a dependency parser is trained with, checked when it is made.

The classifier settings of each backend start from the parser's defaults (MaltParser's for the
kernel SVM, `-g 0.2 -r 0.4 -c 1 -e 0.1`; C = 0.1 for the linear backends; J.DepP's PA-I for
pa-slicing); `classifier_options` lays given settings over them and refuses the settings a
backend does not take, so that a mistyped or misplaced option never goes unnoticed.
"""
from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from typing import Any

from polyparse.classifiers.backends import BACKENDS, check_classifier_params, params_with_seed
from polyparse.classifiers.settings import (
    check_choice,
    check_integer,
    check_seed,
    settings_over_defaults,
)
from polyparse.parser.dependency.choices import FEATURE_SETS, SPLIT_COLUMNS, TAG_COLUMNS

# The parser's defaults for each backend's settings (the settings each backend takes).
CLASSIFIER_DEFAULTS: dict[str, dict[str, Any]] = {
    "poly2-linear": {"C": 0.1, "min_pair_count": 1},
    "linear": {"C": 0.1},
    "kernel-svm": {"C": 1.0, "degree": 2, "gamma": 0.2, "coef0": 0.4, "eps": 0.1,
                   "cache_mb": 100.0},
    "pa-slicing": {"C": 1.0, "degree": 2, "iterations": 20, "strategy": "slice",
                   "variant": "pa1", "average": True},
}


def classifier_options(classifier: str, **given: Any) -> dict[str, Any]:
    """The backend's settings: the given ones (None meaning not given) over the parser's
    defaults. ValueError for an unknown backend or a setting it does not take."""
    return settings_over_defaults(classifier, CLASSIFIER_DEFAULTS, **given)


@dataclass
class ParserConfig:
    """feature_set: chang2010 or rich templates; tag_column: the tags the templates read;
    split_column: the tags that split the states (none: one split); split_threshold: splits
    with fewer training states are pooled; single_root: UD trees (one root, attached last);
    classifier and classifier_params: the backend and its constructor arguments;
    min_word_count: rarer training forms are read as unknown; min_feature_count: features
    of fewer training states are dropped (a smaller, faster model); seed: the classifiers' seed;
    threads: splits trained at once (the model does not depend on it).

    check_backend=False (for a model file's config, whose model is built from its arrays):
    the classifier settings' values are left to the backend to check when it trains, so that
    loading a model does not import the backend that trained it."""

    feature_set: str = "chang2010"
    tag_column: str = "xpos"
    split_column: str = "xpos"
    split_threshold: int = 1000
    single_root: bool = True
    classifier: str = "poly2-linear"
    classifier_params: dict = field(
        default_factory=lambda: dict(CLASSIFIER_DEFAULTS[ParserConfig.classifier]))
    min_word_count: int = 1
    min_feature_count: int = 1
    seed: int = 0
    threads: int = 2
    check_backend: InitVar[bool] = True

    def __post_init__(self, check_backend: bool) -> None:
        check_choice("feature set", self.feature_set, FEATURE_SETS)
        check_choice("tag column", self.tag_column, TAG_COLUMNS)
        check_choice("split column", self.split_column, SPLIT_COLUMNS)
        check_choice("classifier", self.classifier, tuple(BACKENDS))
        self.split_threshold = check_integer("split_threshold", self.split_threshold, 1)
        self.min_word_count = check_integer("min_word_count", self.min_word_count, 1)
        self.min_feature_count = check_integer("min_feature_count", self.min_feature_count, 1)
        self.seed = check_seed(self.seed)
        self.threads = check_integer("threads", self.threads, 1)
        self.single_root = bool(self.single_root)
        self.classifier_params = dict(self.classifier_params)
        check_classifier_params(self.classifier, self.classifier_params, self.seed,
                                CLASSIFIER_DEFAULTS, build=check_backend)


def classifier_params(config: ParserConfig) -> dict:
    """The backend's constructor arguments: the configured ones, plus the seed where the
    backend takes one (kernel-svm's SMO is deterministic and has none)."""
    return params_with_seed(config.classifier, config.classifier_params, config.seed)
