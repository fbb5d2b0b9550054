"""The parse tree of a gold_conll sentence as constituents with word spans.

The tree is the parse-bit column with each ``*`` replaced by ``(POS word)`` (Pradhan et al.
2012; datasets/srl_boundary/README.md, "Tree"). Nodes are numbered in pre-order: node 0 is the
root (``TOP``); a POS preterminal covers one word; the words themselves are not nodes here but
the ``word`` of their preterminal. Every node knows its parent, its children and the first and
last word it covers, which is all that candidates, PAF trees and the Gildea & Jurafsky features
need.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from polyparse.parser.formats.gold_conll import PARSE_OPEN, TREE_ESCAPES, ConllSrlSentence

__all__ = ["Constituent", "ConstituentTree"]

NO_PARENT = -1


@dataclass(slots=True)
class Constituent:
    """A phrase or a POS preterminal: its label, its word span (``first`` to ``last``
    inclusive), its parent and children (node indexes) and, for a preterminal, its word."""

    label: str
    first: int
    last: int
    parent: int
    children: list[int] = field(default_factory=list)
    word: str | None = None

    @property
    def is_preterminal(self) -> bool:
        return self.word is not None

    def covers(self, token: int) -> bool:
        return self.first <= token <= self.last


class ConstituentTree:
    """The nodes of one sentence's tree in pre-order (node 0 is the root), and the
    preterminal of each word."""

    __slots__ = ("nodes", "preterminals")

    def __init__(self, nodes: list[Constituent], preterminals: list[int]) -> None:
        self.nodes = nodes
        self.preterminals = preterminals

    @classmethod
    def from_parse_bits(cls, words: Sequence[str], pos_tags: Sequence[str],
                        parse_bits: Sequence[str]) -> ConstituentTree:
        """The tree of checked parse bits (``read_gold_conll`` rejects unbalanced ones);
        brackets in words and tags are written ``-LRB-`` / ``-RRB-`` as in ``bracket_tree``."""
        nodes: list[Constituent] = []
        preterminals: list[int] = []
        open_nodes: list[int] = []
        for index, (word, tag, bit) in enumerate(zip(words, pos_tags, parse_bits)):
            star = bit.index("*")
            for label in PARSE_OPEN.findall(bit, 0, star):
                parent = open_nodes[-1] if open_nodes else NO_PARENT
                nodes.append(Constituent(label, index, index, parent))
                if parent != NO_PARENT:
                    nodes[parent].children.append(len(nodes) - 1)
                open_nodes.append(len(nodes) - 1)
            parent = open_nodes[-1]
            nodes.append(Constituent(TREE_ESCAPES.get(tag, tag), index, index, parent,
                                     word=TREE_ESCAPES.get(word, word)))
            nodes[parent].children.append(len(nodes) - 1)
            preterminals.append(len(nodes) - 1)
            for _ in range(bit.count(")", star)):
                nodes[open_nodes.pop()].last = index
        return cls(nodes, preterminals)

    @classmethod
    def of_sentence(cls, sentence: ConllSrlSentence) -> ConstituentTree:
        return cls.from_parse_bits(sentence.words, sentence.pos_tags, sentence.parse_bits)

    def __len__(self) -> int:
        return len(self.nodes)

    def ancestors(self, node: int) -> list[int]:
        """node, its parent, ... up to the root."""
        chain = []
        while node != NO_PARENT:
            chain.append(node)
            node = self.nodes[node].parent
        return chain

    def lowest_common_ancestor(self, a: int, b: int) -> int:
        above_a = set(self.ancestors(a))
        return next(node for node in self.ancestors(b) if node in above_a)

    def subtree_end(self, node: int) -> int:
        """One past the last node of node's subtree (pre-order makes a subtree contiguous)."""
        while self.nodes[node].children:
            node = self.nodes[node].children[-1]
        return node + 1

    def brackets(self, node: int) -> str:
        """node's subtree in Penn brackets, ``(NP (DT the) (NN board))``."""
        constituent = self.nodes[node]
        if constituent.word is not None:
            return f"({constituent.label} {constituent.word})"
        inside = " ".join(self.brackets(child) for child in constituent.children)
        return f"({constituent.label} {inside})"
