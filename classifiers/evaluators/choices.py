"""The exact evaluators as a user chooses them: their names (`--eval-mode`, `--to`), the
defaults, the rare threshold of split-svm, and the degrees each can evaluate.

Plain Python, so that the command line, the Python API and the docs know the choices and their
defaults (each defined here once) without importing a compiled evaluator.
"""
from __future__ import annotations

import numbers

# How a kernel model's decision values are computed (classifiers/evaluators/modes.py).
EVAL_MODES = ("naive", "pki", "pke", "split")
DEFAULT_EVAL_MODE = "split"
# What a kernel model can be converted to: evaluator -> backend name in model headers.
CONVERSIONS = {"split": "split-svm", "pki": "pki", "pke": "pke"}
EVALUATORS = {backend: evaluator for evaluator, backend in CONVERSIONS.items()}
# Degrees whose conjunctions PKE and split-svm expand (MAX_EXPANDED_DEGREE of
# classifiers/evaluators/pke.pxd).
EXPANDED_DEGREES = (1, 2, 3)
# split-svm's rare threshold: "auto", a support-vector count or a fraction of them.
AUTO = "auto"
DEFAULT_RARE_THRESHOLD = AUTO


def minimum_common_count(rare_threshold: int | float, n_support_vectors: int) -> float:
    """The support-vector count s below which a feature is rare.

    An int is s itself; a float in (0, 1] is a fraction of the support vectors.
    """
    dtype = getattr(rare_threshold, "dtype", None)
    if isinstance(rare_threshold, (bool, str)) or (dtype is not None and dtype.kind == "b"):
        raise ValueError("rare_threshold must be a count, a fraction or 'auto'")
    if isinstance(rare_threshold, numbers.Integral):
        if rare_threshold < 0:
            raise ValueError("a rare_threshold count must be >= 0")
        return float(rare_threshold)
    fraction = float(rare_threshold)
    if not (0.0 < fraction <= 1.0):
        raise ValueError("a rare_threshold fraction must lie in (0, 1]")
    return fraction * n_support_vectors


def parse_rare_threshold(text: str) -> int | float | str:
    """A command-line rare threshold: 'auto', digits (a count) or a fraction."""
    text = text.strip()
    if text == AUTO:
        return AUTO
    value: int | float = int(text) if text.isdigit() else float(text)
    minimum_common_count(value, 1)
    return value


def check_evaluator(mode: str, degree: int) -> None:
    """ValueError (one sentence) when the evaluation mode cannot evaluate a kernel of this
    degree (PKE and split-svm expand conjunctions of at most three features)."""
    if mode not in EVAL_MODES:
        raise ValueError(f"unknown evaluation mode {mode!r} (available: {', '.join(EVAL_MODES)})")
    if mode in ("pke", "split") and degree not in EXPANDED_DEGREES:
        raise ValueError(
            f"the {mode} evaluator expands conjunctions of degree "
            f"{EXPANDED_DEGREES[0]}..{EXPANDED_DEGREES[-1]}, and this model has degree "
            f"{degree} (pki and naive evaluate any degree)"
        )


def check_conversion(evaluator: str, degree: int) -> None:
    """ValueError (one sentence) when a kernel model of this degree cannot be kept as the named
    evaluator (pki, pke or split)."""
    if evaluator not in CONVERSIONS:
        raise ValueError(f"unknown evaluator {evaluator!r} (available: {', '.join(CONVERSIONS)})")
    check_evaluator(evaluator, degree)


def default_eval_mode(degree: int) -> str:
    """DEFAULT_EVAL_MODE when it can evaluate this degree, else pki (any degree)."""
    try:
        check_evaluator(DEFAULT_EVAL_MODE, degree)
    except ValueError:
        return "pki"
    return DEFAULT_EVAL_MODE
