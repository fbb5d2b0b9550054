"""The bundled tokenizer on UD English EWT as the CoNLL 2018 shared task gave it (raw text of
conllu_to_text.pl): the text comes back exactly, and the scores clear the bars set for them."""
from __future__ import annotations

import io
from pathlib import Path

import pytest

from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.tokenize.conllu_blocks import text_of_blocks
from polyparse.parser.tokenize.model import load_tokenizer
from polyparse.parser.tokenize.reading import read_raw
from polyparse.parser.tokenize.treebank_text import LINE_WIDTH, raw_text, treebank_sentences


@pytest.fixture(scope="module")
def ewt(corpora: Path) -> Path:
    folder = corpora / "en_ewt"
    if not (folder / "en_ewt-ud-test.conllu").is_file():
        pytest.skip("no EWT under POLYPARSE_CORPORA")
    return folder


def test_raw_text_is_conllu_to_text(ewt: Path) -> None:
    path = ewt / "en_ewt-ud-test.conllu"
    text = raw_text(path)
    sentences = list(treebank_sentences(path))
    paragraphs = text.strip("\n").split("\n\n")
    assert len(paragraphs) == sum(s.new_paragraph for s in sentences)
    assert all(len(line) <= LINE_WIDTH + 1 or " " not in line for line in text.splitlines())
    assert text.split() == " ".join(s.text for s in sentences).split()


@pytest.mark.parametrize("part, tokens, words, sentences", [("dev", 99.3, 99.0, 83.0),
                                                            ("test", 98.5, 98.5, 75.0)])
def test_bundled_tokenizer_on_raw_text(ewt: Path, part: str, tokens: float, words: float,
                                       sentences: float) -> None:
    gold = ewt / f"en_ewt-ud-{part}.conllu"
    text = raw_text(gold)
    system = list(read_raw(stream=io.StringIO(text), tokenizer=load_tokenizer()))
    assert text_of_blocks(s.lines for s in system) == text
    blocks = "".join("\n".join(s.lines) + "\n\n" for s in system)
    assert len(list(read_conll(None, stream=io.StringIO(blocks)))) == len(system)
    scores = evaluate(read_conll(gold), system)
    assert scores.Tokens >= tokens and scores.Sentences >= sentences and scores.Words >= words
    if part == "test":
        card = (Path(__file__).resolve().parents[3] / "parser" / "models" /
                "en_ewt.md").read_text(encoding="utf-8")
        stated = (f"EWT test Tokens {scores.Tokens:.2f},\n"
                  f"  Sentences {scores.Sentences:.2f}, Words {scores.Words:.2f}")
        assert stated in card, "parser/models/en_ewt.md must state the tokenizer's test scores"

