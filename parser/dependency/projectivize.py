"""Pseudo-projective parsing: Nivre & Nilsson (2005), "Pseudo-Projective Dependency Parsing",
ACL 2005, with the "head" label encoding.

Trees are given as ``heads`` (``heads[i - 1]`` is the head of word ``i``, 0 is the artificial
root placed before the first word) and ``deprels``.

Projectivize (the paper's PROJECTIVIZE): while the tree is not projective, take the smallest
non-projective arc h -> d (shortest ``|h - d|`` in the current tree, ties broken left to right
by the arc's left end) and LIFT it to h's head. An arc is non-projective when a word between h
and d is not a descendant of h. The first lift of d records the label of d's syntactic head;
the lifted arc is labelled ``deprel|headlabel`` (later lifts keep that label).

Deprojectivize: each arc whose label carries a head label is lowered, top-down, to the first
word labelled headlabel in a breadth-first, left-to-right search of the subtree of its current
head that leaves out the dependent's own subtree; when no such word exists the arc stays where
it is. The suffix is always removed. Only words outside the dependent's subtree can become its
head, so the result is a tree whenever the input is one.

Exactness refinement. With the paper's encoding alone, 17 of the 288 non-projective trees of
UD English-EWT train come back wrong. 32 of the 357 lifted arcs meet a label collision, and
collisions are the only cause: the search reaches another word with the syntactic head's
label before the syntactic head itself (``appos`` of "NY" vs. "York", ``compound`` in names).
Two choices make the round trip exact while keeping the head encoding:

1. "Top-down" is made precise: the pending lifted word whose current depth is smallest goes
   first (ties by word id), with depths recomputed after each lowering. With that order the
   syntactic head is always inside the search space once the earlier arcs are back in place.
   Proof sketch: let d (current head g, syntactic head h) be processed. Every word's current
   head is one of its original ancestors, so g is an original ancestor of h. Take the first
   word p on the original path from g down to h that is not currently below g: p is still
   lifted, and its current head x is an original proper ancestor of g. x is also a current
   ancestor of g, for otherwise the current path from g up to the root skips x, and the word
   where it skips is a lifted word at or above g, shallower than d. So p is no deeper than g,
   shallower than d, and would have gone first.
2. At projectivization time the deprojectivizer is replayed on the projectivized tree. When
   the syntactic head is the k-th word labelled headlabel in the search order (k > 1), the
   label becomes ``deprel|headlabel|k`` and the deprojectivizer takes the k-th match (none:
   the arc stays). By 1 the rank always exists, so projectivize-then-deprojectivize is the
   identity on every tree. On EWT train the rank appears on exactly the 32 colliding arcs
   (k = 2 on 25 of them, at most 10; 17 distinct new labels); the other 325 lifted arcs keep
   the paper's labels.
"""
from __future__ import annotations

import heapq
from bisect import insort
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from polyparse.parser.formats.conll import find_cycle

__all__ = ["LIFT_SEPARATOR", "is_projective", "projectivize", "deprojectivize"]

LIFT_SEPARATOR = "|"


def is_projective(heads: Sequence[int]) -> bool:
    """True when no two arcs cross, the artificial root being at position 0.

    For a tree this is the classical projectivity (every word between a head and its
    dependent descends from the head). A tree has two crossing arcs exactly when some word
    strictly between the ends lo < hi of an arc has its head outside [lo, hi], which is what
    the scan looks for.
    """
    for dependent, head in enumerate(heads, 1):
        lo, hi = (head, dependent) if head < dependent else (dependent, head)
        for inner in range(lo + 1, hi):
            inner_head = heads[inner - 1]
            if inner_head < lo or inner_head > hi:
                return False
    return True


