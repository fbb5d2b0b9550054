"""Plain-Python references of the tagger's compiled parts: the templates' keys and the greedy
left-to-right loop."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

A_FORM, A_LOWER, S1, S2, S3, S4, P1, P2, P3, SHAPE, AMBIGUITY = range(11)


def _key(template: int, value: int) -> int:
    return (template << 48) | value


def _pair(a: int, b: int) -> int:
    return ((a << 24) | (b & 0xFFFFFF)) & 0xFFFFFFFFFFFFFFFF


def reference_keys(lexicon: np.ndarray, entry: Sequence[int], tags: Sequence[int],
                   right: Sequence[int] | None, i: int, two_pass: bool) -> list[int]:
    n = len(entry)

    def at(j: int, a: int) -> int:
        return int(lexicon[entry[j], a]) if 0 <= j < n else 0

    def left(j: int) -> int:
        return int(tags[j]) + 3 if j >= 0 else 0

    def right_tag(j: int) -> int:
        assert right is not None
        return int(right[j]) + 3 if j < n else 0

    lower, t1 = at(i, A_LOWER), left(i - 1)
    values = [
        at(i, A_FORM), lower, at(i, S1), at(i, S2), at(i, S3), at(i, S4), at(i, P1),
        at(i, P2), at(i, P3), at(i, SHAPE), at(i, AMBIGUITY),
        at(i - 1, A_LOWER), at(i + 1, A_LOWER), at(i - 2, A_LOWER), at(i + 2, A_LOWER),
        t1, _pair(left(i - 2), t1), at(i + 1, AMBIGUITY), at(i + 2, AMBIGUITY),
        at(i - 1, AMBIGUITY), at(i + 1, S3), at(i - 1, S3), at(i + 1, SHAPE),
        _pair(t1, lower), _pair(at(i - 1, A_LOWER), lower), _pair(lower, at(i + 1, A_LOWER)),
        _pair(t1, at(i + 1, AMBIGUITY)), _pair(t1, at(i, S3)),
        _pair(at(i, AMBIGUITY), at(i + 1, AMBIGUITY)),
        at(i - 1, SHAPE), _pair(t1, at(i + 1, A_LOWER)), _pair(t1, at(i, SHAPE)),
        _pair(at(i + 1, A_LOWER), at(i + 2, A_LOWER)),
        _pair(at(i - 2, A_LOWER), at(i - 1, A_LOWER)),
    ]
    if two_pass:
        r1 = right_tag(i + 1)
        values += [r1, _pair(r1, right_tag(i + 2)), _pair(t1, r1), _pair(lower, r1)]
    return [_key(t, v) for t, v in enumerate(values)]


def reference_tag(lexicon: np.ndarray, entry: Sequence[int], offsets: Sequence[int],
                  vocab_ranks: dict[int, int], decision, classes: Sequence[int],
                  allowed_ptr: Sequence[int], allowed: Sequence[int],
                  right: Sequence[int] | None = None, two_pass: bool = False,
                  one_vs_one: bool = False) -> list[int]:
    """Greedy left to right: decision(sorted ranks) -> one value per class (in classes order;
    one_vs_one: libsvm's pairwise values, voted on); the best class the tag dictionary
    allows."""
    out = [0] * len(entry)
    for k in range(len(offsets) - 1):
        start, end = offsets[k], offsets[k + 1]
        words = list(entry[start:end])
        tags = [0] * len(words)
        r = None if right is None else list(right[start:end])
        for i in range(len(words)):
            keys = reference_keys(lexicon, words, tags, r, i, two_pass)
            ranks = sorted(vocab_ranks[key] for key in keys if key in vocab_ranks)
            values = list(decision(ranks))
            if len(values) == 1 and len(classes) == 2:
                values = [values[0], -values[0]]
            e = words[i]
            choices = list(range(len(classes)))
            if e + 1 < len(allowed_ptr) and allowed_ptr[e] < allowed_ptr[e + 1]:
                wanted = set(allowed[allowed_ptr[e]:allowed_ptr[e + 1]])
                restricted = [c for c in choices if classes[c] in wanted]
                choices = restricted or choices
            if one_vs_one:
                votes = [0] * len(classes)
                pairs = [(a, b) for a in range(len(classes)) for b in range(a + 1, len(classes))]
                for (a, b), value in zip(pairs, values):
                    if a in choices and b in choices:
                        votes[a if value > 0 else b] += 1
                best = max(choices, key=lambda c: (votes[c], -c))
            else:
                best = max(choices, key=lambda c: (values[c], -c))
            tags[i] = classes[best]
        out[start:end] = tags
    return out
