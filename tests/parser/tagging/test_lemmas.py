"""Lemmas by edit scripts: scripts made of form-lemma pairs of several languages turn the form
back into its lemma and generalise to other forms; the dictionary wins over the scripts."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.parser.tagging.lemmas import (
    EditScript,
    Lemmatizer,
    apply_script,
    longest_common_substring,
    script_labels,
    script_of,
)

PAIRS = [("dogs", "dog"), ("barked", "bark"), ("The", "the"), ("saw", "see"),
         ("Paris", "Paris"), ("happier", "happy"), ("IBM", "IBM"), ("went", "go"),
         ("gemaak", "maak"), ("atstandands", "at-standan"), ("드레스를", "드레스+를"),
         ("보여주며", "보이+어+주+며"), ("organlarımızla", "organ"), ("ΕΑΜ", "ΕΑΜ"),
         ("της", "ο"), ("a", "a"), ("x", "y"), ("Étaient", "être"), ("Väter", "Vater"),
         ("dog", "dogs")]


@pytest.mark.parametrize("form, lemma", PAIRS)
def test_a_script_turns_its_form_into_its_lemma(form: str, lemma: str) -> None:
    script = script_of(form, lemma)
    assert apply_script(form, script) == lemma
    assert EditScript.from_text(script.to_text()) == script


def test_scripts_keep_the_longest_common_part_and_generalise() -> None:
    assert script_of("gemaak", "maak") == EditScript(True, 2, "", 0, "")
    assert apply_script("gespeel", script_of("gemaak", "maak")) == "speel"
    assert apply_script("atgaggands", script_of("atstandands", "at-standan")) == "at-gaggan"
    assert apply_script("사과를", script_of("드레스를", "드레스+를")) == "사과+를"
    assert apply_script("bakıyorsunuz", script_of("okuyorsunuz", "oku")) == "bakı"
    assert script_of("went", "go") == EditScript(True, -1, "go", 0, "")
    assert apply_script("anything", script_of("went", "go")) == "go"
    # The lowercase where it adds less, the form itself where it keeps the case.
    assert script_of("The", "the").lower and not script_of("Paris", "Paris").lower
    # Scripts that strip more than the form has, or all of it adding nothing.
    assert apply_script("a", EditScript(True, 0, "", 2, "")) is None
    assert apply_script("ab", EditScript(True, 0, "", 2, "")) is None
    assert apply_script("ab", EditScript(True, 0, "", 2, "x")) == "x"


def test_longest_common_substring() -> None:
    assert longest_common_substring("organlarımızla", "organ") == (5, 0, 0)
    assert longest_common_substring("abcxyz", "xyzabc") == (3, 0, 3)
    assert longest_common_substring("abc", "def") == (0, 0, 0)
    assert longest_common_substring("", "a") == (0, 0, 0)


def test_rare_scripts_are_not_training_labels() -> None:
    words = [("dogs", 0, "dog"), ("cats", 0, "cat"), ("mice", 0, "mouse"), ("runs", 1, "run"),
             ("x", 0, "_")]
    scripts, labels = script_labels(words)
    plural = script_of("dogs", "dog").to_text()
    assert scripts == [plural]
    # "mice" needs a script seen once; "runs" one seen once with its tag; "x" has no lemma.
    assert labels == [0, 0, -1, -1, -1]


def test_the_dictionary_wins_then_the_script_then_the_form() -> None:
    words = [("saw", 1, "see"), ("saw", 1, "see"), ("saw", 2, "saw"), ("dogs", 2, "dog"),
             ("dogs", 2, "dog")]
    scripts, _ = script_labels(words)
    lemmatizer = Lemmatizer.learn(words, scripts)
    assert lemmatizer.lemma("saw", 1, ([], [])) == "see"
    assert lemmatizer.lemma("saw", 2, ([0], [1.0])) == "saw"
    plural = scripts.index(script_of("dogs", "dog").to_text())
    assert lemmatizer.lemma("birds", 2, ([plural, -1], [0.5, -np.inf])) == "bird"
    # A script that strips the whole form is passed over.
    assert lemmatizer.lemma("s", 2, ([plural], [0.5])) == "s"
    assert lemmatizer.lemma("birds", 2, ([], [])) == "birds"
    again = Lemmatizer.from_json(lemmatizer.to_json(), scripts)
    assert again.lemma("saw", 1, ([], [])) == "see"
    assert again.lemma("birds", 2, ([plural], [0.5])) == "bird"


def test_a_close_script_that_makes_a_known_lemma_wins() -> None:
    """Turkish: the best script makes `ok` of `okuyorsunuz`, the next (within the margin)
    `oku`, a lemma of the training data."""
    words = [("okudum", 0, "oku"), ("okudu", 0, "oku"), ("geldiler", 0, "gel"),
             ("gelir", 0, "gel"), ("bakıyorsunuz", 0, "bak"), ("bakıyoruz", 0, "bak"),
             ("yazıyorsunuz", 0, "yaz"), ("yazarsınız", 0, "yaz")]
    long_cut, short_cut = script_of("okuyorsunuz", "ok"), script_of("okuyorsunuz", "oku")
    scripts = [long_cut.to_text(), short_cut.to_text()]
    lemmatizer = Lemmatizer.learn(words, scripts)
    assert lemmatizer.known is not None and "oku" in lemmatizer.known
    assert lemmatizer.lemma("okuyorsunuz", 0, ([0, 1], [0.3, -0.2])) == "oku"
    # Not beyond the margin; the best when it makes a known lemma itself, or when none does.
    assert lemmatizer.lemma("okuyorsunuz", 0, ([0, 1], [0.3, -0.9])) == "ok"
    assert lemmatizer.lemma("okuyorsunuz", 0, ([1, 0], [0.3, 0.2])) == "oku"
    assert lemmatizer.lemma("xyzyorsunuz", 0, ([0, 1], [0.3, 0.2])) == "xy"


def test_the_known_lemmas_are_kept_only_where_unseen_forms_share_them() -> None:
    """Where the lemma of a form seen once is almost never another form's (Korean-GSD's
    lemmas spell the morphemes of each word), a known lemma would be a coincidence."""
    words = [(f"w{i}", 0, f"w+{i}") for i in range(20)] + [("a", 0, "a"), ("a", 0, "a")]
    assert Lemmatizer.learn(words, []).known is None
    words = [("cats", 0, "cat"), ("cat", 0, "cat"), ("dogs", 0, "dog"), ("dog", 0, "dog")]
    assert Lemmatizer.learn(words, []).known == {"cat", "dog"}
