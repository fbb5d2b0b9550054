"""The tagger's lexicon: rare forms stand for unknown ones in training, unknown forms read the
ambiguity classes (tags and FEATS) of their lowercase."""
from __future__ import annotations

from polyparse.features.interning import UNKNOWN
from polyparse.parser.tagging.lexicon import A_AMBIGUITY, A_FORM, A_MORPH_AMBIGUITY, Lexicon

SENTENCES = [(["The", "dog", "runs"], ["DT", "NN", "VBZ"], ["Def", "Sing", "Sing"]),
             (["the", "dogs", "run"], ["DT", "NNS", "VBP"], ["Def", "Plur", "_"]),
             (["A", "run", "Run"], ["DT", "NN", "NNP"], ["Ind", "Sing", "Sing"]),
             (["the", "run"], ["DT", "NN"], ["Def", "Sing"])]


def learned(min_word_count: int) -> Lexicon:
    return Lexicon.learn([(f, x, [0] * len(f), m) for f, x, m in SENTENCES],
                         ambiguity_min_count=2, dictionary_min_count=0,
                         min_word_count=min_word_count)


def class_of(lexicon: Lexicon, table, form: str, column: int = A_AMBIGUITY) -> str | None:
    amb = int(table[lexicon.entries[form], column])
    return None if amb == UNKNOWN else lexicon.strings.strings[amb]


def test_a_rare_form_is_trained_on_the_class_of_its_other_forms() -> None:
    lexicon = learned(min_word_count=2)
    table, entry, offsets = lexicon.encode_training(SENTENCES, 2, 2)
    assert offsets.tolist() == [0, 3, 6, 9, 11] and entry.size == 11
    # "Run" (seen once) is known to tagging with the class of its lowercase...
    assert class_of(lexicon, lexicon.table, "Run") == "amb:NN|NNP|VBP"
    assert lexicon.table[lexicon.entries["Run"], A_FORM] == UNKNOWN
    # ...and trained with the tags of "run" alone, as an unseen "RUN" would be tagged.
    assert class_of(lexicon, table, "Run") == "amb:NN|VBP"
    assert class_of(lexicon, table, "run") == "amb:NN|NNP|VBP"
    # The FEATS the lowercase took, likewise.
    assert class_of(lexicon, lexicon.table, "Run", A_MORPH_AMBIGUITY) == "morph:Sing|_"
    assert class_of(lexicon, table, "Run", A_MORPH_AMBIGUITY) == "morph:Sing|_"
    assert class_of(lexicon, table, "The", A_MORPH_AMBIGUITY) == "morph:Def"
    # The FEATS the lowercase took, likewise.
    assert class_of(lexicon, lexicon.table, "Run", A_MORPH_AMBIGUITY) == "morph:Sing|_"
    assert class_of(lexicon, table, "Run", A_MORPH_AMBIGUITY) == "morph:Sing|_"
    assert class_of(lexicon, table, "The", A_MORPH_AMBIGUITY) == "morph:Def"
    # A rare form without other forms of its lowercase has no class in training.
    assert class_of(lexicon, table, "dogs") is None


def test_an_unknown_form_reads_the_class_of_its_lowercase() -> None:
    lexicon = learned(min_word_count=1)
    row = lexicon.unknown_row("RUN")
    assert row[A_FORM] == UNKNOWN
    for column in (A_AMBIGUITY, A_MORPH_AMBIGUITY):
        assert row[column] == lexicon.table[lexicon.entries["run"], column] != UNKNOWN
    assert lexicon.unknown_row("Walk")[A_AMBIGUITY] == UNKNOWN
