"""TreeForest: ordered labelled trees (Penn brackets, read by features/penn_brackets.py with
nltk) held as flat arrays.

nltk (and with it scipy, which it imports) is loaded when a tree is first read, not before.

Many trees are concatenated; tree t owns the nodes tree_ptr[t] .. tree_ptr[t+1]-1, stored in
pre-order (a node's subtree is the contiguous range node .. subtree_end[node]-1). Per node:

- `label`: id in the shared label interner; a word leaf's label is the word itself.
- `production`: id in the shared production interner, "LABEL -> c1 c2 ..." over the labels of
  the children (so a preterminal's production holds its word: "NN -> board"); word leaves and
  any other childless node have production 0 (`<none>`): they expand nothing. The SST and ST
  kernels compare productions, so a leaf is matched as part of its parent's production; the PT
  and ET kernels compare labels, so leaves take part as nodes of their own.
- `child_ptr`, `children`: the children of node n are children[child_ptr[n]:child_ptr[n+1]],
  as global node indices, left to right.
- `is_leaf` (no children), `is_word` (a leaf that was a word, not a bracketed `(X)`) and
  `is_preterminal` (has children, all of them leaves).
- `production_order` / `label_order`: per tree, the tree's global node indices sorted by
  production id / label id (ties in pre-order), over the same slice tree_ptr[t]:tree_ptr[t+1].
  Merging two such lists yields exactly the node pairs with equal productions (labels), the
  fast evaluation of Moschitti (2006, EACL, "Making tree kernels practical").

Labels and productions are interned in two `StringInterner`s that a forest shares with others
(pass them in), so that ids of trees read at different times compare.
"""
from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

import numpy as np

from polyparse.features.bracket_scan import tree_orders
from polyparse.features.interning import StringInterner
from polyparse.features.penn_brackets import TreeSyntaxError, parse_tree

if TYPE_CHECKING:
    import nltk

# parse_tree and TreeSyntaxError are features/penn_brackets.py's, named here too.
__all__ = ["NO_PRODUCTION", "TreeForest", "TreeSyntaxError", "parse_tree"]

NO_PRODUCTION = 0


