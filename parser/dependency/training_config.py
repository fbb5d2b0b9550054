"""The configuration of a dependency parser to train, from the settings a user gives: the one
place that decides which settings go to which kind of parser (the command line and the Python
API both call training_config). Plain Python, so that options are checked before any data is
read or NumPy loads."""
from __future__ import annotations

from dataclasses import fields
from typing import Any

from polyparse.classifiers.settings import SettingNotTaken, check_choice
from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.choices import STRUCTURED
from polyparse.parser.dependency.config import CLASSIFIER_DEFAULTS, ParserConfig, classifier_options

# Settings the data decides (one root per sentence or not), never the user.
FROM_THE_DATA = ("single_root",)
# Where the greedy parser's classifiers train: local worker processes or a Dask cluster; the
# beam search's perceptron learns one sentence after another.
EXECUTOR_SETTINGS = ("workers", "scheduler")


def config_settings(config: type) -> tuple[str, ...]:
    """The settings a configuration class takes from a user."""
    return tuple(f.name for f in fields(config)
                 if f.name not in (*FROM_THE_DATA, "classifier", "classifier_params"))


BACKEND_SETTINGS = tuple(dict.fromkeys(name for settings in CLASSIFIER_DEFAULTS.values()
                                       for name in settings))
GREEDY_SETTINGS = (*config_settings(ParserConfig), *BACKEND_SETTINGS, *EXECUTOR_SETTINGS)
BEAM_SETTINGS = config_settings(BeamConfig)
# Every setting training_config takes, of either parser.
TRAINING_SETTINGS = tuple(dict.fromkeys((*GREEDY_SETTINGS, *BEAM_SETTINGS)))


def training_config(classifier: str = ParserConfig.classifier,
                    **settings: Any) -> ParserConfig | BeamConfig:
    """The configuration of a parser to train: classifier STRUCTURED gives the beam-search
    parser's (BeamConfig), a backend's name the greedy parser's (ParserConfig, the backend's
    settings over the parser's defaults). settings: fields of the configuration, backend
    settings (C, degree, ...) and, for the greedy parser, workers and scheduler (where its
    classifiers train, checked here and not kept); None means not given. SettingNotTaken for a
    setting the chosen parser does not take, ValueError for a value it cannot take."""
    check_choice("classifier", classifier, (*CLASSIFIER_DEFAULTS, STRUCTURED))
    given = {name: value for name, value in settings.items() if value is not None}
    if classifier == STRUCTURED:
        _refuse(given, BEAM_SETTINGS, f"does not apply to --classifier {STRUCTURED}",
                {name: f"does not apply to --classifier {STRUCTURED}, whose perceptron learns "
                       "one sentence after another (workers train a greedy parser's "
                       "classifiers)" for name in EXECUTOR_SETTINGS})
        return BeamConfig(**given)
    _refuse(given, GREEDY_SETTINGS,
            f"does not apply to --classifier {classifier} (only to {STRUCTURED})")
    backend = {name: given.pop(name) for name in BACKEND_SETTINGS if name in given}
    for name in EXECUTOR_SETTINGS:
        given.pop(name, None)
    return ParserConfig(classifier=classifier,
                        classifier_params=classifier_options(classifier, **backend), **given)


def _refuse(given: dict[str, Any], taken: tuple[str, ...], reason: str,
            reasons: dict[str, str] | None = None) -> None:
    """SettingNotTaken for the first given setting that is not taken."""
    for name in given:
        if name not in taken:
            raise SettingNotTaken(name, (reasons or {}).get(name, reason))