def projectivize(heads: Sequence[int], deprels: Sequence[str]) -> tuple[list[int], list[str], int]:
    """Projective tree and labels for a tree; returns (heads, labels, number of lifted arcs).

    Raises ValueError when ``heads`` is not a tree or a label contains ``LIFT_SEPARATOR``.
    """
    _check_tree(heads)
    if len(deprels) != len(heads):
        raise ValueError(f"{len(heads)} heads but {len(deprels)} labels")
    for word, label in enumerate(deprels, 1):
        if LIFT_SEPARATOR in label:
            raise ValueError(
                f"label {label!r} of word {word} contains the lift separator {LIFT_SEPARATOR!r}"
            )
    if is_projective(heads):
        return list(heads), list(deprels), 0
    projective, head_label = _lift_until_projective(heads, deprels)
    ranks = _search_ranks(heads, projective, deprels, head_label)
    labels = list(deprels)
    for word, label in head_label.items():
        suffix = label if ranks[word] == 1 else f"{label}{LIFT_SEPARATOR}{ranks[word]}"
        labels[word - 1] = f"{deprels[word - 1]}{LIFT_SEPARATOR}{suffix}"
    return projective, labels, len(head_label)


def decoded_trees(heads: Any, labels: Any, offsets: Sequence[int], names: Sequence[str]
                  ) -> list[tuple[list[int], list[str]]]:
    """Each sentence's heads and relations from a decoder's flat arrays (sentence i's words at
    offsets[i] + 1 .. offsets[i + 1], each sentence's root slot first; labels index names),
    deprojectivised where a relation carries a lift."""
    trees = []
    for i in range(len(offsets) - 1):
        start, end = offsets[i] + 1, offsets[i + 1]
        h = heads[start:end].tolist()
        d = [names[label] for label in labels[start:end].tolist()]
        if any(LIFT_SEPARATOR in label for label in d):
            h, d = deprojectivize(h, d)
        trees.append((h, d))
    return trees


def deprojectivize(heads: Sequence[int], deprels: Sequence[str]) -> tuple[list[int], list[str]]:
    """Undo ``projectivize`` on a (parsed) tree: lower lifted arcs, strip the label suffixes."""
    _check_tree(heads)
    if len(deprels) != len(heads):
        raise ValueError(f"{len(heads)} heads but {len(deprels)} labels")
    heads = list(heads)
    labels: list[str] = []
    wanted: dict[int, tuple[str, int]] = {}
    for word, label in enumerate(deprels, 1):
        clean, head_label, rank = _split_label(label)
        labels.append(clean)
        if head_label is not None:
            wanted[word] = (head_label, rank)
    tree = _LoweredTree(heads, wanted)
    for word in tree.shallowest_first():
        head_label, rank = wanted[word]
        matches = 0
        for candidate in tree.search_order(word):
            if labels[candidate - 1] == head_label:
                matches += 1
                if matches == rank:
                    tree.lower(word, candidate)
                    break
    return tree.heads, labels


def _lift_until_projective(
    heads: Sequence[int], deprels: Sequence[str]
) -> tuple[list[int], dict[int, str]]:
    """The paper's PROJECTIVIZE loop; returns the heads and, per lifted word, its head's label."""
    current = list(heads)
    head_label: dict[int, str] = {}
    while True:
        word = _smallest_non_projective_arc(current)
        if word == 0:
            return current, head_label
        head = current[word - 1]
        head_label.setdefault(word, deprels[head - 1])
        current[word - 1] = current[head - 1]


def _search_ranks(
    heads: Sequence[int],
    projective: Sequence[int],
    deprels: Sequence[str],
    head_label: dict[int, str],
) -> dict[int, int]:
    """Replay ``deprojectivize``: rank of each syntactic head among the words it would try."""
    tree = _LoweredTree(projective, head_label)
    ranks: dict[int, int] = {}
    for word in tree.shallowest_first():
        syntactic_head = heads[word - 1]
        rank = 0
        for candidate in tree.search_order(word):
            if deprels[candidate - 1] == head_label[word]:
                rank += 1
                if candidate == syntactic_head:
                    break
        else:
            raise AssertionError(f"head {syntactic_head} is outside the search space of {word}")
        ranks[word] = rank
        tree.lower(word, syntactic_head)
    return ranks


def _smallest_non_projective_arc(heads: Sequence[int]) -> int:
    """Dependent of the shortest non-projective arc (leftmost on ties), or 0 if none."""
    enter, leave = _preorder_intervals(heads)
    best = 0
    best_key = (len(heads) + 1, 0)
    for dependent, head in enumerate(heads, 1):
        lo, hi = (head, dependent) if head < dependent else (dependent, head)
        key = (hi - lo, lo)
        if key >= best_key:
            continue
        first, last = enter[head], leave[head]
        if any(not first <= enter[inner] < last for inner in range(lo + 1, hi)):
            best, best_key = dependent, key
    return best


