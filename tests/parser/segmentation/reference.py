"""Plain-Python references of the segmenter's compiled parts: the units of a text, the keys of
the three decisions, and the greedy decoding and training rows of
parser/segmentation/boundary_decoder.pyx, written from the module notes."""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from polyparse.parser.segmentation.characters import character_features

MASK = (1 << 64) - 1
SEED = 0x243F6A8885A308D3
GAP_VALUE, EDGE_VALUE, GAP_CLASS, EDGE_CLASS = 0x20, 0x110000, 1, 2
CHAR, GAP, LINE_BREAK, PARAGRAPH_BREAK = 0, 1, 2, 3
FLAG_GAP, FLAG_NEWLINE, FLAG_PARAGRAPH = 1, 2, 4


def mix64(x: int) -> int:
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & MASK
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & MASK
    x ^= x >> 31
    return x


def combine(h: int, v: int) -> int:
    return mix64(((h ^ v) * 0x9E3779B97F4A7C15) & MASK)


def sequence_hash(values: Sequence[int]) -> int:
    h = SEED
    for value in values:
        h = combine(h, value)
    return h


def one(a: int) -> int:
    return combine(SEED, a)


def two(a: int, b: int) -> int:
    return combine(combine(SEED, a), b)


def three(a: int, b: int, c: int) -> int:
    return combine(combine(combine(SEED, a), b), c)


def key(template: int, h: int) -> int:
    return (template << 56) | (h >> 8)


LONG = one(EDGE_VALUE + 1)
EDGE_HASH = one(EDGE_VALUE)


@dataclass
class Units:
    value: list[int] = field(default_factory=list)
    klass: list[int] = field(default_factory=list)
    kind: list[int] = field(default_factory=list)
    start: list[int] = field(default_factory=list)
    chunk_first: list[int] = field(default_factory=list)
    chunk_last: list[int] = field(default_factory=list)
    chunk_hash: list[int] = field(default_factory=list)


def units_of(text: str, lines_are_breaks: bool = False) -> Units:
    """The units of a text, one character at a time."""
    features = [character_features(ord(char)) for char in text]
    units = Units()
    i = 0
    while i < len(text):
        value, klass, flags = features[i]
        if not flags & FLAG_GAP:
            units.value.append(value)
            units.klass.append(klass)
            units.kind.append(CHAR)
            units.start.append(i)
            i += 1
            continue
        j = i
        while j < len(text) and features[j][2] & FLAG_GAP:
            j += 1
        newlines = sum(1 for k in range(i, j) if features[k][2] & FLAG_NEWLINE)
        paragraph = any(features[k][2] & FLAG_PARAGRAPH for k in range(i, j))
        if paragraph or newlines >= 2:
            kind = PARAGRAPH_BREAK
        elif lines_are_breaks and newlines >= 1:
            kind = LINE_BREAK
        else:
            kind = GAP
        units.value.append(GAP_VALUE)
        units.klass.append(GAP_CLASS)
        units.kind.append(kind)
        units.start.append(i)
        i = j
    units.start.append(len(text))
    n = len(units.kind)
    units.chunk_first = [-1] * n
    units.chunk_last = [-1] * n
    units.chunk_hash = [0] * n
    u = 0
    while u < n:
        if units.kind[u] != CHAR:
            u += 1
            continue
        end = u
        while end + 1 < n and units.kind[end + 1] == CHAR:
            end += 1
        h = sequence_hash(units.value[u:end + 1])
        for p in range(u, end + 1):
            units.chunk_first[p], units.chunk_last[p], units.chunk_hash[p] = u, end, h
        u = end + 1
    return units


def regions_of(units: Units) -> list[tuple[int, int]]:
    """(first, last) character unit of each run of units between hard breaks."""
    found = []
    current: list[int] = []
    for u, kind in enumerate(units.kind + [PARAGRAPH_BREAK]):
        if kind >= LINE_BREAK:
            chars = [p for p in current if units.kind[p] == CHAR]
            if chars:
                found.append((chars[0], chars[-1]))
            current = []
        else:
            current.append(u)
    return found


