"""Segmenters trained once per session on the synthetic treebanks (tests/parser/segmentation/
synthetic.py)."""
from __future__ import annotations

import io

import pytest

from polyparse.parser.formats.conll import Sentence, read_conll
from polyparse.parser.segmentation.model import SegmenterModel
from polyparse.parser.segmentation.training import train_segmenter
from tests.parser.segmentation import synthetic


def sentences_of(conllu: str) -> list[Sentence]:
    return list(read_conll(None, stream=io.StringIO(conllu), require_deprel=False))


@pytest.fixture(scope="session")
def unspaced_model() -> SegmenterModel:
    return train_segmenter(sentences_of(synthetic.unspaced(400)))


@pytest.fixture(scope="session")
def spaced_model() -> SegmenterModel:
    return train_segmenter(sentences_of(synthetic.spaced_tokens(400)))


@pytest.fixture(scope="session")
def multiword_model() -> SegmenterModel:
    return train_segmenter(sentences_of(synthetic.multiword(300)))
