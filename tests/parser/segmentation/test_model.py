"""parser/segmentation/model.py: model files (no pickle, written atomically), loading errors in
one line, pickling through the file's bytes, byte-identical models from the same seed."""
from __future__ import annotations

import pickle
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_file import ModelFileError, decode_model, encode_model
from polyparse.parser.segmentation.model import SegmenterModel, load_segmenter
from polyparse.parser.segmentation.training import train_segmenter
from tests.parser.segmentation import synthetic
from tests.parser.segmentation.conftest import sentences_of
from tests.parser.segmentation.texts import random_text

TEXT = "Mesa tumani zla patu ko dar. Vika dar soro.\n\nLenda kaldeni."


def test_saved_model_segments_as_the_trained_one(tmp_path: Path,
                                                 multiword_model: SegmenterModel,
                                                 spaced_model: SegmenterModel) -> None:
    for model in (multiword_model, spaced_model):
        path = tmp_path / "segmenter.model"
        model.save(path)
        loaded = load_segmenter(path)
        assert loaded.to_bytes() == path.read_bytes() == model.to_bytes()
        for text in (TEXT, random_text(4, 3000)):
            assert loaded.segment(text) == model.segment(text)
        assert loaded.spaces_in_tokens == model.spaces_in_tokens
        assert not list(tmp_path.glob("*.tmp*"))


def test_pickles_through_its_bytes(multiword_model: SegmenterModel) -> None:
    copy = pickle.loads(pickle.dumps(multiword_model))
    assert isinstance(copy, SegmenterModel)
    assert copy.segment(TEXT) == multiword_model.segment(TEXT)


def test_same_data_and_seed_give_byte_identical_models() -> None:
    conllu = synthetic.multiword(120)
    first = train_segmenter(sentences_of(conllu), seed=3).to_bytes()
    assert train_segmenter(sentences_of(conllu), seed=3).to_bytes() == first
    spaced = synthetic.spaced_tokens(120)
    assert train_segmenter(sentences_of(spaced), seed=3).to_bytes() == \
        train_segmenter(sentences_of(spaced), seed=3).to_bytes()


def test_the_header_says_what_the_model_is(multiword_model: SegmenterModel) -> None:
    header, arrays = decode_model(multiword_model.to_bytes(), "model")
    assert header["format"] == "polyparse-segmenter" and header["format_version"] == 1
    assert header["settings"]["seed"] == 1 and "C" in header["settings"]
    assert header["training"]["sentences"] == 300
    assert {"inner_keys", "sentence_keys", "context_keys"} <= set(arrays)
    assert "gap_keys" not in arrays


def rewrite(model: SegmenterModel, change) -> bytes:
    header, arrays = decode_model(model.to_bytes(), "model")
    arrays = {name: np.array(array) for name, array in arrays.items()}
    change(header, arrays)
    return bytes(encode_model(header, arrays, compress=True))


@pytest.mark.parametrize("change, message", [
    (lambda h, a: h.update(format_version=9), "format version 9"),
    (lambda h, a: a.pop("sentence_keys"), "'sentence_keys' is missing"),
    (lambda h, a: h.update(inner_bias="x"), "inner bias"),
    (lambda h, a: a.update(inner_weights=a["inner_weights"][:-1]), "one entry each"),
    (lambda h, a: a.update(inner_keys=np.zeros_like(a["inner_keys"])), "duplicate key"),
    (lambda h, a: a["inner_weights"].__setitem__(0, np.inf), "not all finite"),
    (lambda h, a: a.update(multiword_rules_offsets=a["multiword_rules_offsets"] + 1),
     "offsets"),
])
def test_inconsistent_files_fail_in_one_line(tmp_path: Path, multiword_model: SegmenterModel,
                                             change, message: str) -> None:
    path = tmp_path / "bad.model"
    path.write_bytes(rewrite(multiword_model, change))
    with pytest.raises(ModelFileError) as caught:
        load_segmenter(path)
    text = str(caught.value)
    assert text.startswith(str(path)) and message in text and "\n" not in text


def test_other_files_fail_in_one_line(tmp_path: Path, multiword_model: SegmenterModel) -> None:
    path = tmp_path / "x.model"
    for data, message in ((b"", "empty file"), (b"hello", "not a polyparse model"),
                          (multiword_model.to_bytes()[:-10], "truncated or corrupt")):
        path.write_bytes(data)
        with pytest.raises(ModelFileError, match=message):
            load_segmenter(path)
    header, arrays = decode_model(multiword_model.to_bytes(), "model")
    path.write_bytes(bytes(encode_model({**header, "format": "polyparse-tagger"},
                                        dict(arrays))))
    with pytest.raises(ModelFileError, match="expected polyparse-segmenter"):
        load_segmenter(path)
