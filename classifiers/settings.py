"""Checks of the settings users give a backend, and a backend's settings laid over a parser's
defaults. Plain Python (no NumPy), so that options are checked before anything heavy loads."""
from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

Config = TypeVar("Config")


class SettingNotTaken(ValueError):
    """A setting that cannot be used where it was given: `setting` is its name, `reason` the
    end of a sentence naming it ("applies to kernel-svm and pa-slicing, not linear"); str() is
    the sentence with the setting's Python name. A command line names its option instead."""

    def __init__(self, setting: str, reason: str) -> None:
        super().__init__(f"{setting} {reason}")
        self.setting = setting
        self.reason = reason


def is_boolean(value: Any) -> bool:
    """True for Python and NumPy booleans, which never pass as numbers here."""
    dtype = getattr(value, "dtype", None)
    return isinstance(value, bool) or (dtype is not None and dtype.kind == "b")


def check_choice(name: str, value: Any, choices: Sequence[Any]) -> Any:
    """value when it is one of choices, else ValueError naming them: "unknown variant 'pa9'
    (available: pa1, pa)" for names, "degree must be 1, 2 or 3, not 5" for numbers (booleans
    never pass for numbers)."""
    if all(isinstance(choice, str) for choice in choices):
        if value not in choices:
            raise ValueError(f"unknown {name} {value!r} (available: {', '.join(choices)})")
        return value
    if is_boolean(value) or value not in choices:
        names = [str(choice) for choice in choices]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        raise ValueError(f"{name} must be {listed}, not {value!r}")
    return value


def check_positive(name: str, value: Any) -> float:
    """value as a float when it is positive and finite, else ValueError."""
    number = _number(name, value)
    if not (number > 0 and math.isfinite(number)):
        raise ValueError(f"{name} must be positive and finite, not {value!r}")
    return number


def check_finite(name: str, value: Any) -> float:
    """value as a finite float, else ValueError."""
    number = _number(name, value)
    if not math.isfinite(number):
        raise ValueError(f"{name} must be finite, not {value!r}")
    return number


def _number(name: str, value: Any) -> float:
    if is_boolean(value):
        raise ValueError(f"{name} must be a number, not {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be a number, not {value!r}") from None


def check_integer(name: str, value: Any, minimum: int | None = None,
                  maximum: int | None = None) -> int:
    """value as an int when it is an integer within [minimum, maximum], else ValueError."""
    if is_boolean(value) or not isinstance(value, numbers.Integral):
        raise ValueError(f"{name} must be an integer, not {value!r}")
    number = int(value)
    if minimum is not None and number < minimum:
        raise ValueError(f"{name} must be at least {minimum}, not {number}")
    if maximum is not None and number > maximum:
        raise ValueError(f"{name} must be at most {maximum}, not {number}")
    return number


def check_seed(value: Any) -> int:
    """A seed: an integer in 0 .. 2**64 - 1."""
    if is_boolean(value) or not isinstance(value, numbers.Integral):
        raise ValueError(f"seed must be an integer, not {value!r}")
    if not 0 <= int(value) < 2**64:
        raise ValueError(f"seed must lie in 0 .. 2**64-1, not {value}")
    return int(value)


def config_or_default(config: Config | None, kind: type[Config]) -> Config:
    """config, or kind() when it is None; TypeError when it is not a kind."""
    if config is None:
        return kind()
    if not isinstance(config, kind):
        raise TypeError(f"config must be a {kind.__name__}, not {type(config).__name__}")
    return config


def listed(names: Sequence[str]) -> str:
    """Names in a sentence: "a", "a and b", "a, b and c"."""
    if len(names) < 2:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


def settings_over_defaults(classifier: str, defaults: Mapping[str, Mapping[str, Any]],
                           **given: Any) -> dict[str, Any]:
    """A backend's settings for one parser: the given ones (None meaning not given) over the
    parser's defaults for that backend. ValueError for a backend the parser does not train, or a
    setting the backend does not take, so that a mistyped or misplaced option never goes
    unnoticed."""
    check_choice("classifier", classifier, tuple(defaults))
    options = dict(defaults[classifier])
    for name, value in given.items():
        if value is None:
            continue
        if name not in options:
            takers = [backend for backend, settings in defaults.items() if name in settings]
            raise SettingNotTaken(name, f"applies to {listed(takers) or 'no classifier'}, "
                                        f"not {classifier}")
        options[name] = value
    return options
