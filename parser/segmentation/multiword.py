"""The words of a token: multiword tokens (French `du` = `de le`, Turkish, Greek `στο` = `σε
το`, English `don't` = `do n't`), learned from a treebank's range lines.

As UDPipe 1's multiword splitter (Straka, Hajič & Straková 2016), a token is looked up in a
table of the tokens seen in training, else cut by suffix rules:

- A rule maps a suffix of a lower-cased token to its replacement words: the token's prefix
  before the suffix is kept and joined to the first replacement (`du`: suffix `u` -> `e le`,
  so `du` -> `de le`; `Ankara'daki`'s kind likewise). Every multiword token of the treebank
  proposes one rule for each of its suffixes (up to MAX_SUFFIX characters) whose kept prefix
  starts its first word. Every token (type: each lower-cased token once, with its most
  frequent analysis, so that a frequent contraction does not outvote the many words that only
  end like it) of the treebank that ends with such a suffix (past a non-empty prefix) votes
  for what it is: that rule's replacement, or not split. A suffix
  keeps the replacement with the most votes when it has at least MIN_RULE_COUNT of them and
  more than MIN_RULE_SHARE of the suffix's votes; a longer suffix whose tokens mostly stay
  whole keeps "not split", which blocks its shorter suffixes' rules. The longest suffix of a
  token that has a rule decides.
- The table keeps each seen token's most frequent analysis where the rules would give another.
- A token seen both split and whole is decided in its sentence by a classifier
  (parser/segmentation/multiword_context.py).

Words keep the token's own characters where they spell it (`DON'T` -> `DO N'T`); replacement
parts are lower-case, or upper-case in an upper-case token.
"""
from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence

from polyparse.parser.segmentation.multiword_context import ContextSplits

__all__ = ["MultiwordSplitter"]

# Longest suffix a rule reads, least votes and share of votes a rule needs.
MAX_SUFFIX = 4
MIN_RULE_COUNT = 1
MIN_RULE_SHARE = 0.5
# Memoized tokens (text repeats its tokens).
CACHE_SIZE = 100_000

Analysis = tuple[str, ...]


class MultiwordSplitter:
    """token -> its words (see the module notes). table: lower-cased token -> lower-cased
    words (one word: never split); rules: lower-cased suffix -> replacement words (empty: not
    split); context: the decisions of ambiguous tokens in their sentence
    (parser/segmentation/multiword_context.py), which sentence_words asks."""

    def __init__(self, table: Mapping[str, Sequence[str]],
                 rules: Mapping[str, Sequence[str]],
                 context: ContextSplits | None = None) -> None:
        self.table = {token: tuple(words) for token, words in table.items()}
        self.rules = {suffix: tuple(words) for suffix, words in rules.items()}
        self.context = context
        self._max_suffix = max(map(len, self.rules), default=0)
        # token -> (its words, None for a single word; its multiword analysis when the context
        # decides it, else None).
        self._cache: dict[str, tuple[tuple[str, ...] | None, Analysis | None]] = {}

    @property
    def empty(self) -> bool:
        """Whether no token is ever split."""
        return self.context is None and not any(
            len(words) > 1 for words in self.table.values()) and not any(self.rules.values())

    def words(self, token: str) -> list[str]:
        """The words of token out of context ([token] for a token of one word)."""
        words = (self._cache.get(token) or self._remember(token))[0]
        return [token] if words is None else list(words)

    def sentence_words(self, tokens: Sequence[str]) -> list[list[str]]:
        """The words of each token of a sentence, ambiguous tokens decided in context."""
        cache = self._cache
        entries = [cache.get(token) or self._remember(token) for token in tokens]
        found = [[token] if words is None else list(words)
                 for token, (words, _) in zip(tokens, entries)]
        context = self.context
        if context is not None:
            for i, (token, (_, ambiguous)) in enumerate(zip(tokens, entries)):
                if ambiguous is not None:
                    found[i] = (_cased(token, token.lower(), ambiguous)
                                if context.splits(tokens, i) else [token])
        return found

    def _remember(self, token: str) -> tuple[tuple[str, ...] | None, Analysis | None]:
        lower = token.lower()
        analysis = self.table.get(lower)
        if analysis is None:
            analysis = self.rule_analysis(lower)
        words = None if analysis is None or len(analysis) < 2 else tuple(
            _cased(token, lower, analysis))
        ambiguous = None if self.context is None else self.context.analyses.get(lower)
        if len(self._cache) >= CACHE_SIZE:
            self._cache.clear()
        entry = self._cache[token] = (words, ambiguous)
        return entry

    def rule_analysis(self, lower: str) -> Analysis | None:
        """The lower-cased words the rules give a lower-cased token (None: not split)."""
        for length in range(min(self._max_suffix, len(lower) - 1), 0, -1):
            replacement = self.rules.get(lower[-length:])
            if replacement is not None:
                if not replacement:
                    return None
                return (lower[:-length] + replacement[0],) + replacement[1:]
        return None

    @classmethod
    def learn(cls, sentences: Iterable[Sequence[tuple[str, Sequence[str]]]],
              seed: int = 1) -> MultiwordSplitter:
        """Learn the rules, the table and the context decisions from a treebank's sentences
        of (token, words) pairs."""
        sentences = [list(sentence) for sentence in sentences]
        analyses: defaultdict[str, Counter[Analysis]] = defaultdict(Counter)
        for token, words in (pair for sentence in sentences for pair in sentence):
            lower = token.lower()
            analyses[lower][tuple(word.lower() for word in words) if len(words) > 1
                            else (lower,)] += 1
        rules = _learn_rules(analyses)
        splitter = cls({}, rules)
        table: dict[str, Analysis] = {}
        for lower, counts in sorted(analyses.items()):
            best = _most_frequent(counts)
            if best != (splitter.rule_analysis(lower) or (lower,)):
                table[lower] = best
        return cls(table, rules, ContextSplits.learn(sentences, seed))


