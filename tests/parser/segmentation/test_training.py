"""parser/segmentation/training.py and linear_fit.py: gold units of a treebank's text, explicit
weights that score as the backend does, settings and errors."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.parser.segmentation.characters import character_arrays
from polyparse.parser.segmentation.linear_fit import fit_linear
from polyparse.parser.segmentation.text_units import TextUnits
from polyparse.parser.segmentation.training import gold_units, train_segmenter
from polyparse.parser.segmentation.treebank_data import treebank_text
from tests.parser.segmentation import synthetic
from tests.parser.segmentation.conftest import sentences_of
from tests.parser.segmentation.test_treebank_data import CONLLU


def test_gold_units_mark_token_starts_and_separating_gaps() -> None:
    data = treebank_text(sentences_of(CONLLU))  # "Hà Nội, x. Yes\n\nNo"
    units = TextUnits(*character_arrays(data.text))
    gold = gold_units(units, data).tolist()
    starts = units.start[:len(units)].tolist()
    by_start = dict(zip(starts, gold))
    assert by_start[0] == 1 and by_start[1] == 0  # H starts a token, à does not
    assert by_start[2] == 0  # the space inside Hà Nội
    assert by_start[6] == 1 and by_start[7] == 1  # ",", then the space after it
    assert by_start[8] == 1 and by_start[9] == 0  # x. is one token
    assert by_start[10] == 1 and by_start[11] == 1  # the space, Yes
    assert by_start[14] == 1  # the paragraph break


def test_explicit_weights_score_as_the_backend() -> None:
    rng = np.random.default_rng(0)
    keys = rng.integers(1, 40, size=(300, 5)).astype(np.uint64) + \
        (np.arange(5, dtype=np.uint64) << np.uint64(56))
    labels = (keys[:, 0] % np.uint64(3) == 0).astype(np.int32)
    weights, stats = fit_linear(keys, labels, 0.5, 1, 1)
    assert stats["rows"] == 300 and stats["nonzero_weights"] > 0
    # The backend on the same features.
    unique = np.unique(keys)
    rows = [sorted(np.searchsorted(unique, row).tolist()) for row in keys]
    matrix = BinaryMatrix.from_rows(rows, len(unique))
    classifier = LinearSVM(C=0.5, seed=1).fit(matrix, labels)
    expected = classifier.decision_function(matrix)[:, 0]
    if classifier.classes_[0] != 1:
        expected = -expected
    assert np.allclose(weights.scores(keys), expected, atol=1e-5)


def test_one_class_gives_a_constant_decision() -> None:
    keys = np.arange(12, dtype=np.uint64).reshape(4, 3)
    weights, _ = fit_linear(keys, np.ones(4), 1.0, 1, 1)
    assert weights.scores(keys).tolist() == [1.0] * 4
    weights, _ = fit_linear(keys, np.zeros(4), 1.0, 1, 1)
    assert weights.scores(keys).tolist() == [-1.0] * 4


def test_settings_and_dev_scores_go_into_the_header() -> None:
    train = sentences_of(synthetic.multiword(100))
    dev = sentences_of(synthetic.multiword(30, seed=4))
    messages: list[str] = []
    model = train_segmenter(train, dev, C={"sentence": 0.2}, seed=2, log=messages.append)
    assert model.header["settings"]["C"]["sentence"] == 0.2
    assert model.header["settings"]["seed"] == 2
    assert set(model.header["dev_scores"]) == {"Tokens", "Sentences", "Words"}
    assert any("dev:" in message for message in messages)


def test_bad_arguments() -> None:
    train = sentences_of(synthetic.multiword(20))
    with pytest.raises(ValueError, match="unknown classifiers"):
        train_segmenter(train, C={"tokens": 1.0})
    with pytest.raises(ValueError, match="no tokens"):
        train_segmenter([])
    # Settings are refused before any data is read.
    for settings, message in (({"C": {"inner": 0}}, "C of inner"),
                              ({"min_feature_count": 0}, "min_feature_count"),
                              ({"seed": -1}, "seed")):
        with pytest.raises(ValueError, match=message):
            train_segmenter("/no/such/treebank.conllu", **settings)
