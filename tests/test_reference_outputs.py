"""The outputs that a change of the code's structure must leave byte for byte as they were
(tests/reference_outputs.py makes them and holds their digests)."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.reference_outputs import REFERENCE_DIGESTS, cases, digest

ROOT = Path(__file__).resolve().parents[1]
NEED_CORPORA = {name for name in REFERENCE_DIGESTS if "EWT" in name or "KWDLC" in name}


@pytest.fixture(scope="module")
def made(tmp_path_factory: pytest.TempPathFactory, request: pytest.FixtureRequest) -> dict:
    import os

    corpora = os.environ.get("POLYPARSE_CORPORA")
    return cases(tmp_path_factory.mktemp("reference"), Path(corpora) if corpora else None, ROOT)


@pytest.mark.parametrize("name", sorted(REFERENCE_DIGESTS))
def test_an_output_is_what_it_was(name: str, made: dict) -> None:
    if name not in made:
        assert name in NEED_CORPORA
        pytest.skip("needs POLYPARSE_CORPORA")
    assert digest(made[name]()) == REFERENCE_DIGESTS[name]
