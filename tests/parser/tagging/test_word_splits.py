"""Word splits (parser/tagging/lexicon.py): the known words a form ends and starts with, as
the lexicon's attributes of known and unknown forms, and models trained without them (or before
them) tagging as they did."""
from __future__ import annotations

import random
from collections.abc import Callable

import numpy as np

from polyparse.features.interning import UNKNOWN
from polyparse.parser.formats.tokens import sentences_from_text
from polyparse.parser.tagging.config import TaggerConfig
from polyparse.parser.tagging.lexicon import (
    N_BASE_ATTRIBUTES,
    SPLIT_COLUMNS,
    Lexicon,
    split_strings,
)
from polyparse.parser.tagging.tagger import Tagger
from tests.parser.tagging.synthetic import synthetic_conllu

# A tiny treebank of Korean-like words: noun stems, a verb ending and compounds of them.
SENTENCES = [(["Kal", "hago", "kalmop"], ["NNG", "VV+EC", "NNG+NNG"]),
             (["kal", "hago", "mop"], ["NNG", "VV+EC", "NNG"]),
             (["mop", "go"], ["NNG", "EC"])]


def lexicon(splits: bool) -> Lexicon:
    return Lexicon.learn([(forms, tags, [0] * len(forms), ["_"] * len(forms))
                          for forms, tags in SENTENCES], ambiguity_min_count=2,
                         dictionary_min_count=0, min_word_count=1, splits=splits)


def split_row(lexicon: Lexicon, row: list[int] | np.ndarray) -> list[str | None]:
    return [None if i == UNKNOWN else lexicon.strings.strings[i]
            for i in list(row)[SPLIT_COLUMNS]]


def test_split_strings_name_the_longest_known_suffix_and_prefix() -> None:
    known = {"ab": "amb:X", "cd": "amb:Y", "d": "amb:Z", "abc": None}.get
    assert split_strings("abcd", known, 4) == [
        "tail:amb:Y", "tail+length:amb:Y/2", "tail+head:amb:Y/amb:X", "head+length:amb:X/2",
        "length:4"]
    # The rest of a split longer than MAX_REST_LENGTH is one length; an unknown rest is "?".
    assert split_strings("xxxxxxd", known, 4)[:3] == [
        "tail:amb:Z", "tail+length:amb:Z/4", "tail+head:amb:Z/?"]
    assert split_strings("q", known, 4) == ["-", "-", "-", "-", "length:1"]
    assert split_strings("q" * 12, known, 4)[4] == "length:10"


def unbounded_split_strings(lower: str, class_of: Callable[[str], str | None]
                            ) -> list[str | None]:
    """split_strings looking up every proper suffix and prefix, however long (the reference)."""
    tail = tail_length = tail_head = head = "-"
    for k in range(1, len(lower)):
        if class_of(lower[k:]) is not None:
            found = class_of(lower[k:])
            tail, tail_length = f"tail:{found}", f"tail+length:{found}/{min(k, 4)}"
            tail_head = f"tail+head:{found}/{class_of(lower[:k]) or '?'}"
            break
    for k in range(len(lower) - 1, 0, -1):
        if class_of(lower[:k]) is not None:
            head = f"head+length:{class_of(lower[:k])}/{min(len(lower) - k, 4)}"
            break
    return [tail, tail_length, tail_head, head, f"length:{min(len(lower), 10)}"]


def test_split_strings_bounded_by_the_longest_known_word_equal_the_reference() -> None:
    """Looking up no part longer than the longest known word changes nothing (random words of
    a three-letter alphabet against random lexicons), and a form of a million characters gets
    its splits (an unbounded search would look up a million parts of half a million each)."""
    rng = random.Random(7)
    for _ in range(300):
        words = {"".join(rng.choice("abc") for _ in range(rng.randint(1, 4))): f"amb:{i}"
                 for i in range(rng.randint(1, 12))}
        longest = max(map(len, words))
        for _ in range(20):
            form = "".join(rng.choice("abc") for _ in range(rng.randint(1, 12)))
            assert split_strings(form, words.get, longest) == \
                unbounded_split_strings(form, words.get)
    huge = "ab" + "c" * 1_000_000 + "ab"
    assert split_strings(huge, {"ab": "amb:X"}.get, 2) == [
        "tail:amb:X", "tail+length:amb:X/4", "tail+head:amb:X/?", "head+length:amb:X/4",
        "length:10"]


