"""Feature templates: the Cython keys equal a plain-Python reading of the template tables."""
from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.parser.dependency.arc_eager import ArcEagerState
from polyparse.parser.dependency.feature_templates import (
    N_MORPH_SLOTS,
    state_keys,
    template_names,
)


def key(template: int, value: int) -> int:
    return (template << 48) | value


def reference_keys(s: ArcEagerState, word: list[int], tag: list[int], coarse: list[int],
                   feature_set: str, morph: list[list[int]] | None = None,
                   suffix: list[int] | None = None) -> list[int]:
    """The templates computed from the Python view: stack, buffer, heads, labels, children
    (and, for the morph set, each slot's feature values and the suffixes)."""
    stack, buffer, n = s.stack, s.buffer, len(word) - 1
    heads = [-1] + [h if h >= 0 else -1 for h in s.heads]
    labels = [None] + s.labels

    def at(seq: list[int], i: int) -> int:
        return seq[i] if i < len(seq) else -1

    s0, s1 = at(stack[::-1], 0), at(stack[::-1], 1)
    b0, b1, b2, b3 = (at(buffer, i) for i in range(4))

    def value(seq: list[int], i: int) -> int:
        return seq[i] if i >= 0 else 0

    def label(i: int) -> int:
        if i < 0:
            return 0
        return 1 if labels[i] is None else s.label_id(labels[i]) + 3

    children = {i: s.children(i) for i in range(n + 1)}

    def child(i: int, which: str) -> int:
        return children[i][which] if i >= 0 else -1

    def child_label(i: int, which: str) -> int:
        if i < 0:
            return 0
        c = children[i][which]
        return 1 if c < 0 else label(c)

    s0h = heads[s0] if s0 >= 0 else -1
    keys = [value(tag, b1), value(tag, b2), value(tag, b3), value(word, b0), value(word, b1),
            value(tag, s0), value(tag, s1), label(s0), value(word, s0), value(word, s0h),
            child_label(s0, "leftmost"), child_label(s0, "rightmost"),
            child_label(b0, "leftmost")]
    if feature_set in ("rich", "morph"):
        def pair(a: int, b: int) -> int:
            return (a << 24) | (b & 0xFFFFFF)

        def triple(a: int, b: int, c: int) -> int:
            return (a << 32) | ((b & 0xFFFF) << 16) | (c & 0xFFFF)

        def valency(i: int, which: str) -> int:
            return min(children[i][which], 8) if i >= 0 else 9

        distance = min(b0 - s0, 10) if s0 >= 0 and b0 >= 0 else 0
        keys += [value(tag, b0), value(word, b2), value(word, s1), value(tag, s0h),
                 label(s0h) if s0h >= 0 else 0, value(tag, heads[s0h] if s0h >= 0 else -1),
                 value(tag, child(s0, "leftmost")), value(tag, child(s0, "rightmost")),
                 value(tag, child(b0, "leftmost")), child_label(s0, "leftmost2"),
                 child_label(s0, "rightmost2"), child_label(b0, "leftmost2"),
                 pair(value(word, s0), value(tag, s0)), pair(value(word, b0), value(tag, b0)),
                 pair(value(word, b1), value(tag, b1)), pair(value(word, s0), value(word, b0)),
                 pair(value(tag, s0), value(tag, b0)),
                 triple(value(tag, s0), value(tag, b0), value(tag, b1)),
                 triple(value(tag, b0), value(tag, b1), value(tag, b2)),
                 triple(value(tag, s0), value(tag, s1), value(tag, b0)),
                 distance, triple(distance, value(tag, s0), value(tag, b0)),
                 pair(valency(s0, "n_left"), value(tag, s0)),
                 pair(valency(s0, "n_right"), value(tag, s0)),
                 pair(valency(b0, "n_left"), value(tag, b0)),
                 pair(value(coarse, s0), value(coarse, b0))]
    if feature_set == "morph":
        for row in morph or []:
            keys += [value(row, s0), value(row, b0), value(row, b1), value(row, s1),
                     pair(value(row, s0), value(row, b0)), pair(value(coarse, s0), value(row, s0)),
                     pair(value(coarse, b0), value(row, b0))]
        keys += [value(suffix or [], s0), value(suffix or [], b0), value(suffix or [], b1)]
    return [key(t, v) for t, v in enumerate(keys)]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=20), st.integers(min_value=0, max_value=2**31),
       st.sampled_from(["chang2010", "rich", "morph"]))
def test_keys_equal_the_python_reference_along_random_walks(n: int, seed: int,
                                                            feature_set: str) -> None:
    rng = random.Random(seed)
    word = [1] + [rng.randint(3, 5000) for _ in range(n)]
    tag = [1] + [rng.randint(3, 60) for _ in range(n)]
    coarse = [1] + [rng.randint(3, 20) for _ in range(n)]
    morph = [[1] + [rng.randint(2, 40) for _ in range(n)] for _ in range(N_MORPH_SLOTS)]
    suffix = [1] + [rng.randint(2, 900) for _ in range(n)]
    s = ArcEagerState(n, labels=["nsubj", "obj", "det"])
    while not s.is_final:
        assert list(state_keys(s, word, tag, coarse, feature_set, morph, suffix)) == \
            reference_keys(s, word, tag, coarse, feature_set, morph, suffix)
        move = rng.choice(sorted(s.valid()))
        s.apply(move + ("-" + rng.choice(["nsubj", "obj", "det"]) if move in "LR" else ""))


def test_template_counts() -> None:
    assert len(template_names("chang2010")) == 13
    assert len(template_names("rich")) == 39
    assert len(template_names("morph")) == 39 + 7 * N_MORPH_SLOTS + 3
