"""Lemmas by suffix rules and a table of exceptions, learned from a treebank.

A rule (Chrupała 2006's "shortest edit script", restricted to the end of the word) turns a
form into its lemma: take the form or its lowercase, strip k characters, append a string. For
each XPOS tag and each ending of the lowercased form (0 to MAX_ENDING characters) training
counts the rules its words need; a word gets the most frequent rule of the longest ending seen
at least `min_count` times with its tag (that rule must fit the word). The words whose training
lemma differs from what the rules give are kept in a table of exceptions, by (form, XPOS), and
then by (lowercase, XPOS).
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable
from typing import Any

MAX_ENDING = 4
# A rule: (lowercase first?, characters stripped, string appended).
Rule = tuple[bool, int, str]


def rule_of(form: str, lemma: str) -> Rule:
    """The rule that turns form into lemma with the shortest appended string (the lowercase
    before the form itself on ties, so that a rule learned on "saw" makes "see" of "Saw")."""
    best: Rule | None = None
    for lower in (True, False):
        base = form.lower() if lower else form
        common = 0
        for a, b in zip(base, lemma):
            if a != b:
                break
            common += 1
        rule = (lower, len(base) - common, lemma[common:])
        if best is None or len(rule[2]) < len(best[2]):
            best = rule
    assert best is not None
    return best


def apply_rule(form: str, rule: Rule) -> str | None:
    """The lemma the rule makes of form, or None when it strips more than the form has."""
    lower, strip, add = rule
    if strip >= len(form) and not add:
        return None
    if strip > len(form):
        return None
    base = form.lower() if lower else form
    return base[: len(base) - strip] + add


class Lemmatizer:
    """Rules by (XPOS, ending) and exceptions by (form, XPOS) and (lowercase, XPOS)."""

    def __init__(self, rules: dict[str, Rule], exceptions: dict[str, str],
                 min_count: int = 2) -> None:
        self.rules = rules
        self.exceptions = exceptions
        self.min_count = min_count
        self._cache: dict[tuple[str, str], str] = {}

    @classmethod
    def learn(cls, words: Iterable[tuple[str, str, str]], min_count: int = 2) -> Lemmatizer:
        """From (form, xpos, lemma) triples of a treebank (words without a lemma, "_", are
        left out)."""
        words = [(f, x, lemma) for f, x, lemma in words if lemma != "_"]
        counts: defaultdict[str, Counter[Rule]] = defaultdict(Counter)
        for form, xpos, lemma in words:
            rule = rule_of(form, lemma)
            lower = form.lower()
            for k in range(min(MAX_ENDING, len(lower)) + 1):
                counts[_rule_key(xpos, lower[len(lower) - k:])][rule] += 1
        rules = {}
        for key, found in counts.items():
            rule, n = min(found.items(), key=lambda item: (-item[1], item[0]))
            if n >= min_count:
                rules[key] = rule
        lemmatizer = cls(rules, {}, min_count)
        by_form: defaultdict[str, Counter[str]] = defaultdict(Counter)
        by_lower: defaultdict[str, Counter[str]] = defaultdict(Counter)
        for form, xpos, lemma in words:
            by_form[_exception_key(form, xpos)][lemma] += 1
            by_lower[_exception_key("\x00" + form.lower(), xpos)][lemma] += 1
        # Lowercase exceptions first; a form's own only where it differs from those.
        for table in (by_lower, by_form):
            found_exceptions = {}
            for key, found in table.items():
                lemma = min(found.items(), key=lambda item: (-item[1], item[0]))[0]
                form, xpos = key.split("\t")
                if lemmatizer.lemma(form.lstrip("\x00"), xpos) != lemma:
                    found_exceptions[key] = lemma
            lemmatizer.exceptions.update(found_exceptions)
            lemmatizer._cache.clear()
        return lemmatizer

    def lemma(self, form: str, xpos: str) -> str:
        """The lemma of a form with that XPOS."""
        key = (form, xpos)
        found = self._cache.get(key)
        if found is None:
            found = self.exceptions.get(_exception_key(form, xpos))
            if found is None:
                found = self.exceptions.get(_exception_key("\x00" + form.lower(), xpos))
            if found is None:
                found = self._by_rules(form, xpos)
            if len(self._cache) < 1 << 20:
                self._cache[key] = found
        return found

    def _by_rules(self, form: str, xpos: str) -> str:
        lower = form.lower()
        for k in range(min(MAX_ENDING, len(lower)), -1, -1):
            rule = self.rules.get(_rule_key(xpos, lower[len(lower) - k:]))
            if rule is not None:
                lemma = apply_rule(form, rule)
                if lemma:
                    return lemma
        return form

    def to_json(self) -> dict[str, Any]:
        return {"min_count": self.min_count,
                "rules": {key: list(rule) for key, rule in sorted(self.rules.items())},
                "exceptions": dict(sorted(self.exceptions.items()))}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Lemmatizer:
        rules = {key: (bool(r[0]), int(r[1]), str(r[2])) for key, r in data["rules"].items()}
        return cls(rules, dict(data["exceptions"]), int(data["min_count"]))


def _rule_key(xpos: str, ending: str) -> str:
    return f"{xpos}\t{ending}"


def _exception_key(form: str, xpos: str) -> str:
    return f"{form}\t{xpos}"
