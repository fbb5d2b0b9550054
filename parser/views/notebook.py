"""Parsed sentences that show themselves as pictures in Jupyter (IPython's `_repr_html_`): a
conllu TokenList, and a list of them, that are nothing else than a TokenList and a list (every
method, comparison and pickle as theirs), and whose HTML is their trees drawn as inline SVG with
their style sheet (no script: notebooks need not trust the output). The drawing modules are
imported when a notebook asks for the HTML."""
from __future__ import annotations

from collections.abc import Iterable, Sequence

import conllu

__all__ = ["NOTEBOOK_SENTENCES", "PicturedSentences", "PicturedTokenList", "notebook_html",
           "pictured"]

# The sentences a notebook draws at most for one list; the rest are counted.
NOTEBOOK_SENTENCES = 20


class PicturedTokenList(conllu.TokenList):
    """A conllu TokenList drawn as its tree in a notebook."""

    def _repr_html_(self) -> str:
        return notebook_html([self])


class PicturedSentences(list):
    """A list of TokenLists drawn as their trees (the first NOTEBOOK_SENTENCES) in a
    notebook."""

    def _repr_html_(self) -> str:
        return notebook_html(self)


def pictured(tokenlists: Iterable[conllu.TokenList]) -> PicturedSentences:
    """The TokenLists as PicturedTokenLists, in a PicturedSentences list."""
    return PicturedSentences(PicturedTokenList(list(tokens), tokens.metadata,
                                               tokens.default_fields) for tokens in tokenlists)


def notebook_html(tokenlists: Sequence[conllu.TokenList]) -> str:
    """The HTML a notebook shows for the sentences: each tree as an inline SVG picture that
    scrolls sideways when wide, under its id and text."""
    from html import escape

    from polyparse.parser.formats.tokens import sentences_from_tokenlists
    from polyparse.parser.views.sentence_tree import conll_tree
    from polyparse.parser.views.svg_tree import tree_style, tree_svg

    shown = list(tokenlists[:NOTEBOOK_SENTENCES])
    sentences = sentences_from_tokenlists(shown, require_tree=True, single_root=False,
                                          require_deprel=False)
    parts = [f"<style>{tree_style()}</style>"]
    for sentence in sentences:
        tree = conll_tree(sentence)
        title = f"{tree.sent_id}: {tree.text}" if tree.sent_id else tree.text
        parts.append(f'<div style="overflow-x:auto"><div style="color:#555;font-size:12px">'
                     f"{escape(title)}</div>{tree_svg(tree, standalone=False)}</div>")
    if len(tokenlists) > len(shown):
        parts.append(f"<p>… and {len(tokenlists) - len(shown)} more sentences "
                     "(polyparse.render(sentences, format=\"html\") draws them all)</p>")
    return "".join(parts)
