"""The seven Gildea & Jurafsky features of a (candidate, predicate) pair as strings (Gildea &
Jurafsky 2002, "Automatic labeling of semantic roles"; datasets/srl_boundary/
README.md, "Vector"), in the order the dataset's vocabulary met them:

- ``pt=`` phrase type, the candidate's label;
- ``lem=`` the predicate's lemma (column 7 of the gold_conll row);
- ``path=`` the labels from the candidate up to the lowest common ancestor (joined by ``^``)
  and down to the predicate's POS (joined by ``!``), ``NP^S!VP!VP!VB``;
- ``pos=before`` when the candidate ends before the predicate, else ``pos=after``;
- ``voice=passive`` when the predicate is VBN and some VP in its chain of VP ancestors has a
  VB* child, before the chain, whose word is a form of "be" or "get"; else ``voice=active``;
- ``hw=`` the candidate's head word, lower-cased (parser/srl/head_rules.py);
- ``subcat=`` the expansion of the predicate preterminal's parent, ``VP>VB_NP_PP_NP``.
"""
from __future__ import annotations

from polyparse.parser.srl.constituents import ConstituentTree
from polyparse.parser.srl.head_rules import head_word

__all__ = ["PASSIVE_AUXILIARIES", "PredicateContext", "gildea_jurafsky_features", "path",
           "subcategorization", "voice"]

PASSIVE_AUXILIARIES = frozenset({
    "be", "am", "is", "are", "was", "were", "been", "being", "'s", "'re", "'m",
    "get", "gets", "got", "gotten", "getting",
})


# Gildea & Jurafsky (2002), the parse tree path feature.
def path(tree: ConstituentTree, candidate: int, predicate_node: int, ancestor: int) -> str:
    """The path feature's value: up from candidate to ancestor, down to predicate_node."""
    up = []
    for node in tree.ancestors(candidate):
        up.append(tree.nodes[node].label)
        if node == ancestor:
            break
    down = []
    for node in tree.ancestors(predicate_node):
        if node == ancestor:
            break
        down.append(tree.nodes[node].label)
    return "^".join(up) + "".join(f"!{label}" for label in reversed(down))


# Gildea & Jurafsky (2002), the voice feature, by the README's passive pattern.
def voice(tree: ConstituentTree, predicate_node: int) -> str:
    """``passive`` or ``active`` (see the module notes)."""
    if tree.nodes[predicate_node].label != "VBN":
        return "active"
    below = predicate_node
    node = tree.nodes[predicate_node].parent
    while node >= 0 and tree.nodes[node].label == "VP":
        for child in tree.nodes[node].children:
            if child == below:
                break
            constituent = tree.nodes[child]
            if (constituent.label.startswith("VB") and constituent.word is not None
                    and constituent.word.lower() in PASSIVE_AUXILIARIES):
                return "passive"
        below = node
        node = tree.nodes[node].parent
    return "active"


# The subcategorization feature, one of the README's seven (after Gildea & Jurafsky 2002).
def subcategorization(tree: ConstituentTree, predicate_node: int) -> str:
    """The subcat feature's value: ``PARENT>CHILD_CHILD_...`` of the predicate's parent."""
    parent = tree.nodes[tree.nodes[predicate_node].parent]
    return f"{parent.label}>" + "_".join(tree.nodes[child].label for child in parent.children)


class PredicateContext:
    """What the features of every candidate of one predicate share."""

    __slots__ = ("lemma", "node", "token", "voice", "subcat")

    def __init__(self, tree: ConstituentTree, token: int, lemma: str) -> None:
        self.token = token
        self.node = tree.preterminals[token]
        self.lemma = lemma
        self.voice = voice(tree, self.node)
        self.subcat = subcategorization(tree, self.node)


def gildea_jurafsky_features(tree: ConstituentTree, candidate: int, predicate: PredicateContext,
                             ancestor: int) -> list[str]:
    """The seven feature strings of candidate, in the order pt, lem, path, pos, voice, hw,
    subcat."""
    node = tree.nodes[candidate]
    return [
        f"pt={node.label}",
        f"lem={predicate.lemma}",
        f"path={path(tree, candidate, predicate.node, ancestor)}",
        f"pos={'before' if node.last < predicate.token else 'after'}",
        f"voice={predicate.voice}",
        f"hw={head_word(tree, candidate)}",
        f"subcat={predicate.subcat}",
    ]
