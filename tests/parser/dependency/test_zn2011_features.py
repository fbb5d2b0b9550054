"""The beam-search parser's feature keys (zn2011_features.pyx) against a plain-Python
reference written from the module's docstring (Zhang & Nivre 2011, Table 1, with our lemma,
FEATS and UPOS templates), on states reached by random valid moves."""
from __future__ import annotations

import random

import numpy as np
import pytest

from polyparse.parser.dependency.arc_eager import ArcEagerState
from polyparse.parser.dependency.zn2011_features import (
    N_BEAM_MORPH_SLOTS,
    N_MORPH_TEMPLATES,
    N_TEMPLATES,
    state_keys,
)

MASK = (1 << 64) - 1
LABELS = ["nsubj", "obj", "det", "amod", "case", "obl", "punct", "advmod"]


def mix(x: int) -> int:
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def key(template: int, *values: int) -> int:
    k = mix((template << 56) ^ values[0])
    for value in values[1:]:
        k = mix(k ^ value)
    return k


class Reference:
    """The templates over a state given by its Python view."""

    def __init__(self, state: ArcEagerState, columns: list[list[int]],
                 morph: list[list[int]] | None = None, suffix: list[int] | None = None
                 ) -> None:
        self.state = state
        self.word, self.tag, self.coarse, self.lemma, self.feats = columns
        self.morph, self.suffix = morph, suffix
        self.heads = [-1] + state.heads          # index = word; -1: no head yet
        self.label_ids = [-1] + [-1 if name is None else state.label_id(name)
                                 for name in state.labels]

    def col(self, column: list[int], i: int) -> int:
        return column[i] if i >= 0 else 0

    def head(self, i: int) -> int:
        return self.heads[i] if i >= 0 else -1

    def label(self, i: int) -> int:
        if i < 0:
            return 0
        return self.label_ids[i] + 3 if self.label_ids[i] >= 0 else 1

    def children(self, i: int, left: bool) -> list[int]:
        """The children of i on one side, nearest the edge first (leftmost or rightmost)."""
        found = [c for c in range(1, len(self.heads)) if self.heads[c] == i
                 and (c < i) == left]
        return sorted(found, reverse=not left)

    def child(self, i: int, left: bool, rank: int) -> int:
        if i < 0:
            return -1
        found = self.children(i, left)
        return found[rank] if len(found) > rank else -1

    def label_set(self, i: int, left: bool) -> int:
        if i < 0:
            return 0
        bits = 0
        for c in self.children(i, left):
            bits |= 1 << (self.label_ids[c] & 63)
        return bits

    def keys(self) -> list[int]:
        st = self.state
        stack, buffer = st.stack, st.buffer
        s0 = stack[-1] if stack else -1
        n0, n1, n2 = (buffer[k] if len(buffer) > k else -1 for k in range(3))
        W, P, C, M, F = (lambda i, c=c: self.col(c, i) for c in
                         (self.word, self.tag, self.coarse, self.lemma, self.feats))
        s0h, s0h2 = self.head(s0), self.head(self.head(s0))
        s0l, s0r = self.child(s0, True, 0), self.child(s0, False, 0)
        s0l2, s0r2 = self.child(s0, True, 1), self.child(s0, False, 1)
        n0l, n0l2 = self.child(n0, True, 0), self.child(n0, True, 1)
        d = min(n0 - s0, 10) if s0 >= 0 and n0 >= 0 else 0

        def valency(i: int, left: bool) -> int:
            return min(len(self.children(i, left)), 8) + 1 if i >= 0 else 0

        s0w, s0p, n0w, n0p = W(s0), P(s0), W(n0), P(n0)
        n1w, n1p, n2w, n2p = W(n1), P(n1), W(n2), P(n2)
        s0vl, s0vr, n0vl = valency(s0, True), valency(s0, False), valency(n0, True)
        s0sl, s0sr, n0sl = (self.label_set(s0, True), self.label_set(s0, False),
                            self.label_set(n0, True))
        L = self.label
        values = [
            (s0w, s0p), (s0w,), (s0p,), (n0w, n0p), (n0w,), (n0p,), (n1w, n1p), (n1w,), (n1p,),
            (n2w, n2p), (n2w,), (n2p,),
            (s0w, s0p, n0w, n0p), (s0w, s0p, n0w), (s0w, n0w, n0p), (s0w, s0p, n0p),
            (s0p, n0w, n0p), (s0w, n0w), (s0p, n0p), (n0p, n1p),
            (n0p, n1p, n2p), (s0p, n0p, n1p), (P(s0h), s0p, n0p), (s0p, P(s0l), n0p),
            (s0p, P(s0r), n0p), (s0p, n0p, P(n0l)),
            (s0w, d), (s0p, d), (n0w, d), (n0p, d), (s0w, n0w, d), (s0p, n0p, d),
            (s0w, s0vr), (s0p, s0vr), (s0w, s0vl), (s0p, s0vl), (n0w, n0vl), (n0p, n0vl),
            (W(s0h),), (P(s0h),), (L(s0),), (W(s0l),), (P(s0l),), (L(s0l),), (W(s0r),),
            (P(s0r),), (L(s0r),), (W(n0l),), (P(n0l),), (L(n0l),),
            (W(s0h2),), (P(s0h2),), (L(s0h),), (W(s0l2),), (P(s0l2),), (L(s0l2),),
            (W(s0r2),), (P(s0r2),), (L(s0r2),), (W(n0l2),), (P(n0l2),), (L(n0l2),),
            (s0p, P(s0l), P(s0l2)), (s0p, P(s0r), P(s0r2)), (s0p, P(s0h), P(s0h2)),
            (n0p, P(n0l), P(n0l2)),
            (s0w, s0sr), (s0p, s0sr), (s0w, s0sl), (s0p, s0sl), (n0w, n0sl), (n0p, n0sl),
            (M(s0),), (M(n0),), (M(n1),), (M(s0), M(n0)), (M(s0), n0p), (s0p, M(n0)),
            (M(s0h),), (M(n0l),),
            (F(s0),), (F(n0),), (F(n1),), (F(s0), F(n0)), (s0p, F(s0), n0p),
            (n0p, F(n0), s0p), (F(s0h),), (F(s0l),), (F(n0l),), (F(s0r),),
            (C(s0), C(n0)), (C(s0), C(n0), C(n1)), (C(n0), C(n1), C(n2)),
            (C(s0h), C(s0), C(n0)),
        ]
        assert len(values) == N_TEMPLATES
        if self.morph is not None:
            for row in self.morph:
                values += [(self.col(row, s0),), (self.col(row, n0),), (self.col(row, n1),),
                           (self.col(row, s0), self.col(row, n0))]
            values += [(self.col(self.suffix, s0),), (self.col(self.suffix, n0),),
                       (self.col(self.suffix, n1),)]
            assert len(values) == N_MORPH_TEMPLATES
        return [key(t, *v) for t, v in enumerate(values)]


