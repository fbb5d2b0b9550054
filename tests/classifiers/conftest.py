"""Fixtures for classifier tests: the shared svmlight datasets, skipped cleanly when absent."""
from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def kwdlc() -> Path:
    """datasets/kwdlc_dep from POLYPARSE_DATASETS or <repo>/../shared/datasets, else skip."""
    value = os.environ.get("POLYPARSE_DATASETS")
    repo = Path(__file__).resolve().parents[2]
    root = Path(value) if value else repo.parent / "shared" / "datasets"
    folder = root / "kwdlc_dep"
    if not (folder / "train.5k.svm").is_file() or not (folder / "test.svm").is_file():
        pytest.skip(f"kwdlc_dep not found under {root} (set POLYPARSE_DATASETS)")
    return folder
