"""Predicate-argument feature (PAF) trees (Moschitti 2004, "A study on convolution kernels for
shallow semantic parsing"; datasets/srl_boundary/README.md, "Tree of an instance").

The PAF tree of a (candidate, predicate) pair is rooted at the lowest common ancestor of the
predicate's preterminal and the candidate. It keeps the nodes on the two paths down from that
ancestor, the whole subtree of the candidate (with its words) and the predicate preterminal
with its word; siblings off the paths are pruned. The candidate's label gets ``-B`` and the
predicate's POS gets ``-P``: ``(VP (VB-P join) (NP-B (DT the) (NN board)))``.
"""
from __future__ import annotations

from polyparse.parser.srl.constituents import ConstituentTree

__all__ = ["CANDIDATE_MARK", "PREDICATE_MARK", "paf_tree"]

CANDIDATE_MARK = "-B"
PREDICATE_MARK = "-P"


# Moschitti (2004), the PAF structure: the smallest subtree holding the predicate and the
# candidate, pruned to the two paths, the candidate's subtree and the predicate's preterminal.
def paf_tree(tree: ConstituentTree, candidate: int, predicate_node: int,
             ancestor: int | None = None) -> str:
    """The PAF tree in Penn brackets; ancestor is the lowest common ancestor of candidate and
    predicate_node when the caller has it already."""
    if ancestor is None:
        ancestor = tree.lowest_common_ancestor(candidate, predicate_node)
    on_paths: set[int] = set()
    for end in (candidate, predicate_node):
        for node in tree.ancestors(end):
            on_paths.add(node)
            if node == ancestor:
                break
    pieces: list[str] = []

    def write(node: int) -> None:
        constituent = tree.nodes[node]
        if node == candidate:
            inside = tree.brackets(node)[len(constituent.label) + 1:]
            pieces.append(f"({constituent.label}{CANDIDATE_MARK}{inside}")
        elif node == predicate_node:
            pieces.append(f"({constituent.label}{PREDICATE_MARK} {constituent.word})")
        else:
            pieces.append(f"({constituent.label}")
            for child in constituent.children:
                if child in on_paths:
                    pieces.append(" ")
                    write(child)
            pieces.append(")")

    write(ancestor)
    return "".join(pieces)
