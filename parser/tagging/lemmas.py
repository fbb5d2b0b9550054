"""Lemmas by edit scripts: a dictionary of the training words, and for the other words the edit
script that a morphology classifier (parser/tagging/morphology.py) chooses.

An edit script (Chrupała 2006's "shortest edit script", Chrupała, Dinu & van Genabith 2008's
Morfette; as UDPipe 2 and Stanza make them) turns a form into its lemma, whatever the language:
take the form or its lowercase, strip characters at its start and add a string there, strip
characters at its end and add a string there; what is kept is the longest substring the form
shares with the lemma (prefix changes: Afrikaans `gemaak` -> `maak`, Gothic `atstandands` ->
`at-standan`; suffixes: Turkish `organlarımızla` -> `organ`, Korean `드레스를` -> `드레스+를`).
A lemma that shares nothing with its form (`went` -> `go`) is a whole-word script, which gives
that lemma to any form. The lowercase is taken where it makes the added strings shorter (`The`
-> `the`, but `Paris` -> `Paris`). (Scripts of the edits of an alignment, anchored at the nearer
end of the word, which also mark morpheme boundaries inside it, were 0.4 points worse over the
dev sets of UD 2.2: better for Gothic, 4 points worse for Korean.)

The lemma of a word whose form the training data had with the same tag is the one it had most
often (the dictionary); any other word's comes from the edit scripts the classifier of its tag
ranks best, among the scripts that tag's words needed in training at least twice
(SCRIPT_MIN_COUNT), reading the word's affixes, shape and tags (the `morph` templates): the best
script, unless one of the next best (within KNOWN_LEMMA_MARGIN of its decision value, among the
RANKED_SCRIPTS of parser/tagging/morphology.py) makes a lemma of the training data and the best
does not (a lexicon as Chrupała et al.'s Morfette and UDPipe's lemmatizer consult one:
Turkish `okuyorsunuz` -> `oku`, not `ok`). The lexicon is kept when the training data shows that
an unseen form's lemma is often a known one: when at least KNOWN_LEMMA_MIN_SHARE of the forms
seen once have a lemma that another form has (UD Turkish-IMST: 78 %; Korean-GSD, whose lemmas
spell the morphemes of the whole word, 0.6 %: there a known lemma is a coincidence).
"""
from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

# Training words whose script the words of their tag needed fewer times are left out of the
# lemma classifier's rows: it could not learn when to choose such a script.
SCRIPT_MIN_COUNT = 2
# A script below the best by more than this (in decision values; the SVM's margin is 1) is not
# taken for making a known lemma (measured on the dev sets of UD 2.2: margins 0.5, 1 and any).
KNOWN_LEMMA_MARGIN = 1.0
KNOWN_LEMMA_MIN_SHARE = 0.1


class EditScript(NamedTuple):
    """lower: work on the lowercase; strip_start characters removed at the start, add_start
    written there; strip_end removed at the end, add_end written there; strip_start -1: the
    lemma is add_start, whatever the form."""

    lower: bool
    strip_start: int
    add_start: str
    strip_end: int
    add_end: str

    def to_text(self) -> str:
        return json.dumps(list(self), ensure_ascii=False)

    @classmethod
    def from_text(cls, text: str) -> EditScript:
        lower, strip_start, add_start, strip_end, add_end = json.loads(text)
        return cls(bool(lower), int(strip_start), str(add_start), int(strip_end), str(add_end))


def longest_common_substring(a: str, b: str) -> tuple[int, int, int]:
    """(length, start in a, start in b) of the longest substring of both, the first in a of
    the longest (dynamic programming over the two strings)."""
    best = (0, 0, 0)
    previous = [0] * (len(b) + 1)
    for i, char in enumerate(a, 1):
        current = [0] * (len(b) + 1)
        for j, other in enumerate(b, 1):
            if char == other:
                current[j] = previous[j - 1] + 1
                if current[j] > best[0]:
                    best = (current[j], i - current[j], j - current[j])
        previous = current
    return best


def script_of(form: str, lemma: str) -> EditScript:
    """The edit script that turns form into lemma with the shortest added strings (the
    lowercase first on ties; a whole-word script only when the two share no character)."""
    best: tuple[int, EditScript] | None = None
    for lower in (True, False):
        base = form.lower() if lower else form
        length, in_form, in_lemma = longest_common_substring(base, lemma)
        if length == 0:
            script = EditScript(lower, -1, lemma, 0, "")
            cost = len(lemma) + len(base) + 1
        else:
            script = EditScript(lower, in_form, lemma[:in_lemma],
                                len(base) - in_form - length, lemma[in_lemma + length:])
            cost = len(script.add_start) + len(script.add_end)
        if best is None or cost < best[0]:
            best = (cost, script)
    assert best is not None
    return best[1]


