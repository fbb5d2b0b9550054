"""Shared pytest fixtures: the corpora, the svmlight datasets and tests/data."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# Helper modules whose asserts check what the tests that call them check: pytest explains their
# failures as it does a test's own.
pytest.register_assert_rewrite("tests.parser.cli.user_runs")

DATA = Path(__file__).parent / "data"

# libsvm-official is built with OpenMP. With one pytest-xdist worker per CPU its threads only
# compete for CPUs the other workers use, and they spin while they wait: a libsvm test then
# takes many times as long. One thread each gives the same models (and children inherit it).
os.environ.setdefault("OMP_NUM_THREADS", "1")


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


def _dataset(name: str, *files: str) -> Path:
    """datasets/<name> from POLYPARSE_DATASETS or <repo>/../shared/datasets, else skip."""
    value = os.environ.get("POLYPARSE_DATASETS")
    repo = Path(__file__).resolve().parents[1]
    root = Path(value) if value else repo.parent / "shared" / "datasets"
    folder = root / name
    if not all((folder / file).is_file() for file in files):
        pytest.skip(f"{name} not found under {root} (set POLYPARSE_DATASETS)")
    return folder


@pytest.fixture(scope="session")
def kwdlc() -> Path:
    """datasets/kwdlc_dep, else skip."""
    return _dataset("kwdlc_dep", "train.5k.svm", "test.svm")


@pytest.fixture(scope="session")
def srl_boundary() -> Path:
    """datasets/srl_boundary, else skip."""
    return _dataset("srl_boundary", "train.5k.tk")
