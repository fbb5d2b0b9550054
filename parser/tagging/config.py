"""TaggerConfig: what a POS tagger is trained with, checked when it is made (no NumPy here, so
that the command line checks its options before loading anything)."""
from __future__ import annotations

import inspect
from dataclasses import InitVar, dataclass, field
from typing import Any

from classifiers.backends import BACKENDS, new_classifier
from classifiers.settings import (
    check_choice,
    check_integer,
    check_seed,
    settings_over_defaults,
)

# The template sets of parser/tagging/tag_templates.pyx.
TEMPLATE_SETS = ("left", "two-pass")
# The tagger's defaults for each backend's settings (the settings each backend takes), the
# default backend first. `linear` is the default: the templates already hold the conjunctions
# that matter (tag and word pairs, shape and suffix), and on 2,000 EWT training sentences
# poly2-linear's conjunctions of every pair of templates tagged dev 0.4 points worse (UPOS), took
# 17 times the training time and tagged 17 times slower.
CLASSIFIER_DEFAULTS: dict[str, dict[str, Any]] = {
    "linear": {"C": 0.1},
    "poly2-linear": {"C": 0.05, "min_pair_count": 3},
    "kernel-svm": {"C": 1.0, "degree": 2, "gamma": 0.2, "coef0": 0.4, "eps": 0.1,
                   "cache_mb": 100.0},
    "pa-slicing": {"C": 1.0, "degree": 2, "iterations": 10, "strategy": "slice",
                   "variant": "pa1", "average": True},
}


def classifier_options(classifier: str, **given: Any) -> dict[str, Any]:
    """The backend's settings: the given ones (None meaning not given) over the tagger's
    defaults. ValueError for an unknown backend or a setting it does not take."""
    return settings_over_defaults(classifier, CLASSIFIER_DEFAULTS, **given)


@dataclass
class TaggerConfig:
    """template_set: left (left-to-right, ambiguity classes on the right) or two-pass (a
    second tagger reading the first one's tags of the next words); classifier and
    classifier_params: the backend and its constructor arguments; min_feature_count: rarer
    features are dropped; min_word_count: rarer forms (and lowercases) have no word-identity
    feature, and in training the ambiguity class of their other forms only, standing for
    unknown words (parser/tagging/lexicon.py); ambiguity_min_count: lowercases seen less often
    have no ambiguity class; dictionary_min_count: forms seen this often only get the tags
    that made at least dictionary_min_share of their occurrences in training (0: no tag
    dictionary); seed: the classifiers' seed.

    check_backend=False (a model file's config): the settings are left to the backend."""

    template_set: str = "left"
    classifier: str = "linear"
    classifier_params: dict = field(
        default_factory=lambda: dict(CLASSIFIER_DEFAULTS[TaggerConfig.classifier]))
    min_feature_count: int = 1
    min_word_count: int = 1
    ambiguity_min_count: int = 2
    dictionary_min_count: int = 20
    dictionary_min_share: float = 0.01
    seed: int = 0
    check_backend: InitVar[bool] = True

    def __post_init__(self, check_backend: bool) -> None:
        check_choice("template set", self.template_set, TEMPLATE_SETS)
        check_choice("classifier", self.classifier, tuple(BACKENDS))
        self.min_feature_count = check_integer("min_feature_count", self.min_feature_count, 1)
        self.min_word_count = check_integer("min_word_count", self.min_word_count, 1)
        self.ambiguity_min_count = check_integer("ambiguity_min_count",
                                                 self.ambiguity_min_count, 1)
        self.dictionary_min_count = check_integer("dictionary_min_count",
                                                  self.dictionary_min_count, 0)
        self.dictionary_min_share = float(self.dictionary_min_share)
        if not 0.0 <= self.dictionary_min_share <= 0.5:
            raise ValueError(f"dictionary_min_share must be 0 to 0.5, not "
                             f"{self.dictionary_min_share}")
        self.seed = check_seed(self.seed)
        self.classifier_params = dict(self.classifier_params)
        if not check_backend:
            classifier_options(self.classifier, **self.classifier_params)
            return
        try:
            new_classifier(self.classifier, **classifier_params(self))
        except TypeError as error:
            raise ValueError(f"{self.classifier}: {error}") from None


def classifier_params(config: TaggerConfig) -> dict:
    """The backend's constructor arguments, plus the seed where the backend takes one."""
    params = dict(config.classifier_params)
    if "seed" in inspect.signature(BACKENDS[config.classifier]).parameters:
        params["seed"] = config.seed
    return params
