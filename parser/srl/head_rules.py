"""Head words by the simple head rules of datasets/srl_boundary/README.md (feature ``hw=``),
a reduced form of the head-percolation tables of Magerman (1995) and Collins (1999).

A phrase's head child is chosen by its label:

- NP, NML, QP, WHNP: the rightmost NN*/PRP/CD/$/EX/WP child, else the rightmost NP/NML child;
- VP: the leftmost VB*/MD/TO child, else the leftmost VP child;
- PP: the leftmost IN/TO/RP/VBG child;
- S, SINV, SQ, SBARQ: the first VP/S/SQ child;
- SBAR: the first IN/DT/WH* child, else the first S child;
- ADJP: the rightmost JJ* child; ADVP: the rightmost RB*/WRB child;
- otherwise the last child.

When a rule finds no child, the head is the first child in the rule's direction (the leftmost
for VP, PP, S and SBAR; the rightmost for the nominal, ADJP and ADVP rules). WHPP, WHADVP and
WHADJP follow the rules of PP, ADVP and ADJP (WHNP is listed with NP). The README does not
spell out these fallbacks, nor SBARQ and the WH phrases other than WHNP; they are what the
dataset's files hold (with them, train.tk, dev.tk and test.tk come out byte for byte).

The rule is applied again to the head child down to a preterminal, whose word, lower-cased, is
the head word.
"""
from __future__ import annotations

from collections.abc import Callable

from polyparse.parser.srl.constituents import ConstituentTree

__all__ = ["head_preterminal", "head_word"]

LabelTest = Callable[[str], bool]


def _labels(*names: str) -> LabelTest:
    """A test of labels: a name ending in ``*`` matches by prefix, others exactly."""
    exact = frozenset(name for name in names if not name.endswith("*"))
    prefixes = tuple(name[:-1] for name in names if name.endswith("*"))
    return lambda label: label in exact or label.startswith(prefixes)


NOMINAL = _labels("NN*", "PRP", "CD", "$", "EX", "WP")
NOMINAL_PHRASE = _labels("NP", "NML")
VERBAL = _labels("VB*", "MD", "TO")
VERB_PHRASE = _labels("VP")
PREPOSITION = _labels("IN", "TO", "RP", "VBG")
CLAUSE_HEAD = _labels("VP", "S", "SQ")
COMPLEMENTIZER = _labels("IN", "DT", "WH*")
CLAUSE = _labels("S")
ADJECTIVE = _labels("JJ*")
ADVERB = _labels("RB*", "WRB")

# label -> (search from the right?, tests tried in turn)
HEAD_RULES: dict[str, tuple[bool, tuple[LabelTest, ...]]] = {
    **{label: (True, (NOMINAL, NOMINAL_PHRASE)) for label in ("NP", "NML", "QP", "WHNP")},
    "VP": (False, (VERBAL, VERB_PHRASE)),
    **{label: (False, (PREPOSITION,)) for label in ("PP", "WHPP")},
    **{label: (False, (CLAUSE_HEAD,)) for label in ("S", "SINV", "SQ", "SBARQ")},
    "SBAR": (False, (COMPLEMENTIZER, CLAUSE)),
    **{label: (True, (ADJECTIVE,)) for label in ("ADJP", "WHADJP")},
    **{label: (True, (ADVERB,)) for label in ("ADVP", "WHADVP")},
}


# Head percolation (Magerman 1995; Collins 1999, appendix A), reduced to the README's table.
def head_child(tree: ConstituentTree, node: int) -> int:
    """The head child of a phrase by HEAD_RULES."""
    children = tree.nodes[node].children
    rule = HEAD_RULES.get(tree.nodes[node].label)
    if rule is None:
        return children[-1]
    from_right, tests = rule
    ordered = children[::-1] if from_right else children
    for test in tests:
        for child in ordered:
            if test(tree.nodes[child].label):
                return child
    return ordered[0]


def head_preterminal(tree: ConstituentTree, node: int) -> int:
    """The preterminal reached by following head children down from node."""
    while not tree.nodes[node].is_preterminal:
        node = head_child(tree, node)
    return node


def head_word(tree: ConstituentTree, node: int) -> str:
    """The head word of node, lower-cased."""
    word = tree.nodes[head_preterminal(tree, node)].word
    assert word is not None
    return word.lower()
