"""Arc-eager transition system: moves, validity mask, single-root guarantee, static oracle."""
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.parser.dependency.arc_eager import ArcEagerState


def is_tree(heads: list[int], single_root: bool = True) -> bool:
    n = len(heads)
    if any(not 0 <= h <= n or h == i + 1 for i, h in enumerate(heads)):
        return False
    if single_root and heads.count(0) != 1:
        return False
    for start in range(1, n + 1):
        seen, w = set(), start
        while w != 0:
            if w in seen:
                return False
            seen.add(w)
            w = heads[w - 1]
    return True


def random_projective_tree(n: int, rng: random.Random) -> list[int]:
    """A random projective tree with one word under 0.

    Each interval under a head is cut into consecutive chunks; every chunk gets a root that
    attaches to the head and heads the two sides of the chunk recursively.
    """
    heads = [0] * n

    def attach(lo: int, hi: int, head: int, chunks: bool) -> None:
        while lo <= hi:
            end = rng.randint(lo, hi) if chunks else hi
            root = rng.randint(lo, end)
            heads[root - 1] = head
            attach(lo, root - 1, root, True)
            attach(root + 1, end, root, True)
            lo = end + 1

    attach(1, n, 0, False)
    return heads


def test_moves_build_the_expected_tree() -> None:
    s = ArcEagerState(4)  # the dog saw cats
    for move in ["S", "L-det", "S", "L-nsubj", "S", "R-obj"]:
        s.apply(move)
    assert s.is_final
    assert s.heads == [2, 3, 0, 3]
    assert s.labels == ["det", "nsubj", "root", "obj"]
    assert s.children(3) == {"leftmost": 2, "leftmost2": -1, "rightmost": 4, "rightmost2": -1,
                             "n_left": 1, "n_right": 1}


def test_no_arc_leaves_the_root_while_parsing() -> None:
    s = ArcEagerState(2)
    assert s.valid() == {"S"}
    with pytest.raises(ValueError):
        s.apply("R-root")
    with pytest.raises(ValueError):
        s.apply("D")
    s.apply("S")
    assert s.valid() == {"L", "R"}  # SHIFT would leave two words without a head
    s.apply("R-obj")
    assert s.is_final and s.heads == [0, 1]


def test_last_word_must_leave_exactly_one_headless_word() -> None:
    s = ArcEagerState(3)
    s.apply("S")
    s.apply("S")
    assert s.valid() == {"L"}  # two headless stack words: only LEFT-ARC can reduce them
    s.apply("L-x")
    assert s.valid() == {"L", "R"}
    s.apply("L-y")
    assert s.valid() == {"S"}
    s.apply("S")
    assert s.heads == [3, 3, 0]


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=25), st.integers(min_value=0, max_value=2**31))
def test_any_walk_of_valid_moves_ends_in_a_single_rooted_tree(n: int, seed: int) -> None:
    rng = random.Random(seed)
    s = ArcEagerState(n)
    steps = 0
    while not s.is_final:
        valid = sorted(s.valid())
        assert valid, f"dead end at stack {s.stack} buffer {s.buffer}"
        move = rng.choice(valid)
        s.apply(move + ("-x" if move in "LR" else ""))
        steps += 1
        assert steps <= 2 * n
    assert is_tree(s.heads), s.heads


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=30), st.integers(min_value=0, max_value=2**31))
def test_static_oracle_derives_every_projective_tree(n: int, seed: int) -> None:
    gold = random_projective_tree(n, random.Random(seed))
    s = ArcEagerState(n)
    while not s.is_final:
        move = s.oracle(gold)
        assert move in s.valid()
        s.apply(move + ("-x" if move in "LR" else ""))
    assert s.heads == gold


def wrong_heads_lower_bound(s: ArcEagerState, gold: list[int], history: list[str]) -> int:
    """Brute force: fewest wrong heads over every completion after the moves of `history`."""
    n = len(gold)
    best = n

    def walk(moves: list[str]) -> None:
        nonlocal best
        state = ArcEagerState(n)
        for m in moves:
            state.apply(m + ("-x" if m in "LR" else ""))
        if state.is_final:
            best = min(best, sum(h != g for h, g in zip(state.heads, gold)))
            return
        for m in sorted(state.valid()):
            walk(moves + [m])

    walk(history)
    return best


@settings(max_examples=60, deadline=None)
@given(st.integers(min_value=1, max_value=7), st.integers(min_value=0, max_value=2**31))
def test_dynamic_oracle_costs(n: int, seed: int) -> None:
    """Costs are never negative, and from any state that can still reach the gold tree a move
    costs 0 exactly when the gold tree stays reachable after it (checked by brute force)."""
    rng = random.Random(seed)
    gold = random_projective_tree(n, rng)
    s = ArcEagerState(n)
    history: list[str] = []
    while not s.is_final:
        best_now = wrong_heads_lower_bound(s, gold, history)
        costs = {m: s.cost(m, gold) for m in s.valid()}
        assert all(c >= 0 for c in costs.values())
        for m, c in costs.items():
            after = wrong_heads_lower_bound(s, gold, history + [m])
            if best_now == 0:
                assert (c == 0) == (after == 0), (history, m)
        move = rng.choice(sorted(costs))
        history.append(move)
        s.apply(move + ("-x" if move in "LR" else ""))
