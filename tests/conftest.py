"""Shared pytest fixtures."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data"


@pytest.fixture(scope="session")
def corpora() -> Path:
    """The folder named by POLYPARSE_CORPORA (laid out like ../shared/corpora), or skip."""
    value = os.environ.get("POLYPARSE_CORPORA")
    if not value:
        pytest.skip("POLYPARSE_CORPORA is not set")
    path = Path(value)
    if not path.is_dir():
        pytest.skip(f"POLYPARSE_CORPORA={value} is not a directory")
    return path


@pytest.fixture(scope="session")
def data_dir() -> Path:
    """tests/data: small fixtures written for the tests."""
    return DATA
