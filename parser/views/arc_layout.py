"""Where the arcs of a picture go: which arcs are non-projective, how high each arc is drawn so
that no two arcs share a stretch of line, and where on a word each of its arcs ends.

Heights (levels, from 1): an arc goes above every arc it spans (its level is one more than the
highest level among the arcs inside it), and two arcs that cross (their spans overlap without
one holding the other) never get the same level, so that a crossing is always two lines that
cross, never one line that two arcs share. Arcs are placed shortest first, each at the lowest
level these rules allow (the greedy layout of displaCy-like and brat-like pictures).
"""
from __future__ import annotations

from collections.abc import Sequence

__all__ = ["arc_levels", "endpoint_order", "nonprojective_words"]

Span = tuple[int, int]


def nonprojective_words(heads: Sequence[int]) -> set[int]:
    """The words (from 1) whose arc is non-projective: some word between the word and its head
    does not descend from that head (heads[i] is the head of word i + 1; 0 the root, -1 none)."""
    n = len(heads)
    found = set()
    for word, head in enumerate(heads, 1):
        if head <= 0:
            continue
        low, high = min(word, head), max(word, head)
        for between in range(low + 1, high):
            if not _descends(between, head, heads, n):
                found.add(word)
                break
    return found


def _descends(word: int, ancestor: int, heads: Sequence[int], n: int) -> bool:
    steps = 0
    while word > 0 and steps <= n:
        if word == ancestor:
            return True
        word = heads[word - 1]
        steps += 1
    return False


def arc_levels(spans: Sequence[Span]) -> list[int]:
    """The level of each span (left, right), left < right, by the module's rules."""
    order = sorted(range(len(spans)), key=lambda i: (spans[i][1] - spans[i][0], spans[i][0]))
    levels = [0] * len(spans)
    placed: list[int] = []
    for i in order:
        left, right = spans[i]
        level = 1
        crossing = set()
        for j in placed:
            other_left, other_right = spans[j]
            if left <= other_left and other_right <= right:
                level = max(level, levels[j] + 1)
            elif max(left, other_left) < min(right, other_right):
                crossing.add(levels[j])
        while level in crossing:
            level += 1
        levels[i] = level
        placed.append(i)
    return levels


def endpoint_order(others: Sequence[int]) -> list[int]:
    """The positions (0 = leftmost) at which the arcs of a word reach it, given the other end
    of each arc (the word itself for the root's arrow): arcs to farther words end farther out,
    so that the legs of nested arcs never cross on the word."""
    ranked = sorted(range(len(others)), key=lambda i: others[i])
    position = [0] * len(others)
    for rank, i in enumerate(ranked):
        position[i] = rank
    return position