def random_run(rng: random.Random, n: int, morph: bool = False
               ) -> list[tuple[ArcEagerState, list[list[int]]]]:
    """States met by a random sequence of valid moves over a sentence of n random words (with
    morph columns: their templates too)."""
    columns = [[1] + [rng.randint(0, 12) for _ in range(n)] for _ in range(5)]
    rows = [[1] + [rng.randint(2, 30) for _ in range(n)] for _ in range(N_BEAM_MORPH_SLOTS)]
    suffix = [1] + [rng.randint(2, 300) for _ in range(n)]
    extra = (rows, suffix) if morph else (None, None)
    state = ArcEagerState(n, labels=LABELS)
    out = []
    while not state.is_final:
        out.append((state, columns))
        move = rng.choice(sorted(state.valid()))
        reference_keys = Reference(state, columns, *extra).keys()
        got = state_keys(state, *columns, *extra).tolist()
        assert got == reference_keys, (state.stack, state.buffer, state.heads)
        if move in ("L", "R"):
            move += "-" + rng.choice(LABELS)
        state.apply(move)
    return out


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("morph", [False, True])
def test_random_states_match_the_reference(seed: int, morph: bool) -> None:
    rng = random.Random(seed)
    assert random_run(rng, rng.randint(1, 14), morph)


def test_the_template_is_part_of_every_key() -> None:
    # The same values under two templates give two keys: the template is part of the hash.
    state = ArcEagerState(3, labels=LABELS)
    keys = state_keys(state, *[[1, 5, 5, 5]] * 5)
    assert len(set(keys.tolist())) == len(keys)
    assert keys.dtype == np.uint64


def test_the_templates_have_a_row_for_each_slot_of_the_columns() -> None:
    """The Cython templates' slot count (zn2011_features.pxd) is the columns' (Python)."""
    from polyparse.parser.dependency.morph_columns import MORPH_SLOTS

    assert N_BEAM_MORPH_SLOTS == MORPH_SLOTS
