"""The Python API says what the command line says of input that cannot give the model what it
needs (issue 22, C2): an InputWarning, which users can filter by its category."""
from __future__ import annotations

import warnings

import pytest

import polyparse


@pytest.fixture(scope="module")
def parser() -> polyparse.Parser:
    return polyparse.load_parser()


def test_untagged_words_warn(parser: polyparse.Parser) -> None:
    with pytest.warns(polyparse.InputWarning, match='4 of 4 words have no UPOS'):
        parser.parse([["The", "dog", "barked", "."]])


def test_tagged_words_do_not(parser: polyparse.Parser) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (tree,) = parser.parse([[("The", "DET"), ("dog", "NOUN"), ("barked", "VERB"),
                                 (".", "PUNCT")]])
    assert [token["deprel"] for token in tree] == ["det", "nsubj", "root", "punct"]


def test_the_warning_can_be_filtered_by_its_category(parser: polyparse.Parser) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", polyparse.InputWarning)
        parser.parse([["The", "dog", "barked", "."]])