def _window(units: Units, positions: Sequence[int], lo: int, hi: int
            ) -> tuple[list[int], list[int]]:
    inside = [lo <= p <= hi for p in positions]
    return ([units.value[p] if ok else EDGE_VALUE for p, ok in zip(positions, inside)],
            [units.klass[p] if ok else EDGE_CLASS for p, ok in zip(positions, inside)])


def _window_keys(v: list[int], c: list[int], base: int) -> list[int]:
    hashes = ([one(x) for x in v] + [two(v[k], v[k + 1]) for k in range(5)]
              + [three(v[k], v[k + 1], v[k + 2]) for k in range(4)]
              + [one(x) for x in c] + [two(c[k], c[k + 1]) for k in range(5)]
              + [three(c[k], c[k + 1], c[k + 2]) for k in range(4)])
    return [key(base + n, h) for n, h in enumerate(hashes)]


def inner_keys(units: Units, i: int, ts: int, lo: int, hi: int) -> list[int]:
    v, c = _window(units, range(i - 3, i + 3), lo, hi)
    keys = _window_keys(v, c, 0)
    length = i - ts
    so_far = sequence_hash(units.value[ts:i]) if length <= 8 else LONG
    first, last = units.chunk_first[i], units.chunk_last[i]
    rest = sequence_hash(units.value[i:last + 1]) if last - i < 8 else LONG
    chunk = combine(units.chunk_hash[i], i - first) if last - first < 16 else LONG
    hashes = [so_far, combine(so_far, v[3]), rest, three(min(length, 8), c[2], c[3]), chunk]
    return keys + [key(30 + n, h) for n, h in enumerate(hashes)]


def gap_keys(units: Units, i: int, ts: int, lo: int, hi: int) -> list[int]:
    v, c = _window(units, [i - 3, i - 2, i - 1, i + 1, i + 2, i + 3], lo, hi)
    keys = _window_keys(v, c, 64)
    p1, n1 = units.chunk_hash[i - 1], units.chunk_hash[i + 1]
    before_gap = units.chunk_first[i - 1] - 1
    p2 = (units.chunk_hash[before_gap - 1]
          if before_gap - 1 >= lo and units.kind[before_gap] == GAP else EDGE_HASH)
    after_gap = units.chunk_last[i + 1] + 1
    n2 = (units.chunk_hash[after_gap + 1]
          if after_gap + 1 <= hi and units.kind[after_gap] == GAP else EDGE_HASH)
    length = i - ts
    so_far = sequence_hash(units.value[ts:i]) if length <= 24 else LONG
    chunks = 1 + sum(1 for p in range(ts, i) if units.kind[p] == GAP)
    hashes = [one(p1), one(n1), two(p1, n1), two(p2, p1), two(n1, n2), three(p2, p1, n1),
              three(p1, n1, n2), so_far, two(so_far, n1), one(p2), one(n2),
              three(min(chunks, 4), c[2], c[3])]
    return keys + [key(64 + 30 + n, h) for n, h in enumerate(hashes)]


@dataclass
class Tokens:
    first: list[int]
    last: list[int]
    whole: list[int]
    shape: list[int]
    suffix2: list[int]
    suffix3: list[int]
    prefix3: list[int]


def tokens_of(units: Units, first: Sequence[int], last: Sequence[int]) -> Tokens:
    tokens = Tokens(list(first), list(last), [], [], [], [], [])
    for a, b in zip(first, last):
        values = units.value[a:b + 1]
        tokens.whole.append(sequence_hash(values))
        tokens.suffix2.append(sequence_hash(values[-2:]))
        tokens.suffix3.append(sequence_hash(values[-3:]))
        tokens.prefix3.append(sequence_hash(values[:3]))
        runs: list[int] = []
        for klass in units.klass[a:b + 1]:
            if not runs or runs[-1] != klass:
                runs.append(klass)
        shape = runs[:4] + ([EDGE_CLASS] if len(runs) > 4 else [])
        tokens.shape.append(sequence_hash(shape))
    return tokens


def _bucket(n: int) -> int:
    for limit, value in ((4, n), (6, 5), (9, 7), (14, 10), (19, 15), (29, 20), (49, 30)):
        if n <= limit:
            return value
    return 50