class TreeForest:
    """Trees as arrays for the Cython kernels (see the module notes for each array)."""

    __slots__ = (
        "labels", "productions", "tree_ptr", "label", "production", "child_ptr", "children",
        "subtree_end", "is_word", "is_leaf", "is_preterminal", "production_order", "label_order",
    )

    def __init__(
        self,
        trees: Iterable[nltk.Tree | None],
        labels: StringInterner | None = None,
        productions: StringInterner | None = None,
    ) -> None:
        self.labels = labels if labels is not None else StringInterner()
        self.productions = productions if productions is not None else StringInterner()
        builder = _Builder(self.labels, self.productions)
        for tree in trees:
            builder.add(tree)
        self.tree_ptr = np.asarray(builder.tree_ptr, dtype=np.int64)
        self.label = np.asarray(builder.label, dtype=np.int32)
        self.production = np.asarray(builder.production, dtype=np.int32)
        self.child_ptr = np.asarray(builder.child_ptr, dtype=np.int64)
        self.children = np.asarray(builder.children, dtype=np.int32)
        self.subtree_end = np.asarray(builder.subtree_end, dtype=np.int32)
        self.is_word = np.asarray(builder.is_word, dtype=np.uint8)
        self._derive()

    @classmethod
    def from_arrays(
        cls,
        labels: StringInterner,
        productions: StringInterner,
        tree_ptr: np.ndarray,
        label: np.ndarray,
        production: np.ndarray,
        child_ptr: np.ndarray,
        children: np.ndarray,
        subtree_end: np.ndarray,
        is_word: np.ndarray,
    ) -> "TreeForest":
        """A forest of arrays already laid out as the module notes say (ids of the given
        interners); the leaf flags and the per-tree orders are derived here."""
        forest = cls.__new__(cls)
        forest.labels, forest.productions = labels, productions
        forest.tree_ptr = np.ascontiguousarray(tree_ptr, dtype=np.int64)
        forest.label = np.ascontiguousarray(label, dtype=np.int32)
        forest.production = np.ascontiguousarray(production, dtype=np.int32)
        forest.child_ptr = np.ascontiguousarray(child_ptr, dtype=np.int64)
        forest.children = np.ascontiguousarray(children, dtype=np.int32)
        forest.subtree_end = np.ascontiguousarray(subtree_end, dtype=np.int32)
        forest.is_word = np.ascontiguousarray(is_word, dtype=np.uint8)
        forest._derive()
        return forest

    def _derive(self) -> None:
        n_children = np.diff(self.child_ptr)
        self.is_leaf = (n_children == 0).astype(np.uint8)
        leaf_children = np.zeros(self.label.size, dtype=np.int64)
        if self.children.size:
            parents = np.repeat(np.arange(self.label.size), n_children)
            leaf_children = np.bincount(parents, weights=self.is_leaf[self.children],
                                        minlength=self.label.size).astype(np.int64)
        self.is_preterminal = ((n_children > 0) & (leaf_children == n_children)).astype(np.uint8)
        self.production_order = tree_orders(self.tree_ptr, self.production)
        self.label_order = tree_orders(self.tree_ptr, self.label)

    @classmethod
    def from_brackets(
        cls,
        texts: Iterable[str],
        labels: StringInterner | None = None,
        productions: StringInterner | None = None,
    ) -> "TreeForest":
        """A forest of Penn-bracket strings (an empty string is an empty tree)."""
        return cls((parse_tree(text) for text in texts), labels, productions)

    def select(self, rows: np.ndarray) -> "TreeForest":
        """The forest of trees rows[0], rows[1], ... of this one (same interners)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if rows.size and (rows.min() < 0 or rows.max() >= len(self)):
            raise IndexError(f"tree indices must lie in 0 .. {len(self) - 1}")
        starts, sizes = self.tree_ptr[rows], np.diff(self.tree_ptr)[rows]
        tree_ptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(sizes, out=tree_ptr[1:])
        nodes = np.arange(int(tree_ptr[-1]), dtype=np.int64)
        shift = np.repeat(starts - tree_ptr[:-1], sizes)
        old = nodes + shift
        n_children = np.diff(self.child_ptr)[old]
        child_ptr = np.zeros(old.size + 1, dtype=np.int64)
        np.cumsum(n_children, out=child_ptr[1:])
        child_old = np.repeat(self.child_ptr[old], n_children) + (
            np.arange(int(child_ptr[-1]), dtype=np.int64) - np.repeat(child_ptr[:-1], n_children))
        children = self.children[child_old] - np.repeat(shift, n_children)
        return TreeForest.from_arrays(
            self.labels, self.productions, tree_ptr, self.label[old], self.production[old],
            child_ptr, children, self.subtree_end[old] - shift, self.is_word[old])

    def __len__(self) -> int:
        return self.tree_ptr.size - 1

    @property
    def n_nodes(self) -> int:
        return int(self.label.size)

    def tree_size(self, t: int) -> int:
        return int(self.tree_ptr[t + 1] - self.tree_ptr[t])

    def node_children(self, node: int) -> np.ndarray:
        return self.children[self.child_ptr[node] : self.child_ptr[node + 1]]

    def to_nltk(self, t: int) -> nltk.Tree | None:
        """Tree t back as an nltk tree (word leaves as strings); None for an empty tree."""
        if self.tree_size(t) == 0:
            return None
        return self._node_to_nltk(int(self.tree_ptr[t]))

    def to_brackets(self, t: int) -> str:
        """Tree t in Penn brackets on one line ('' for an empty tree)."""
        tree = self.to_nltk(t)
        return "" if tree is None else tree.pformat(margin=1 << 30)

    def _node_to_nltk(self, node: int) -> nltk.Tree | str:
        label = self.labels.strings[self.label[node]]
        kids = self.node_children(node)
        if self.is_word[node]:
            return label
        from nltk import Tree

        return Tree(label, [self._node_to_nltk(int(k)) for k in kids])


class _Builder:
    """Accumulates the arrays of a TreeForest, tree by tree, in pre-order."""

    def __init__(self, labels: StringInterner, productions: StringInterner) -> None:
        self.labels = labels
        self.productions = productions
        self.tree_ptr = [0]
        self.label: list[int] = []
        self.production: list[int] = []
        self.child_ptr = [0]
        self.children: list[int] = []
        self.subtree_end: list[int] = []
        self.is_word: list[int] = []

    def add(self, tree: nltk.Tree | None) -> None:
        if tree is not None:
            self._add_node(tree)
        self.tree_ptr.append(len(self.label))

    def _add_node(self, node: nltk.Tree | str) -> int:
        index = len(self.label)
        self.subtree_end.append(0)
        if isinstance(node, str):
            self.label.append(self.labels.add(node))
            self.production.append(NO_PRODUCTION)
            self.child_ptr.append(self.child_ptr[-1])
            self.is_word.append(1)
            self.subtree_end[index] = index + 1
            return index
        name = node.label()
        self.label.append(self.labels.add(name))
        if len(node):
            kids = [kid if isinstance(kid, str) else kid.label() for kid in node]
            self.production.append(self.productions.add(f"{name} -> {' '.join(kids)}"))
        else:
            self.production.append(NO_PRODUCTION)
        self.is_word.append(0)
        self.child_ptr.append(self.child_ptr[index] + len(node))
        child_indices = [self._add_node(kid) for kid in node]
        self._place_children(index, child_indices)
        self.subtree_end[index] = len(self.label)
        return index

    def _place_children(self, index: int, child_indices: list[int]) -> None:
        """Children lists are stored in node order; fill node index's slice."""
        start = self.child_ptr[index]
        needed = start + len(child_indices)
        if len(self.children) < needed:
            self.children.extend([0] * (needed - len(self.children)))
        self.children[start:needed] = child_indices
