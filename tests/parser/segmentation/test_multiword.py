"""parser/segmentation/multiword.py and multiword_context.py: the table of seen tokens, suffix
rules for unseen ones, cased words, and ambiguous tokens decided in context."""
from __future__ import annotations

from polyparse.parser.segmentation.multiword import MultiwordSplitter


def pairs(*tokens: str) -> list[tuple[str, list[str]]]:
    """(token, words): "a+b" is a multiword token of words a and b."""
    return [(token.replace("+", ""), token.split("+")) for token in tokens]


def test_seen_tokens_come_from_the_table_and_unseen_ones_from_suffix_rules() -> None:
    sentence = pairs("tuma+ni", "seko+ni", "rali+ni", "zo+la", "mesa", "kiro", "patu")
    splitter = MultiwordSplitter.learn([sentence] * 3)
    assert splitter.words("zola") == ["zo", "la"]
    assert splitter.words("tumani") == ["tuma", "ni"]
    # Unseen: the suffix rule `ni` -> (`` ni``) cuts it.
    assert splitter.words("verdani") == ["verda", "ni"]
    assert splitter.words("mesa") == ["mesa"]
    assert splitter.words("ni") == ["ni"]  # a rule never leaves an empty word


def test_a_suffix_that_mostly_stays_whole_blocks_its_rule() -> None:
    # Many words end in `ani` without being split; `ni` alone is a clitic.
    sentence = pairs("tuma+ni", "seko+ni", "rali+ni", "bani", "tani", "kani", "mani")
    splitter = MultiwordSplitter.learn([sentence])
    assert splitter.words("verdoni") == ["verdo", "ni"]
    assert splitter.words("verdani") == ["verdani"]


def test_rules_that_say_the_same_are_kept_once() -> None:
    splitter = MultiwordSplitter.learn([pairs("tuma+ni", "seko+ni", "rali+ni", "bru+ni")])
    assert splitter.rules == {"ni": ("", "ni")}


def test_words_keep_the_token_s_characters_and_case() -> None:
    splitter = MultiwordSplitter.learn([pairs("zo+la", "do+n't", "de+le")] * 2)
    assert splitter.words("ZOLA") == ["ZO", "LA"]
    assert splitter.words("Don't") == ["Do", "n't"]
    # Words that do not spell the token: the kept prefix in the token's case.
    french = MultiwordSplitter({"du": ("de", "le")}, {})
    assert french.words("Du") == ["De", "le"]
    assert french.words("DU") == ["DE", "LE"]


def test_ambiguous_tokens_are_decided_in_their_sentence() -> None:
    sentences = []
    for noun in ("mesa", "kiro", "patu", "lenda"):
        sentences.append([("ko", ["ko"]), ("dar", ["da", "ra"]), (noun, [noun])])
        sentences.append([(noun, [noun]), ("dar", ["dar"]), ("vika", ["vika"])])
    splitter = MultiwordSplitter.learn(sentences)
    assert splitter.context is not None and splitter.context.analyses == {"dar": ("da", "ra")}
    assert splitter.sentence_words(["ko", "dar", "soro"])[1] == ["da", "ra"]
    assert splitter.sentence_words(["soro", "dar", "vika"])[1] == ["dar"]
    assert splitter.sentence_words(["KO", "DAR"])[1] == ["DA", "RA"]


def test_a_treebank_without_multiword_tokens_splits_nothing() -> None:
    splitter = MultiwordSplitter.learn([pairs("a", "b", "c")])
    assert splitter.empty and splitter.words("abc") == ["abc"]
    assert splitter.sentence_words(["x", "y"]) == [["x"], ["y"]]
