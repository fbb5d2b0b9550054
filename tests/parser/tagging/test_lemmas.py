"""Lemmas by suffix rules and exceptions learned from a treebank."""
from __future__ import annotations

from parser.tagging.lemmas import Lemmatizer, apply_rule, rule_of


def test_rule_turns_the_form_into_its_lemma() -> None:
    for form, lemma in [("dogs", "dog"), ("barked", "bark"), ("The", "the"), ("saw", "see"),
                        ("Paris", "Paris"), ("happier", "happy"), ("IBM", "IBM")]:
        assert apply_rule(form, rule_of(form, lemma)) == lemma


def test_rules_generalise_to_unseen_words_and_exceptions_win() -> None:
    words = [("dogs", "NNS", "dog"), ("cats", "NNS", "cat"), ("houses", "NNS", "house"),
             ("walked", "VBD", "walk"), ("barked", "VBD", "bark"), ("saw", "VBD", "see"),
             ("The", "DT", "the"), ("the", "DT", "the"), ("mice", "NNS", "mouse")] * 2
    lemmatizer = Lemmatizer.learn(words)
    assert lemmatizer.lemma("birds", "NNS") == "bird"
    assert lemmatizer.lemma("jumped", "VBD") == "jump"
    assert lemmatizer.lemma("saw", "VBD") == "see"
    assert lemmatizer.lemma("Saw", "VBD") == "see"
    assert lemmatizer.lemma("mice", "NNS") == "mouse"
    assert lemmatizer.lemma("THE", "DT") == "the"
    again = Lemmatizer.from_json(lemmatizer.to_json())
    for form, xpos, _ in words + [("birds", "NNS", ""), ("zzz", "XX", "")]:
        assert again.lemma(form, xpos) == lemmatizer.lemma(form, xpos)


def test_training_lemmas_come_back() -> None:
    words = [("running", "VBG", "run"), ("sitting", "VBG", "sit"), ("eating", "VBG", "eat"),
             ("is", "VBZ", "be"), ("has", "VBZ", "have"), ("walks", "VBZ", "walk")]
    lemmatizer = Lemmatizer.learn(words)
    for form, xpos, lemma in words:
        assert lemmatizer.lemma(form, xpos) == lemma