def _most_frequent(counts: Counter[Analysis]) -> Analysis:
    """The most frequent analysis (ties: the greatest)."""
    return max(counts.items(), key=lambda item: (item[1], item[0]))[0]


def _suffix_outcome(lower: str, analysis: Analysis, length: int) -> Analysis | None:
    """What a token of this analysis says about the rule of its suffix of this length: the
    replacement (empty: not split), or None when its first word does not start with the kept
    prefix."""
    if len(analysis) == 1:
        return ()
    kept = len(lower) - length
    if analysis[0][:kept] != lower[:kept] or len(analysis[0]) < kept:
        return None
    return (analysis[0][kept:],) + analysis[1:]


def _learn_rules(analyses: Mapping[str, Counter[Analysis]]) -> dict[str, Analysis]:
    """The suffix rules of the module notes."""
    proposed: set[str] = set()
    for lower, counts in analyses.items():
        if any(len(analysis) > 1 for analysis in counts):
            for length in range(1, min(MAX_SUFFIX, len(lower) - 1) + 1):
                proposed.add(lower[-length:])
    votes: defaultdict[str, Counter[Analysis | None]] = defaultdict(Counter)
    for lower, counts in analyses.items():
        analysis = _most_frequent(counts)
        for length in range(1, min(MAX_SUFFIX, len(lower) - 1) + 1):
            suffix = lower[-length:]
            if suffix in proposed:
                votes[suffix][_suffix_outcome(lower, analysis, length)] += 1
    decided: dict[str, Analysis] = {}
    for suffix, counts in votes.items():
        total = sum(counts.values())
        splits = [(count, outcome) for outcome, count in counts.items() if outcome]
        if splits:
            count, outcome = max(splits)
            if count >= MIN_RULE_COUNT and count > MIN_RULE_SHARE * total:
                decided[suffix] = outcome  # type: ignore[assignment]
                continue
        decided[suffix] = ()
    # Keep a suffix's entry only where it changes what its longest shorter entry gives.
    kept: dict[str, Analysis] = {}
    for suffix in sorted(decided, key=lambda text: (len(text), text)):
        # What the longest shorter entry gives a token ending in suffix, as a replacement of
        # the whole suffix.
        shorter: Analysis = ()
        for length in range(len(suffix) - 1, 0, -1):
            found = kept.get(suffix[-length:])
            if found is not None:
                if found:
                    shorter = (suffix[:-length] + found[0],) + found[1:]
                break
        if decided[suffix] != shorter:
            kept[suffix] = decided[suffix]
    return kept


def _cased(token: str, lower: str, analysis: Analysis) -> list[str]:
    """The words of analysis in the token's own characters where they spell it."""
    if len(lower) == len(token) and "".join(analysis) == lower:
        words = []
        start = 0
        for word in analysis:
            words.append(token[start:start + len(word)])
            start += len(word)
        return words
    first = analysis[0]
    kept = 0
    if len(lower) == len(token):
        while kept < min(len(first), len(lower)) and first[kept] == lower[kept]:
            kept += 1
    upper = len(token) > 1 and token.isupper()
    rest = [first[kept:]] + list(analysis[1:])
    if upper:
        rest = [word.upper() for word in rest]
    return [token[:kept] + rest[0]] + rest[1:]