def sentence_keys(units: Units, s: Tokens, t: int, st: int, r0: int, r1: int) -> list[int]:
    w0, w1 = s.whole[t], s.whole[t + 1]
    before = s.whole[t - 1] if t - 1 >= r0 else EDGE_HASH
    w2 = s.whole[t + 2] if t + 2 <= r1 else EDGE_HASH
    last0, last_class0 = units.value[s.last[t]], units.klass[s.last[t]]
    first1, first_class1 = units.value[s.first[t + 1]], units.klass[s.first[t + 1]]
    last_before = units.value[s.last[t - 1]] if t - 1 >= r0 else EDGE_VALUE
    first_class2 = units.klass[s.first[t + 2]] if t + 2 <= r1 else EDGE_CLASS
    gap = int(units.kind[s.last[t] + 1] != CHAR)
    length = s.last[t] - s.first[t] + 1
    so_far = _bucket(t - st + 1)
    hashes = [
        one(w0), one(w1), one(before), one(w2), two(w0, w1), two(before, w0), one(last0),
        one(first1), two(last_class0, first_class1), two(last0, first_class1),
        two(last_class0, first1), one(s.shape[t]), one(s.shape[t + 1]),
        two(s.shape[t], s.shape[t + 1]), three(gap, last0, first_class1), one(s.suffix3[t]),
        one(s.prefix3[t + 1]), two(min(length, 6), last_class0), two(w0, first_class1),
        three(before, w0, first_class1), one(so_far), two(so_far, last0),
        three(w0, first_class1, gap), three(last_before, last0, first1),
        two(first1, first_class2), one(s.suffix2[t]), three(gap, last_class0, first_class1),
    ]
    return [key(128 + n, h) for n, h in enumerate(hashes)]


def score(weights: Mapping[int, float], bias: float, keys: Sequence[int]) -> float:
    """bias + the float32 weights of the known keys, summed in order in float64."""
    total = bias
    for k in keys:
        if k in weights:
            total += float(np.float32(weights[k]))
    return total


Weights = tuple[Mapping[int, float], float]


def decode_tokens(units: Units, regions: Sequence[tuple[int, int]], inner: Weights,
                  gap: Weights | None) -> tuple[list[int], list[int], list[int]]:
    first: list[int] = []
    last: list[int] = []
    offsets = [0]
    for lo, hi in regions:
        ts = lo
        for i in range(lo + 1, hi + 1):
            if units.kind[i] == CHAR:
                if units.kind[i - 1] == CHAR and score(*inner, inner_keys(units, i, ts, lo,
                                                                          hi)) > 0:
                    first.append(ts)
                    last.append(i - 1)
                    ts = i
            elif gap is None or score(*gap, gap_keys(units, i, ts, lo, hi)) > 0:
                first.append(ts)
                last.append(i - 1)
                ts = i + 1
        first.append(ts)
        last.append(hi)
        offsets.append(len(first))
    return first, last, offsets


def decode_sentences(units: Units, tokens: Tokens, offsets: Sequence[int],
                     sentence: Weights) -> list[int]:
    ends = [0] * len(tokens.first)
    for r0, stop in zip(offsets, offsets[1:]):
        r1 = stop - 1
        if r1 < r0:
            continue
        st = r0
        for t in range(r0, r1):
            if score(*sentence, sentence_keys(units, tokens, t, st, r0, r1)) > 0:
                ends[t] = 1
                st = t + 1
        ends[r1] = 1
    return ends


def token_training_rows(units: Units, regions: Sequence[tuple[int, int]], gold: Sequence[int],
                        with_gaps: bool) -> tuple[list[list[int]], list[int], list[list[int]],
                                                  list[int]]:
    inner_rows, inner_labels, gap_rows, gap_labels = [], [], [], []
    for lo, hi in regions:
        ts = lo
        for i in range(lo + 1, hi + 1):
            if units.kind[i] == CHAR:
                if units.kind[i - 1] == CHAR:
                    inner_rows.append(inner_keys(units, i, ts, lo, hi))
                    inner_labels.append(gold[i])
                    if gold[i]:
                        ts = i
            else:
                if with_gaps:
                    gap_rows.append(gap_keys(units, i, ts, lo, hi))
                    gap_labels.append(gold[i])
                if gold[i] or not with_gaps:
                    ts = i + 1
    return inner_rows, inner_labels, gap_rows, gap_labels