def test_known_and_unknown_forms_read_their_splits() -> None:
    lex = lexicon(splits=True)
    # Known words: the lowercases seen at least ambiguity_min_count times (kal, hago, mop).
    assert lex.lower_classes == {"kal": "amb:NNG", "hago": "amb:VV+EC", "mop": "amb:NNG"}
    assert split_row(lex, lex.table[lex.entries["kalmop"]]) == [
        "tail:amb:NNG", "tail+length:amb:NNG/3", "tail+head:amb:NNG/amb:NNG",
        "head+length:amb:NNG/3", "length:6"]
    assert split_row(lex, lex.unknown_row("Mopkal")) == [
        "tail:amb:NNG", "tail+length:amb:NNG/3", "tail+head:amb:NNG/amb:NNG",
        "head+length:amb:NNG/3", "length:6"]
    # The strings that no training form made (no form ends with a known "hago" or has 7
    # characters) are unknown, as any unseen string.
    assert split_row(lex, lex.unknown_row("mophago")) == [None] * 5


def test_without_splits_the_columns_are_unknown() -> None:
    lex = lexicon(splits=False)
    assert lex.lower_classes == {}
    assert set(lex.table[:, SPLIT_COLUMNS].ravel().tolist()) == {UNKNOWN}
    assert split_row(lex, lex.unknown_row("mophago")) == [None] * 5
    assert lex.table[:, :N_BASE_ATTRIBUTES].tolist() == \
        lexicon(splits=True).table[:, :N_BASE_ATTRIBUTES].tolist()


def trained(word_splits: bool) -> Tagger:
    tagger = Tagger(TaggerConfig(xpos="apart", dictionary_min_count=3, word_splits=word_splits))
    tagger.train(sentences_from_text(synthetic_conllu(60, seed=1, features=True)))
    return tagger


def test_the_templates_and_the_header_say_whether_splits_are_read() -> None:
    tagger = trained(True)
    assert [p.template_set for p in tagger.passes] == ["left+splits"]
    assert tagger.morphology is not None
    assert tagger.morphology.template_set == "morph+splits"
    header, _ = tagger._file_parts(None)
    assert header["config"]["word_splits"] is True
    assert header["morphology"]["template_set"] == "morph+splits"
    loaded = Tagger.from_bytes(tagger.to_bytes())
    assert loaded.config.word_splits and loaded.lexicon is not None and loaded.lexicon.splits
    assert [p.template_set for p in loaded.passes] == ["left+splits"]


def test_a_model_from_before_the_splits_loads_and_tags_as_it_did() -> None:
    """A model file without word_splits in its config, without the morphology's template set
    and with a lexicon table of N_BASE_ATTRIBUTES columns (as models trained before the splits
    were written) reads no splits and tags as the model without them."""
    tagger = trained(False)
    assert [p.template_set for p in tagger.passes] == ["left"]
    header, arrays = tagger._file_parts(None)
    del header["config"]["word_splits"]
    del header["morphology"]["template_set"]
    arrays["lexicon/table"] = arrays["lexicon/table"][:, :N_BASE_ATTRIBUTES]
    old = Tagger._from_file_parts(header, arrays, "old model", {})
    assert not old.config.word_splits
    assert old.morphology is not None and old.morphology.template_set == "morph"
    forms = [s.form for s in sentences_from_text(synthetic_conllu(20, seed=7, features=True))]
    assert old.tag_forms(forms) == tagger.tag_forms(forms)
