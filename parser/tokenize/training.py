"""Learning the tokenizer's lexicon and sentence classifier from a UD treebank.

Tokens (parser/tokenize/chunk_rules.py): the treebank's text is cut into whitespace-free chunks,
each with the treebank's tokens. A string holding punctuation that is more often one token
than several consecutive tokens of a chunk is ``whole``; the first part of a hyphenated word
kept whole more often than cut (``non-``) is a hyphen prefix; a chunk that the rules cut
differently from the treebank more often than they cut it right is an exception, with its most
frequent tokenization. Words (parser/tokenize/words.py): each lower-cased token's most frequent
division into words, kept where it differs from the clitic rule's.
"""
from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Iterable

from polyparse.parser.tokenize.chunk_rules import ChunkRules
from polyparse.parser.tokenize.treebank_text import TreebankSentence
from polyparse.parser.tokenize.words import MultiwordRules

__all__ = ["Lexicon", "chunks_of", "learn_lexicon"]

# Tokens of a chunk joined when looking for strings that the treebank cuts.
_MAX_JOINED = 5
_HYPHENATED = re.compile(r"([^\W\d_]+)-[^\W\d_]+")


class Lexicon(dict):
    """The keys whole, exceptions, hyphen_prefixes, multiword_lengths and multiword_spelled
    (JSON-ready values)."""


def chunks_of(sentences: Iterable[TreebankSentence]) -> list[tuple[str, list[str]]]:
    """(chunk, its tokens) for every whitespace-free stretch of the sentences' tokens; a
    sentence ends a chunk."""
    chunks = []
    for sentence in sentences:
        tokens: list[str] = []
        for token, space in zip(sentence.tokens, sentence.space_after):
            tokens.append(token)
            if space:
                chunks.append(("".join(tokens), tokens))
                tokens = []
        if tokens:
            chunks.append(("".join(tokens), tokens))
    return chunks


def learn_lexicon(sentences: list[TreebankSentence], min_exception_count: int = 1) -> Lexicon:
    """The lexicon of the module notes, learned from the treebank sentences."""
    chunks = chunks_of(sentences)
    as_token: Counter[str] = Counter()
    for _, tokens in chunks:
        for token in tokens:
            if len(token) > 1 and not token.isalnum():
                as_token[token] += 1
    as_pieces: Counter[str] = Counter()
    kept_prefix: Counter[str] = Counter()
    cut_prefix: Counter[str] = Counter()
    for _, tokens in chunks:
        for token in tokens:
            match = _HYPHENATED.fullmatch(token)
            if match:
                kept_prefix[match.group(1).lower()] += 1
        for i in range(len(tokens)):
            for j in range(i + 2, min(len(tokens), i + _MAX_JOINED) + 1):
                joined = "".join(tokens[i:j])
                if joined in as_token:
                    as_pieces[joined] += 1
            if i + 2 < len(tokens) and tokens[i + 1] == "-" and tokens[i].isalpha() \
                    and tokens[i + 2].isalpha():
                cut_prefix[tokens[i].lower()] += 1
    whole = sorted(token for token, count in as_token.items() if count > as_pieces[token])
    prefixes = sorted(prefix for prefix, count in kept_prefix.items()
                      if count >= 2 and count > cut_prefix[prefix])
    rules = ChunkRules(whole, {}, prefixes)
    right: Counter[str] = Counter()
    wrong: defaultdict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
    for chunk, tokens in chunks:
        if rules.split_by_rules(chunk) == tokens:
            right[chunk] += 1
        else:
            wrong[chunk][tuple(tokens)] += 1
    exceptions = {}
    for chunk, counts in sorted(wrong.items()):
        tokens, count = counts.most_common(1)[0]
        if count >= min_exception_count and count > right[chunk]:
            exceptions[chunk] = list(tokens)
    lengths, spelled = _multiword_table(sentences)
    return Lexicon(whole=whole, exceptions=exceptions, hyphen_prefixes=prefixes,
                   multiword_lengths=lengths, multiword_spelled=spelled)


def _multiword_table(sentences: list[TreebankSentence]
                     ) -> tuple[dict[str, list[int]], dict[str, list[str]]]:
    """Each lower-cased token's most frequent words, where they differ from the rule's."""
    divisions: defaultdict[str, Counter[tuple[str, ...]]] = defaultdict(Counter)
    for sentence in sentences:
        for token, words in zip(sentence.tokens, sentence.words):
            divisions[token.lower()][tuple(word.lower() for word in words)] += 1
    rule = MultiwordRules({}, {})
    lengths: dict[str, list[int]] = {}
    spelled: dict[str, list[str]] = {}
    for token, counts in sorted(divisions.items()):
        words = list(counts.most_common(1)[0][0])
        if [word.lower() for word in rule.rule_words(token)] == words:
            continue
        if "".join(words) == token:
            lengths[token] = [len(word) for word in words]
        else:
            spelled[token] = words
    return lengths, spelled
