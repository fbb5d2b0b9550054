"""Every backend's settings, declared once: which backends take each, its default for each, its
type and meaning. The backends' constructors take their defaults from DEFAULTS (and check the
values); the command line builds its options from SETTINGS (`clf train`, and the settings each
application exposes in `dep`, `tag` and `ja train`); a trained model's canonical command is
written back from the same table (setting_words). Plain Python (no NumPy), so that a command
checks its options before anything heavy loads.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from polyparse.classifiers.online.choices import STRATEGIES, VARIANTS

# class_weight "balanced": each class weighted n / (k n_c) (k classes, n_c rows of class c),
# as libsvm's tools and scikit-learn do.
BALANCED = "balanced"
# The linear backends' solvers: dual coordinate descent, primal trust-region Newton.
SOLVERS = ("dual", "primal")

# Each backend's settings (its constructor's keywords, in order) and their defaults. kernel-svm's
# probability and probability_seed (libsvm's -b 1: classifiers/kernel_svm/probability.py) are
# Python settings (polyparse.sklearn's predict_proba), with no command-line Setting.
DEFAULTS: dict[str, dict[str, Any]] = {
    "poly2-linear": {"degree": 2, "gamma": 1.0, "coef0": 1.0, "C": 1.0, "loss": "l2",
                     "eps": 0.1, "max_iter": 1000, "min_pair_count": 1, "seed": 1,
                     "dtype": "float32", "solver": "dual"},
    "linear": {"gamma": 1.0, "coef0": 1.0, "C": 1.0, "loss": "l2", "eps": 0.1,
               "max_iter": 1000, "seed": 1, "dtype": "float32", "solver": "dual"},
    "kernel-svm": {"degree": 2, "gamma": 1.0, "coef0": 1.0, "C": 1.0, "eps": 0.001,
                   "cache_mb": 100.0, "shrinking": True, "class_weight": None,
                   "max_iter": None, "threads": 1, "probability": False,
                   "probability_seed": 1},
    "pa-slicing": {"degree": 2, "C": 1.0, "variant": "pa1", "iterations": 20, "average": True,
                   "strategy": "slice", "n_common": None, "max_table_mb": None, "seed": 1,
                   "threads": 1, "early_termination": True},
}


def class_weights(given: list[str]) -> dict[int | float, float] | str:
    """--class-weight values (each LABEL:WEIGHT, or `balanced` alone) as KernelSVM takes them;
    ValueError naming a value that is neither."""
    if BALANCED in given:
        if len(given) > 1:
            raise ValueError(f"{BALANCED} weighs every class; it takes no LABEL:WEIGHT beside "
                             "it")
        return BALANCED
    weights: dict[int | float, float] = {}
    for text in given:
        label_text, colon, weight_text = text.rpartition(":")
        try:
            label = float(label_text)
            weights[int(label) if label.is_integer() else label] = float(weight_text)
        except ValueError:
            raise ValueError(f"{text!r} is not LABEL:WEIGHT") from None
    return weights


@dataclass(frozen=True)
class Setting:
    """A setting as a command line offers it: its name (the option's destination), the
    constructor keywords it sets (the first a backend takes: `--iterations` sets linear's
    max_iter and pa-slicing's iterations), its flag, the type of its value, what it is, its
    choices, an argparse action instead of a value (store_false: a `--no-...` flag; append:
    given again and again, read by `read`)."""

    name: str
    flag: str
    what: str
    type: Callable[[str], Any] | None = None
    choices: tuple[str, ...] | None = None
    action: str | None = None
    metavar: str | None = None
    keywords: tuple[str, ...] = ()
    read: Callable[[Any], Any] | None = None
    # What a default of None means, for a help line.
    unset: str = "none"
    # Whether the value can change the model (threads and caches do not: a canonical command
    # leaves them out, so that equal models have equal commands).
    changes_model: bool = True

    def keyword_of(self, backend: str, defaults: Mapping[str, Mapping[str, Any]]) -> str | None:
        """The keyword this setting sets on backend (None: the backend does not take it)."""
        for keyword in self.keywords or (self.name,):
            if keyword in defaults.get(backend, {}):
                return keyword
        return None

    def takers(self, defaults: Mapping[str, Mapping[str, Any]]) -> list[str]:
        """The backends of defaults that take this setting."""
        return [backend for backend in defaults if self.keyword_of(backend, defaults)]

    def default_text(self, defaults: Mapping[str, Mapping[str, Any]]) -> str:
        """Its default for each backend that takes it: "kernel-svm 0.001, linear 0.1"."""
        values = [(backend, defaults[backend][self.keyword_of(backend, defaults)])
                  for backend in self.takers(defaults)]
        return ", ".join(f"{backend} {self.unset if value is None else value}"
                         for backend, value in values)


SETTINGS = (
    Setting("degree", "--degree", "degree d of the polynomial kernel (x.z)^d", int),
    Setting("gamma", "--gamma", "gamma of the kernel (gamma x.z + coef0)^d", float),
    Setting("coef0", "--coef0", "coef0 of the kernel", float),
    Setting("C", "-C", "cost C", float),
    Setting("loss", "--loss", "hinge loss", choices=("l1", "l2")),
    Setting("eps", "--eps", "stopping tolerance", float),
    Setting("iterations", "--iterations", "passes (the linear backends: at most; kernel-svm: at "
            "most this many SMO steps; pa-slicing: exactly)", int,
            keywords=("max_iter", "iterations"), unset="max(10^7, 100 x rows)"),
    Setting("min_pair_count", "--min-pair-count", "feature pairs seen in fewer training rows "
            "are dropped", int),
    Setting("seed", "--seed", "random seed", int),
    Setting("dtype", "--dtype", "stored weight type", choices=("float32", "float64")),
    Setting("solver", "--solver", "dual coordinate descent (liblinear -s 1/3), or the primal "
            "trust-region Newton method (liblinear -s 2; L2 loss; --iterations: Newton steps)",
            choices=SOLVERS),
    Setting("cache_mb", "--cache-mb", "kernel column cache per solver in MB", float,
            changes_model=False),
    Setting("shrinking", "--no-shrinking", "do not shrink the active set", action="store_false"),
    Setting("class_weight", "--class-weight", "multiply C by WEIGHT for class LABEL "
            "(repeatable; a class the data lacks is ignored with a warning, as libsvm does), "
            f"or `{BALANCED}`: n / (k n_c) for each of the k classes of n_c rows",
            action="append", metavar="LABEL:WEIGHT", read=class_weights,
            unset="1 for every class"),
    Setting("threads", "--threads", "threads (kernel-svm: class pairs solved at once; "
            "pa-slicing: one-vs-rest classes trained at once)", int, changes_model=False),
    Setting("variant", "--variant", "the online update (pa1: PA-I)", choices=VARIANTS),
    Setting("average", "--average", "average the parameters over the steps (Daume III), or "
            "keep the last ones (--no-average)", action="boolean"),
    Setting("strategy", "--strategy", "how the margins are computed; every strategy gives "
            "the same model", choices=STRATEGIES),
    Setting("n_common", "--n-common", "split/slice: the N most frequent features whose "
            "conjunctions are held in a table", int, metavar="N",
            unset="split 1000, slice 4000 at degree 2; 250 at degree 3; all at 1"),
    Setting("max_table_mb", "--max-table-mb", "cap on the conjunction table of each class "
            "(N is halved when it is exceeded)", float, metavar="M", unset="no cap"),
)
BY_NAME = {setting.name: setting for setting in SETTINGS}


def settings_of(defaults: Mapping[str, Mapping[str, Any]]) -> Iterator[Setting]:
    """The settings at least one backend of defaults takes, in SETTINGS's order."""
    for setting in SETTINGS:
        if setting.takers(defaults):
            yield setting


def setting_words(backend: str, params: Mapping[str, Any]) -> list[str]:
    """A backend's settings as the words of a command line (`--degree 2 -C 1.0 ...`), in
    SETTINGS's order; a setting whose value is None, or that cannot change the model, is left
    out."""
    words: list[str] = []
    for setting in SETTINGS:
        keyword = setting.keyword_of(backend, DEFAULTS)
        if keyword is None or params.get(keyword) is None or not setting.changes_model:
            continue
        value = params[keyword]
        if setting.action == "store_false":
            words += [] if value else [setting.flag]
        elif setting.action == "boolean":
            words.append(setting.flag if value else "--no-" + setting.flag[2:])
        elif setting.action == "append":
            words += ([setting.flag, value] if isinstance(value, str) else
                      [w for label, weight in value.items()
                       for w in (setting.flag, f"{label}:{weight!r}")])
        else:
            words += [setting.flag, repr(value) if isinstance(value, float) else str(value)]
    return words
