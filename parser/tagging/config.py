"""TaggerConfig: what a POS tagger is trained with, checked when it is made (no NumPy here, so
that the command line checks its options before loading anything)."""
from __future__ import annotations

from dataclasses import InitVar, dataclass, field
from typing import Any

from polyparse.classifiers.backends import BACKENDS, check_classifier_params, params_with_seed
from polyparse.classifiers.settings import (
    check_choice,
    check_integer,
    check_positive,
    check_seed,
    settings_over_defaults,
)

# The template sets of parser/tagging/tag_templates.pyx.
TEMPLATE_SETS = ("left", "two-pass")
# How FEATS are predicted (parser/tagging/morphology.py): one classifier per feature, one over
# whole FEATS strings, or none.
FEATS_MODES = ("per-feature", "joint", "none")
# XPOS: in the tagger's joint (UPOS, XPOS) classes, apart (the tagger's classes are UPOS alone,
# XPOS a morphology target, chosen among the XPOS of the word's UPOS), or auto: apart when the
# training data has more than JOINT_TAGS_LIMIT (UPOS, XPOS) pairs, whose one-vs-rest classifier
# would cost time and memory in proportion (UD Korean-GSD has 1,492 pairs: joint, 102 s of
# training and a 262 MB model; apart, 41 s and UPOS 2 points better, XPOS the same).
XPOS_MODES = ("auto", "joint", "apart")
JOINT_TAGS_LIMIT = 200
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
    dictionary); feats: how FEATS are predicted (FEATS_MODES); xpos: XPOS_MODES; morph_C: the
    cost C of the morphology classifiers (parser/tagging/morphology.py: FEATS, XPOS apart,
    lemma scripts); morph_min_feature_count: their rarer features are dropped; min_weight: the
    weights of the `linear` classifiers smaller in magnitude are dropped after training
    (parser/tagging/compact.py; 0: none); word_splits: the templates also read the word's
    splits into known words (parser/tagging/lexicon.py; models trained before them have
    none); seed: the classifiers' seed; threads: classifiers
    trained at once (the model does not depend on it).

    check_backend=False (a model file's config): the settings are left to the backend."""

    template_set: str = "left"
    classifier: str = "linear"
    classifier_params: dict = field(
        default_factory=lambda: dict(CLASSIFIER_DEFAULTS[TaggerConfig.classifier]))
    min_feature_count: int = 1
    min_word_count: int = 4
    ambiguity_min_count: int = 2
    dictionary_min_count: int = 20
    dictionary_min_share: float = 0.01
    feats: str = "per-feature"
    xpos: str = "auto"
    morph_C: float = 0.1
    morph_min_feature_count: int = 1
    min_weight: float = 0.01
    word_splits: bool = True
    seed: int = 0
    threads: int = 2
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
        check_choice("feats", self.feats, FEATS_MODES)
        check_choice("xpos", self.xpos, XPOS_MODES)
        self.morph_C = check_positive("morph_C", self.morph_C)
        self.morph_min_feature_count = check_integer("morph_min_feature_count",
                                                     self.morph_min_feature_count, 1)
        self.min_weight = float(self.min_weight)
        if not (0.0 <= self.min_weight < float("inf")):
            raise ValueError(f"min_weight must be 0 or more, not {self.min_weight}")
        if not isinstance(self.word_splits, bool):
            raise ValueError(f"word_splits must be true or false, not {self.word_splits!r}")
        self.seed = check_seed(self.seed)
        self.threads = check_integer("threads", self.threads, 1)
        self.classifier_params = dict(self.classifier_params)
        check_classifier_params(self.classifier, self.classifier_params, self.seed,
                                CLASSIFIER_DEFAULTS, build=check_backend)


def morph_params(config: TaggerConfig) -> dict:
    """The constructor arguments of the morphology classifiers (`linear`)."""
    return {"C": config.morph_C, "seed": config.seed}


def classifier_params(config: TaggerConfig) -> dict:
    """The backend's constructor arguments, plus the seed where the backend takes one."""
    return params_with_seed(config.classifier, config.classifier_params, config.seed)
