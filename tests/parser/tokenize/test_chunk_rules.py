"""Tokens and words of chunks by UD English (EWT) conventions: the English rule tokenizer
trained on EWT train (`tokenize train`; the bundled pipeline's tokenizer is a learned one) and
the rules alone on a hand-made lexicon."""
from __future__ import annotations

import pytest

from polyparse.parser.tokenize.chunk_rules import ChunkRules
from polyparse.parser.tokenize.model import train_tokenizer
from polyparse.parser.tokenize.words import MultiwordRules


@pytest.fixture(scope="module")
def segmenter(corpora):
    train = corpora / "en_ewt" / "en_ewt-ud-train.conllu"
    if not train.is_file():
        pytest.skip("no EWT under POLYPARSE_CORPORA")
    return train_tokenizer(train).text_segmenter()


@pytest.mark.parametrize("chunk, tokens", [
    ("dog.", ["dog", "."]),
    ("(hello),", ["(", "hello", ")", ","]),
    ('"Yes!"', ['"', "Yes", "!", '"']),
    ("wow!!!", ["wow", "!!!"]),
    ("end...", ["end", "..."]),
    ("search-engine", ["search", "-", "engine"]),
    ("e-mail", ["e-mail"]),
    ("non-profit", ["non-profit"]),
    ("U.S.", ["U.S."]),
    ("Mr.", ["Mr."]),
    ("a.m.", ["a.m."]),
    ("$100", ["$", "100"]),
    ("100%", ["100", "%"]),
    ("3:30", ["3:30"]),
    ("1,200.50", ["1,200.50"]),
    ("713-853-3989", ["713-853-3989"]),
    ("13-17", ["13", "-", "17"]),
    ("5th", ["5th"]),
    ("375mm", ["375", "mm"]),
    ("http://www.google.com/search?q=x),", ["http://www.google.com/search?q=x", ")", ","]),
    ("carol.st.clair@enron.com.", ["carol.st.clair@enron.com", "."]),
    ("#hashtag", ["#hashtag"]),
    ("don't", ["don't"]),
    ("soldiers'", ["soldiers'"]),
    (":)", [":)"]),
])
def test_bundled_tokens(segmenter, chunk: str, tokens: list[str]) -> None:
    assert segmenter.chunk_tokens(chunk) == tokens


@pytest.mark.parametrize("token, words", [
    ("don't", ["do", "n't"]),
    ("DON'T", ["DO", "N'T"]),
    ("can't", ["ca", "n't"]),
    ("won't", ["wo", "n't"]),
    ("cannot", ["can", "not"]),
    ("gonna", ["gon", "na"]),
    ("I'm", ["I", "'m"]),
    ("it’s", ["it", "’s"]),
    ("Bush's", ["Bush", "'s"]),
    ("Zorblax's", ["Zorblax", "'s"]),
    ("soldiers'", ["soldiers", "'"]),
    ("dog", ["dog"]),
])
def test_bundled_words(segmenter, token: str, words: list[str]) -> None:
    assert segmenter.token_words(token) == words


def test_rules_on_a_hand_lexicon() -> None:
    rules = ChunkRules(whole={"e-mail", "etc."}, exceptions={"alot": ["a", "lot"]},
                       hyphen_prefixes={"co"})
    assert rules.split("alot") == ["a", "lot"]
    assert rules.split("etc.") == ["etc."]
    assert rules.split("Inc.") == ["Inc", "."]
    assert rules.split("co-worker,") == ["co-worker", ","]
    assert rules.split("well-known") == ["well", "-", "known"]
    assert rules.split("(e-mail)") == ["(", "e-mail", ")"]
    assert rules.split("J.R.R.") == ["J.R.R."]
    assert rules.split("...") == ["..."]
    assert rules.split("?!") == ["?", "!"]


def test_multiword_table_before_the_rule() -> None:
    words = MultiwordRules({"gonna": [3, 2], "sha'lan": [7]}, {"im": ["i", "m"]})
    assert words.words("Gonna") == ["Gon", "na"]
    assert words.words("Sha'lan") == ["Sha'lan"]
    assert words.words("im") == ["i", "m"]
    assert words.words("they'll") == ["they", "'ll"]
    assert words.words("'s") == ["'s"]


@pytest.mark.parametrize("chunk", ["a", "...", "'", "-", "--x--", "@", "x'", "'s", "$", "1.",
                                   "http://", "(((", "a-", "-a", "é-à", "٣-٤"])
def test_tokens_spell_the_chunk(segmenter, chunk: str) -> None:
    tokens = segmenter.chunk_tokens(chunk)
    assert "".join(tokens) == chunk and all(tokens)


@pytest.mark.parametrize("chunk", ["ab1+/" * 40_000 + "...", "((" + "a.b-" * 50_000 + "!)",
                                   "-=" * 100_000])
def test_long_chunks_are_cut_in_linear_time(segmenter, chunk: str) -> None:
    """The rules' searches would take hours on these (quadratic): a long chunk keeps its core
    whole and its outer punctuation as runs."""
    tokens = segmenter.chunk_tokens(chunk)
    assert "".join(tokens) == chunk
    assert all(len(set(token)) == 1 or len(token) > 1000 for token in tokens)
