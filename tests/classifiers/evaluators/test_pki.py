"""PKI: any degree, files, checks on loading, memory report."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.model_file import ModelFileError
from tests.classifiers.evaluators.test_kernel_expansion import (
    assert_close,
    file_round_trip,
    random_expansion,
    zipf_rows,
)


@pytest.mark.parametrize("degree", [1, 4, 5])
def test_pki_handles_every_degree(degree: int) -> None:
    expansion, vocabulary = random_expansion(degree, 200, 2, degree, max_length=12)
    X = zipf_rows(np.random.default_rng(degree), 1000, vocabulary, 15)
    assert_close(PKIScorer(expansion).decision_function(X),
                 expansion.naive_decision_function(X))


def test_pki_files_round_trip_and_are_checked(tmp_path: Path) -> None:
    expansion, vocabulary = random_expansion(4, 150, 3, 2)
    X = zipf_rows(np.random.default_rng(4), 500, vocabulary, 30)
    scorer = PKIScorer(expansion)
    path = tmp_path / "pki.model"
    again, read_header, read_arrays = file_round_trip(scorer, X, path)
    report = scorer.memory_report()
    assert set(report) == {"inverted_index", "coefficients", "tables", "scratch_per_call"}
    assert scorer.memory_bytes() == sum(report.values())
    assert report["scratch_per_call"] == 2 * 4 * expansion.n_support_vectors
    broken = dict(read_arrays, postings=read_arrays["postings"] + 1000)
    with pytest.raises(ModelFileError, match="pki.model: inconsistent PKI arrays"):
        PKIScorer.from_arrays(read_header, broken, source=str(path))
    short = dict(read_arrays, kernel_delta=read_arrays["kernel_delta"][:1])
    with pytest.raises(ModelFileError, match="shared-feature count"):
        PKIScorer.from_arrays(read_header, short)
    with pytest.raises(ModelFileError, match="not pki"):
        PKIScorer.from_arrays({**read_header, "evaluator": "pke"}, read_arrays)
