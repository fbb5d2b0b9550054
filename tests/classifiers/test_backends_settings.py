"""new_classifier refuses a setting the backend does not take with a ValueError that names the
backend's settings (not a TypeError from the constructor)."""
from __future__ import annotations

import pytest

from polyparse.classifiers.backends import BACKENDS, backend_settings, new_classifier


@pytest.mark.parametrize("name, setting", [("linear", "cache_mb"), ("poly2-linear", "threads"),
                                           ("kernel-svm", "min_pair_count"),
                                           ("pa-slicing", "gamma")])
def test_a_setting_of_another_backend_is_a_value_error(name: str, setting: str) -> None:
    with pytest.raises(ValueError, match=f"{name} does not take {setting} \\(its settings: "):
        new_classifier(name, **{setting: 1})


def test_every_backend_takes_its_own_settings() -> None:
    for name in BACKENDS:
        assert "C" in backend_settings(name)
        new_classifier(name, C=0.5)
