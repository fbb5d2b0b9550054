"""Trees as pictures from Python: `polyparse.render` draws what the parsers take and give
(conllu TokenLists, CoNLL-U text, KNP or CaboCha text) as the text, SVG or HTML that `polyparse
dep show` and `ja show` write (parser/views/)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import conllu

from polyparse.parser.formats.tokens import sentences_from_text, sentences_from_tokenlists

__all__ = ["RENDER_FORMATS", "render"]

RENDER_FORMATS = ("text", "svg", "html")
_TREE_CHECKS = {"require_tree": True, "single_root": False}


def _trees(sentences: Any, input_format: str) -> list[Any]:
    import io

    from polyparse.parser.views.sentence_tree import bunsetsu_tree, conll_tree

    if input_format in ("knp", "cabocha"):
        from polyparse.parser.formats.bunsetsu import read_bunsetsu

        if not isinstance(sentences, str):
            raise TypeError(f"input_format {input_format!r} takes the file's text (a str), not "
                            f"{type(sentences).__name__}")
        return [bunsetsu_tree(sentence) for sentence in
                read_bunsetsu(io.StringIO(sentences), input_format, name="<text>")
                if sentence.surface]
    if input_format != "conllu":
        raise ValueError(f"input_format must be conllu, knp or cabocha, not {input_format!r}")
    if isinstance(sentences, str):
        return [conll_tree(s) for s in sentences_from_text(sentences, require_deprel=False,
                                                           **_TREE_CHECKS)]
    if isinstance(sentences, conllu.TokenList):
        sentences = [sentences]
    if not isinstance(sentences, Iterable):
        raise TypeError("render takes a conllu.TokenList, a list of them, or CoNLL-U, KNP or "
                        f"CaboCha text, not {type(sentences).__name__}")
    return [conll_tree(s) for s in sentences_from_tokenlists(list(sentences), **_TREE_CHECKS)]


def render(sentences: Any, format: str = "svg", input_format: str = "conllu",
           color: bool = False) -> str:
    """The sentences drawn as `dep show` (input_format "conllu": a conllu.TokenList, a list of
    them, or CoNLL-U text) or `ja show` (input_format "knp" or "cabocha": the text) draw them:
    format "text" (udapi's text-mode trees, or CaboCha's -f0 trees; ANSI colours with color),
    "svg" (one sentence: a standalone SVG document) or "html" (one self-contained page of them
    all). The trees must be complete (every word a head); InputError otherwise, ValueError for
    an unknown format or an SVG of several sentences."""
    if format not in RENDER_FORMATS:
        raise ValueError(f"format must be one of {', '.join(RENDER_FORMATS)}, not {format!r}")
    trees = _trees(sentences, input_format)
    if format == "text":
        if input_format == "conllu":
            from polyparse.parser.views.text_tree import text_tree as draw
        else:
            from polyparse.parser.views.cabocha_tree import cabocha_tree as draw
        separator = "\n" if input_format == "conllu" else ""
        return separator.join(draw(tree, color=color) for tree in trees)
    if format == "svg":
        if len(trees) != 1:
            raise ValueError(f"an SVG picture is one sentence; got {len(trees)} (draw several "
                             "with format='html')")
        from polyparse.parser.views.svg_tree import tree_svg

        return tree_svg(trees[0])
    from polyparse.parser.views.html_page import trees_page

    return trees_page(list(enumerate(trees, 1)), "polyparse")
