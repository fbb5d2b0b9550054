"""Plain-Python references of the tagger's compiled parts: the templates' keys and the greedy
left-to-right loop."""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

(A_FORM, A_LOWER, S1, S2, S3, S4, P1, P2, P3, SHAPE, AMBIGUITY, S5, S6,
 MORPH_AMBIGUITY) = range(14)
# The word splits' columns, read by the `+splits` template sets after their own templates.
SPLITS = range(14, 19)


def _key(template: int, value: int) -> int:
    return (template << 48) | value


def _pair(a: int, b: int) -> int:
    return ((a << 24) | (b & 0xFFFFFF)) & 0xFFFFFFFFFFFFFFFF


def reference_keys(lexicon: np.ndarray, entry: Sequence[int], tags: Sequence[int],
                   right: Sequence[int] | None, i: int, two_pass: bool,
                   splits: bool = False) -> list[int]:
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
        at(i, S5), at(i, S6), at(i, MORPH_AMBIGUITY), at(i + 1, MORPH_AMBIGUITY),
    ]
    if splits:
        values += [at(i, a) for a in SPLITS]
    if two_pass:
        r1 = right_tag(i + 1)
        values += [r1, _pair(r1, right_tag(i + 2)), _pair(t1, r1), _pair(lower, r1)]
    return [_key(t, v) for t, v in enumerate(values)]


def reference_morph_keys(lexicon: np.ndarray, entry: Sequence[int], tags: Sequence[int],
                         i: int, splits: bool = False) -> list[int]:
    """The `morph` (splits: `morph+splits`) keys of word i of a sentence whose words have the
    tagger's classes tags."""
    n = len(entry)

    def at(j: int, a: int) -> int:
        return int(lexicon[entry[j], a]) if 0 <= j < n else 0

    def tag(j: int) -> int:
        return int(tags[j]) + 3 if 0 <= j < n else 0

    values = [at(i, a) for a in range(14)] + [
        tag(i), tag(i - 1), tag(i + 1), _pair(tag(i - 2), tag(i - 1)),
        _pair(tag(i + 1), tag(i + 2)), at(i - 1, A_LOWER), at(i + 1, A_LOWER), at(i - 1, S2),
        at(i + 1, S2), at(i - 1, S3), at(i + 1, S3), _pair(tag(i - 1), at(i - 1, S3)),
        _pair(tag(i + 1), at(i + 1, S3)), _pair(tag(i - 1), at(i, S3)),
        _pair(tag(i + 1), at(i, S3)), at(i - 1, MORPH_AMBIGUITY), at(i + 1, MORPH_AMBIGUITY),
        at(i - 2, MORPH_AMBIGUITY), _pair(at(i - 1, MORPH_AMBIGUITY), at(i, S3)),
    ]
    if splits:
        values += [at(i, a) for a in SPLITS]
    return [_key(t, v) for t, v in enumerate(values)]


def reference_tag(lexicon: np.ndarray, entry: Sequence[int], offsets: Sequence[int],
                  vocab_ranks: dict[int, int], decision, classes: Sequence[int],
                  allowed_ptr: Sequence[int], allowed: Sequence[int],
                  right: Sequence[int] | None = None, two_pass: bool = False,
                  one_vs_one: bool = False, splits: bool = False) -> list[int]:
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
            keys = reference_keys(lexicon, words, tags, r, i, two_pass, splits)
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


def reference_morph_predict(morphology, lexicon: np.ndarray, entry: Sequence[int],
                            offsets: Sequence[int], groups: Sequence[int]) -> list[list[int]]:
    """What MorphDecoder.predict gives, in plain Python over the model's arrays: each word's
    `morph` keys, their ranks, and for each slot of its group the intercepts plus the weights
    of the ranks (in rank order), the sign of one output or the first largest of several."""
    arrays = {name: value.tolist() for name, value in morphology.arrays.items()}
    ranks_of = {key: rank for rank, key in enumerate(arrays["vocab/keys"])}
    out = []
    for k in range(len(offsets) - 1):
        words = list(entry[offsets[k]:offsets[k + 1]])
        tags = list(groups[offsets[k]:offsets[k + 1]])
        for i in range(len(words)):
            row = [-1] * len(morphology.targets)
            group = tags[i]
            low, high = arrays["group_outputs"][group], arrays["group_outputs"][group + 1]
            values = list(arrays["intercept"][low:high])
            keys = reference_morph_keys(lexicon, words, tags, i,
                                        morphology.template_set.endswith("+splits"))
            for rank in sorted(ranks_of[key] for key in keys if key in ranks_of):
                for p in range(arrays["weight_ptr"][rank], arrays["weight_ptr"][rank + 1]):
                    output = arrays["weight_outputs"][p]
                    if low <= output < high:
                        values[output - low] += arrays["weight_values"][p]
            for slot in range(arrays["group_slots"][group], arrays["group_slots"][group + 1]):
                first, last = arrays["slot_value_ptr"][slot], arrays["slot_value_ptr"][slot + 1]
                options = arrays["slot_values"][first:last]
                base = arrays["slot_output"][slot] - low
                if len(options) == 1:
                    best = 0
                elif len(options) == 2:
                    best = 0 if values[base] > 0 else 1
                else:
                    scores = values[base:base + len(options)]
                    best = scores.index(max(scores))
                row[arrays["slot_target"][slot]] = options[best]
            out.append(row)
    return out
