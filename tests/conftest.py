"""Shared pytest fixtures: the corpora, the svmlight datasets and tests/data."""
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


@pytest.fixture(scope="session")
def kwdlc() -> Path:
    """datasets/kwdlc_dep from POLYPARSE_DATASETS or <repo>/../shared/datasets, else skip."""
    value = os.environ.get("POLYPARSE_DATASETS")
    repo = Path(__file__).resolve().parents[1]
    root = Path(value) if value else repo.parent / "shared" / "datasets"
    folder = root / "kwdlc_dep"
    if not (folder / "train.5k.svm").is_file() or not (folder / "test.svm").is_file():
        pytest.skip(f"kwdlc_dep not found under {root} (set POLYPARSE_DATASETS)")
    return folder


@pytest.fixture(scope="session")
def srl_boundary() -> Path:
    """datasets/srl_boundary from POLYPARSE_DATASETS or <repo>/../shared/datasets, else skip."""
    value = os.environ.get("POLYPARSE_DATASETS")
    repo = Path(__file__).resolve().parents[1]
    root = Path(value) if value else repo.parent / "shared" / "datasets"
    folder = root / "srl_boundary"
    if not (folder / "train.5k.tk").is_file():
        pytest.skip(f"srl_boundary not found under {root} (set POLYPARSE_DATASETS)")
    return folder
