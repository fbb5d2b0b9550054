"""Small hand-checked sentences for the tests of the pictures."""
from __future__ import annotations

import io

from polyparse.parser.formats.conll import read_conll
from polyparse.parser.views.sentence_tree import SentenceTree, conll_tree


def tree_of(text: str) -> SentenceTree:
    (sentence,) = read_conll(None, stream=io.StringIO(text), name="<test>", require_tree=True,
                             single_root=False)
    return conll_tree(sentence)


def conllu(words: list[tuple[str, str, str, int, str]], comments: str = "") -> str:
    """CoNLL-U text of one sentence: each word (form, upos, xpos, head, deprel)."""
    lines = [f"{i}\t{form}\t_\t{upos}\t{xpos}\t_\t{head}\t{deprel}\t_\t_"
             for i, (form, upos, xpos, head, deprel) in enumerate(words, 1)]
    return comments + "\n".join(lines) + "\n\n"


# "on it" hangs on "hearing" across "scheduled": the arc hearing -> it (nmod) crosses the arc
# scheduled -> today (obl:tmod) and the root's arrow.
CROSSING = conllu([
    ("A", "DET", "DT", 2, "det"),
    ("hearing", "NOUN", "NN", 4, "nsubj"),
    ("is", "AUX", "VBZ", 4, "aux"),
    ("scheduled", "VERB", "VBN", 0, "root"),
    ("on", "ADP", "IN", 6, "case"),
    ("it", "PRON", "PRP", 2, "nmod"),
    ("today", "NOUN", "NN", 4, "obl:tmod"),
], "# sent_id = crossing-1\n# text = A hearing is scheduled on it today\n")

# The crossing of two arcs under the root, neither holding the other: c -> a and b -> d.
INTERLEAVED = conllu([
    ("a", "X", "_", 3, "dep"),
    ("b", "X", "_", 5, "dep"),
    ("c", "X", "_", 5, "dep"),
    ("d", "X", "_", 2, "dep"),
    ("e", "X", "_", 0, "root"),
])
