"""Plain-Python references of the tree kernels: explicit fragment enumeration (feature maps
phi(T) with K = sum_f phi_f(T1) phi_f(T2)) and the recursive Delta definitions."""
from __future__ import annotations

import itertools
from collections import defaultdict

import nltk


def _label(node: nltk.Tree | str) -> str:
    return node if isinstance(node, str) else node.label()


def _kids(node: nltk.Tree | str) -> list:
    return [] if isinstance(node, str) else list(node)


def _nodes(tree: nltk.Tree) -> list:
    out = []

    def walk(node):
        out.append(node)
        for kid in _kids(node):
            walk(kid)

    walk(tree)
    return out


def _production(node) -> str | None:
    kids = _kids(node)
    if not kids:
        return None
    return _label(node) + " -> " + " ".join(_label(k) for k in kids)


# ---- fragment enumeration -------------------------------------------------------------------

def _subset_fragments(node, complete: bool) -> list[tuple[object, int]]:
    """(key, number of productions) of every SST (ST when complete) fragment rooted at node."""
    options = []
    for kid in _kids(node):
        cut = [(("cut", _label(kid)), 0)]
        if _production(kid) is None:
            options.append(cut)
        elif complete:
            options.append(_subset_fragments(kid, True))
        else:
            options.append(cut + _subset_fragments(kid, False))
    out = []
    for combo in itertools.product(*options):
        key = (_label(node), tuple(k for k, _ in combo))
        out.append((key, 1 + sum(s for _, s in combo)))
    return out


def subset_tree_features(tree, lam: float, complete: bool) -> dict:
    phi: dict = defaultdict(float)
    for node in _nodes(tree):
        if _production(node) is not None:
            for key, size in _subset_fragments(node, complete):
                phi[key] += lam ** (size / 2)
    return phi


def _partial_fragments(node, lam: float, mu: float) -> list[tuple[object, float]]:
    """(key, weight on one side) of every partial-tree fragment rooted at node."""
    kids = _kids(node)
    out = [((_label(node), ()), mu ** 0.5 * lam)]
    per_kid = [_partial_fragments(kid, lam, mu) for kid in kids]
    for size in range(1, len(kids) + 1):
        for chosen in itertools.combinations(range(len(kids)), size):
            gaps = chosen[-1] - chosen[0] + 1 - size
            for combo in itertools.product(*(per_kid[c] for c in chosen)):
                weight = mu ** 0.5 * lam ** gaps
                for _, w in combo:
                    weight *= w
                out.append(((_label(node), tuple(k for k, _ in combo)), weight))
    return out


def partial_tree_features(tree, lam: float, mu: float) -> dict:
    phi: dict = defaultdict(float)
    for node in _nodes(tree):
        for key, weight in _partial_fragments(node, lam, mu):
            phi[key] += weight
    return phi


def _elastic_fragments(node, lam: float) -> list[tuple[object, float]]:
    """Embedded fragments rooted at node: children map to unrelated descendants, in order."""
    below = _nodes(node)[1:]
    ends = {}
    for i, d in enumerate(below):
        ends[i] = i + len(_nodes(d))
    sequences = [[]]

    def extend(start, prefix):
        for i in range(start, len(below)):
            seq = prefix + [i]
            sequences.append(seq)
            extend(ends[i], seq)

    extend(0, [])
    out = []
    memo = {}
    for seq in sequences:
        parts = []
        for i in seq:
            if i not in memo:
                memo[i] = _elastic_fragments(below[i], lam)
            parts.append(memo[i])
        for combo in itertools.product(*parts):
            weight = lam ** 0.5
            for _, w in combo:
                weight *= w
            out.append(((_label(node), tuple(k for k, _ in combo)), weight))
    return out


def elastic_tree_features(tree, lam: float) -> dict:
    phi: dict = defaultdict(float)
    for node in _nodes(tree):
        for key, weight in _elastic_fragments(node, lam):
            phi[key] += weight
    return phi


def features(tree, kind: str, lam: float, mu: float) -> dict:
    if tree is None:
        return {}
    if kind == "sst":
        return subset_tree_features(tree, lam, complete=False)
    if kind == "st":
        return subset_tree_features(tree, lam, complete=True)
    if kind == "pt":
        return partial_tree_features(tree, lam, mu)
    return elastic_tree_features(tree, lam)


def enumerated_kernel(t1, t2, kind: str, lam: float, mu: float) -> float:
    phi1, phi2 = features(t1, kind, lam, mu), features(t2, kind, lam, mu)
    return sum(v * phi2[k] for k, v in phi1.items() if k in phi2)


# ---- recursive Delta --------------------------------------------------------------------------

def recursive_kernel(t1, t2, kind: str, lam: float, mu: float) -> float:
    memo: dict = {}
    sigma = 1.0 if kind == "sst" else 0.0

    def subset(n1, n2) -> float:
        key = (id(n1), id(n2))
        if key not in memo:
            if _production(n1) is None or _production(n1) != _production(n2):
                memo[key] = 0.0
            else:
                value = lam
                for c1, c2 in zip(_kids(n1), _kids(n2)):
                    if _production(c1) is None and _production(c2) is None:
                        continue
                    value *= sigma + subset(c1, c2)
                memo[key] = value
        return memo[key]

    def partial(n1, n2) -> float:
        key = (id(n1), id(n2))
        if key not in memo:
            if _label(n1) != _label(n2):
                memo[key] = 0.0
            elif not _kids(n1) or not _kids(n2):
                memo[key] = mu * lam * lam
            else:
                k1, k2 = _kids(n1), _kids(n2)
                total = 0.0
                for size in range(1, min(len(k1), len(k2)) + 1):
                    for j1 in itertools.combinations(range(len(k1)), size):
                        for j2 in itertools.combinations(range(len(k2)), size):
                            gaps = j1[-1] - j1[0] + j2[-1] - j2[0] + 2 - 2 * size
                            prod = lam ** gaps
                            for a, b in zip(j1, j2):
                                prod *= partial(k1[a], k2[b])
                                if prod == 0.0:
                                    break
                            total += prod
                memo[key] = mu * (lam * lam + total)
        return memo[key]

    delta = subset if kind in ("sst", "st") else partial
    return sum(delta(a, b) for a in _nodes(t1) for b in _nodes(t2))