def _preorder_intervals(heads: Sequence[int]) -> tuple[list[int], list[int]]:
    """Pre-order entry time and exit time of every node: v descends from u iff
    enter[u] <= enter[v] < leave[u]."""
    children = _children(heads)
    enter = [0] * (len(heads) + 1)
    leave = [0] * (len(heads) + 1)
    clock = 0
    stack = [(0, False)]
    while stack:
        node, done = stack.pop()
        if done:
            leave[node] = clock
            continue
        enter[node] = clock
        clock += 1
        stack.append((node, True))
        stack.extend((child, False) for child in reversed(children[node]))
    return enter, leave


def _children(heads: Sequence[int]) -> list[list[int]]:
    """Dependents of each node (0 = root), left to right."""
    children: list[list[int]] = [[] for _ in range(len(heads) + 1)]
    for dependent, head in enumerate(heads, 1):
        children[head].append(dependent)
    return children


class _LoweredTree:
    """A tree whose lifted words are lowered one at a time, shallowest first: the children of
    each node are kept in order as arcs move, and the next word is taken from a heap. Lowering
    a word moves it (and its subtree) deeper and nothing else, so a word's depth in the heap is
    a lower bound of its current one: the word popped is re-measured (a walk up to the root)
    and pushed back when it went deeper. A step costs the depth of a word and a search of the
    subtree of its head, not a pass over the whole sentence, so long sentences with many
    lifted arcs are parsed in time proportional to their length, not its square."""

    def __init__(self, heads: Sequence[int], words: Iterable[int]) -> None:
        self.heads = list(heads)
        self.children = _children(self.heads)
        self.heap = [(self.depth(word), word) for word in words]
        heapq.heapify(self.heap)

    def depth(self, word: int) -> int:
        """Distance of word from the root 0."""
        heads = self.heads
        depth = 0
        while word:
            word = heads[word - 1]
            depth += 1
        return depth

    def shallowest_first(self) -> Iterator[int]:
        """The words given, each when it is the closest to the root of those left (smallest id
        on ties); the caller may lower it before asking for the next."""
        heap = self.heap
        while heap:
            depth, word = heap[0]
            now = self.depth(word)
            if now != depth:
                heapq.heapreplace(heap, (now, word))
                continue
            heapq.heappop(heap)
            yield word

    def search_order(self, word: int) -> Iterator[int]:
        """Breadth-first, left to right, over the proper descendants of word's head, leaving
        out word and its subtree."""
        children = self.children
        queue = deque(child for child in children[self.heads[word - 1]] if child != word)
        while queue:
            node = queue.popleft()
            yield node
            queue.extend(child for child in children[node] if child != word)

    def lower(self, word: int, head: int) -> None:
        """Attach word to head (a word of its current head's subtree)."""
        self.children[self.heads[word - 1]].remove(word)
        insort(self.children[head], word)
        self.heads[word - 1] = head


def _check_tree(heads: Sequence[int]) -> None:
    """ValueError unless every head is in 0..n and following heads always reaches 0."""
    n = len(heads)
    for word, head in enumerate(heads, 1):
        if not 0 <= head <= n:
            raise ValueError(f"head {head} of word {word} is outside 0..{n}")
    cycle = find_cycle(heads)
    if cycle:
        raise ValueError(f"heads contain a cycle through word {cycle[0]}")


def _split_label(label: str) -> tuple[str, str | None, int]:
    """``deprel[|headlabel[|rank]]`` -> (deprel, headlabel or None, rank)."""
    clean, separator, suffix = label.partition(LIFT_SEPARATOR)
    if not separator:
        return label, None, 1
    head_label, separator, rank = suffix.partition(LIFT_SEPARATOR)
    if separator and rank.isdigit() and rank.isascii() and int(rank) > 0:
        return clean, head_label, int(rank)
    return clean, suffix, 1
