"""Sentence boundaries inside a paragraph: a linear classifier over binary features of the
places where a sentence may end.

The method is that of Gillick (2009, "Sentence boundary detection and the problem with the
U.S.") and of Punkt's candidates (Kiss & Strunk 2006): a token of final punctuation
(``. ! ? ...``) or a token ending in a period (``etc.``, ``U.S.``) may end a sentence, and so
may each closing quote or bracket after it (one place of such a group at most: the best
scored, since a straight quote after a period may open the next sentence), and any token
before one that starts with a capital or a digit or is a web address (web text ends many
sentences without punctuation: greetings, e-mail headers, signatures); a classifier decides
from the tokens around the candidate (the token, the words before and after, their shapes,
whether the word before is a known abbreviation, spacing, and a few conjunctions of these).
The classifier is the project's `linear` backend (dual coordinate descent, Hsieh et al. 2008)
trained on a treebank's sentences; its explicit weights w (and bias) are read off the trained
model, so that a candidate is scored by summing the weights of its features in plain Python:
sum_i w_i x_i + b, exactly the backend's decision value. A paragraph always ends a sentence.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

__all__ = ["SentenceSplitter", "candidate_features", "candidate_groups", "candidates"]

_ENDERS = frozenset(".!?…")
_CLOSERS = frozenset(['"', "'", "”", "’", ")", "]", "}", "»", "''"])


def _shape(token: str) -> str:
    """A coarse shape: X (upper), Xx (capitalized), x (lower), d (digits), p (punctuation),
    o (other)."""
    first = token[0]
    if first.isalpha():
        if token.isupper():
            return "X"
        return "Xx" if first.isupper() else "x"
    if first.isdigit():
        return "d"
    return "p" if not any(char.isalnum() for char in token) else "o"


def _may_start_sentence(token: str) -> bool:
    """A token after which no punctuation is needed to end the sentence before it: one that
    starts with a capital or a digit, or a web address."""
    return token[0].isupper() or token[0].isdigit() or "://" in token


def candidate_groups(tokens: Sequence[str]) -> list[list[int]]:
    """The places after which a sentence may end (not after the last token), in groups of
    which at most one is a sentence end: final punctuation (a token of . ! ? and ellipses
    only, or a token ending in a period) and each closing quote or bracket after it (a
    straight quote after a period may as well open the next sentence: `said. "We`); any
    token before one that starts with a capital or a digit or is a web address (web text
    ends many sentences without punctuation: greetings, e-mail headers and signatures such as
    `Kay Mann 04/26/2001 07:17 AM Will you`, lists of links)."""
    found = []
    n = len(tokens)
    i = 0
    while i < n - 1:
        token = tokens[i]
        last = token[-1]
        if last in _ENDERS and (last == "." or _ENDERS.issuperset(token)):
            group = [i]
            while i + 1 < n - 1 and tokens[i + 1] in _CLOSERS:
                i += 1
                group.append(i)
            found.append(group)
        elif _may_start_sentence(tokens[i + 1]):
            found.append([i])
        i += 1
    return found


def candidates(tokens: Sequence[str]) -> list[int]:
    """Every place of candidate_groups, in order."""
    return [i for group in candidate_groups(tokens) for i in group]


def candidate_features(tokens: Sequence[str], spaces: Sequence[object], i: int,
                       abbreviations: frozenset[str]) -> list[str]:
    """Binary features (as strings) of the candidate boundary after tokens[i]."""
    end = i
    while end > 0 and tokens[end] in _CLOSERS:
        end -= 1
    token = tokens[end]
    before = tokens[end - 1] if end > 0 else "<s>"
    after = tokens[i + 1]
    after2 = tokens[i + 2] if i + 2 < len(tokens) else "</p>"
    before_shape = _shape(before) if end > 0 else "<s>"
    after_shape = _shape(after)
    token_shape = _shape(token)
    lower_before = before.lower()
    closed = "c" if end < i else "-"
    spaced = "s" if spaces[i] else "n"
    abbreviation = "a" if (lower_before + "." in abbreviations or token.lower() in
                           abbreviations) else "-"
    return [
        "t=" + token.lower(), "b=" + lower_before, "bs=" + before_shape, "a=" + after.lower(),
        "as=" + after_shape, "a2s=" + (_shape(after2) if i + 2 < len(tokens) else "</p>"),
        "c=" + closed, "sp=" + spaced, "ab=" + abbreviation, "bl=" + str(min(len(before), 4)),
        "t|as=" + token.lower() + "|" + after_shape, "bs|as=" + before_shape + "|" + after_shape,
        "ab|as=" + abbreviation + "|" + after_shape, "sp|as=" + spaced + "|" + after_shape,
        "b|as=" + lower_before + "|" + after_shape, "t|a=" + token.lower() + "|" + after.lower(),
        "c|as=" + closed + "|" + after_shape,
        "ts|as=" + token_shape + "|" + after_shape,
        "bs|ts|as=" + before_shape + "|" + token_shape + "|" + after_shape,
    ]


class SentenceSplitter:
    """Boundaries of sentences in a paragraph's tokens (see the module notes)."""

    def __init__(self, weights: Mapping[str, float], bias: float,
                 abbreviations: frozenset[str]) -> None:
        self.weights = dict(weights)
        self.bias = float(bias)
        self.abbreviations = abbreviations

    def score(self, features: Sequence[str]) -> float:
        """The linear decision value of a candidate: its features' weights plus the bias."""
        weights = self.weights
        return self.bias + sum(weights.get(feature, 0.0) for feature in features)

    def ends(self, tokens: Sequence[str], spaces: Sequence[object]) -> list[int]:
        """Indices of the tokens that end a sentence, the paragraph's last token included;
        spaces[i] is true when whitespace follows token i."""
        found = []
        for group in candidate_groups(tokens):
            score, best = max((self.score(candidate_features(tokens, spaces, i,
                                                             self.abbreviations)), i)
                              for i in group)
            if score > 0:
                found.append(best)
        found.append(len(tokens) - 1)
        return found