def apply_script(form: str, script: EditScript) -> str | None:
    """The lemma the script makes of form, or None when it strips more than the form has (or
    all of it, adding nothing)."""
    if script.strip_start < 0:
        return script.add_start
    base = form.lower() if script.lower else form
    kept = len(base) - script.strip_start - script.strip_end
    if kept < 0 or (kept == 0 and not (script.add_start or script.add_end)):
        return None
    return script.add_start + base[script.strip_start:len(base) - script.strip_end] \
        + script.add_end


def script_labels(words: Sequence[tuple[str, int, str]]) -> tuple[list[str], list[int]]:
    """The edit scripts (as text, sorted) that training words (form, tag class, lemma) need at
    least SCRIPT_MIN_COUNT times with their tag, and each word's index among them (-1: a rarer
    script, or no lemma "_")."""
    found = [None if lemma == "_" else script_of(form, lemma).to_text()
             for form, _, lemma in words]
    counts = Counter((tag, script) for (_, tag, _), script in zip(words, found)
                     if script is not None)
    kept = sorted({script for (_, script), n in counts.items() if n >= SCRIPT_MIN_COUNT})
    index = {script: i for i, script in enumerate(kept)}
    labels = [-1 if script is None or counts[(tag, script)] < SCRIPT_MIN_COUNT
              else index[script] for (_, tag, _), script in zip(words, found)]
    return kept, labels


class Lemmatizer:
    """The dictionary of (form, tag class) -> lemma, the edit scripts the classifier's values
    name and the lemmas of the training data (None: not consulted)."""

    def __init__(self, dictionary: dict[str, str], scripts: Sequence[str],
                 known: Iterable[str] | None = None) -> None:
        self.dictionary = dictionary
        self.scripts = [EditScript.from_text(text) for text in scripts]
        self.known = None if known is None else frozenset(known)

    @classmethod
    def learn(cls, words: Iterable[tuple[str, int, str]], scripts: Sequence[str]
              ) -> Lemmatizer:
        """From (form, tag class, lemma) triples of a treebank (words without a lemma, "_",
        are left out) and the scripts of script_labels."""
        words = [(form, tag, lemma) for form, tag, lemma in words if lemma != "_"]
        by_form: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for form, tag, lemma in words:
            by_form[_key(form, tag)][lemma] += 1
        dictionary = {key: min(found.items(), key=lambda item: (-item[1], item[0]))[0]
                      for key, found in sorted(by_form.items())}
        form_count = Counter(form for form, _, _ in words)
        forms_of: defaultdict[str, set[str]] = defaultdict(set)
        for form, _, lemma in words:
            forms_of[lemma].add(form)
        once = [(form, lemma) for form, _, lemma in words if form_count[form] == 1]
        shared = sum(1 for form, lemma in once if forms_of[lemma] - {form})
        known = None
        if once and shared >= KNOWN_LEMMA_MIN_SHARE * len(once):
            known = sorted(forms_of)
        return cls(dictionary, scripts, known)

    def lemma(self, form: str, tag: int, ranked: tuple[Sequence[int], Sequence[float]]
              ) -> str:
        """The lemma of a form with that tag class, whose classifier ranked these scripts
        (indices best first, -1 past the last, and their decision values)."""
        found = self.dictionary.get(_key(form, tag))
        return found if found is not None else self.by_scripts(form, ranked)

    def in_dictionary(self, forms: Sequence[str], tags: Sequence[int]) -> list[str | None]:
        """The dictionary's lemma of each form with its tag class (None: not there)."""
        get = self.dictionary.get
        return [get(f"{form}\t{tag}") for form, tag in zip(forms, tags)]

    def by_scripts(self, form: str, ranked: tuple[Sequence[int], Sequence[float]]) -> str:
        """The lemma that the ranked scripts make of form (the best, or a close one that makes
        a known lemma; the form itself when none fits it)."""
        best: tuple[float, str] | None = None
        for script, score in zip(*ranked):
            if script < 0:
                break
            made = apply_script(form, self.scripts[script])
            if not made:
                continue
            if best is None:
                best = (score, made)
                if self.known is None or made in self.known:
                    break
            elif score < best[0] - KNOWN_LEMMA_MARGIN:
                break
            elif made in self.known:  # type: ignore[operator]
                return made
        return form if best is None else best[1]

    def to_json(self) -> dict[str, Any]:
        return {"dictionary": self.dictionary,
                "known": None if self.known is None else sorted(self.known)}

    @classmethod
    def from_json(cls, data: dict[str, Any], scripts: Sequence[str]) -> Lemmatizer:
        return cls(dict(data["dictionary"]), scripts, data["known"])


def _key(form: str, tag: int) -> str:
    return f"{form}\t{tag}"
