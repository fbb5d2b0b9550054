"""Tokens that a treebank splits in some places and keeps whole in others (French `des`: `de
les` or the article `des`; Turkish `vardı`): a linear classifier decides each occurrence from
the tokens around it.

A token type is ambiguous when its most frequent multiword analysis and its other analyses were
each seen at least MIN_EACH times. Each occurrence of an ambiguous token in the treebank is a
training row (label: it has that analysis); its binary features are the lower-cased token
alone and with the tokens before and after it (one and two on either side, their last two
characters, the class of the next token's first character), and the tokens before and after
without the token (shared by all ambiguous tokens): the contexts a tagger reads, which tell a
preposition from an article. The classifier is the project's `linear` backend
(parser/segmentation/linear_fit.py); features are hashed strings (BLAKE2b, 63 bits).
"""
from __future__ import annotations

import hashlib
from collections import Counter, defaultdict
from collections.abc import Sequence

import numpy as np

from polyparse.parser.segmentation.boundary_decoder import LinearWeights
from polyparse.parser.segmentation.characters import character_class
from polyparse.parser.segmentation.linear_fit import fit_linear

__all__ = ["ContextSplits", "context_keys"]

MIN_EACH = 2
DEFAULT_C = 0.5
_KEY_MASK = (1 << 63) - 1
_START, _END = "<s>", "</s>"

Analysis = tuple[str, ...]


def _key(*parts: str) -> int:
    digest = hashlib.blake2b("\x1f".join(parts).encode("utf-8", "surrogatepass"),
                             digest_size=8).digest()
    return int.from_bytes(digest, "little") & _KEY_MASK


def context_keys(tokens: Sequence[str], i: int) -> list[int]:
    """The feature keys of token i of a sentence's tokens."""
    lower = tokens[i].lower()
    before = tokens[i - 1].lower() if i > 0 else _START
    before2 = tokens[i - 2].lower() if i > 1 else _START
    after = tokens[i + 1].lower() if i + 1 < len(tokens) else _END
    after2 = tokens[i + 2].lower() if i + 2 < len(tokens) else _END
    after_class = character_class(tokens[i + 1][0]) if i + 1 < len(tokens) else _END
    return [
        _key("t", lower), _key("tp", lower, before), _key("tn", lower, after),
        _key("tpn", lower, before, after), _key("tpp", lower, before2, before),
        _key("tnn", lower, after, after2), _key("tns", lower, after[-2:]),
        _key("tps", lower, before[-2:]), _key("tnc", lower, after_class),
        _key("p", before), _key("n", after),
    ]


class ContextSplits:
    """analyses: ambiguous lower-cased token -> its multiword analysis; weights: the
    classifier (positive: split)."""

    def __init__(self, analyses: dict[str, Analysis], weights: LinearWeights) -> None:
        self.analyses = analyses
        self.weights = weights

    def splits(self, tokens: Sequence[str], i: int) -> bool:
        """Whether token i of a sentence's tokens takes its multiword analysis."""
        keys = np.asarray([context_keys(tokens, i)], dtype=np.uint64)
        return bool(self.weights.scores(keys)[0] > 0)

    @classmethod
    def learn(cls, sentences: Sequence[Sequence[tuple[str, Sequence[str]]]], seed: int = 1,
              C: float = DEFAULT_C) -> ContextSplits | None:
        """Learn from sentences of (token, words) pairs; None when no token is ambiguous."""
        counts: defaultdict[str, Counter[Analysis]] = defaultdict(Counter)
        for sentence in sentences:
            for token, words in sentence:
                counts[token.lower()][tuple(word.lower() for word in words)] += 1
        analyses: dict[str, Analysis] = {}
        for lower, found in sorted(counts.items()):
            splits = [(count, analysis) for analysis, count in found.items() if len(analysis) > 1]
            if not splits:
                continue
            count, analysis = max(splits)
            if count >= MIN_EACH and sum(found.values()) - count >= MIN_EACH:
                analyses[lower] = analysis
        if not analyses:
            return None
        rows: list[list[int]] = []
        labels: list[int] = []
        for sentence in sentences:
            tokens = [token for token, _ in sentence]
            for i, (token, words) in enumerate(sentence):
                analysis = analyses.get(token.lower())
                if analysis is not None:
                    rows.append(context_keys(tokens, i))
                    labels.append(int(tuple(word.lower() for word in words) == analysis))
        weights, _ = fit_linear(np.asarray(rows, dtype=np.uint64), np.asarray(labels), C, 1,
                                seed)
        return cls(analyses, weights)
