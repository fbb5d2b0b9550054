"""Self-contained HTML pages: one file with its style sheets and script inline (nothing is
fetched from anywhere), whose sentences are drawn as they scroll into view (sentence_list.js),
so that a page of thousands of sentences opens at once. Each sentence's HTML (its pictures, as
inline SVG) is held as a string in the page's data, with the fields the page filters by.
"""
from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from importlib.resources import files

from polyparse.parser.views.sentence_tree import SentenceTree
from polyparse.parser.views.svg_tree import tree_style, tree_svg

__all__ = ["SentenceEntry", "html_document", "sentence_list", "trees_page"]


@dataclass(frozen=True)
class SentenceEntry:
    """One sentence of a page: its HTML, and what the filters look at: its id and text (the
    search box), the relations (or other categories) it is listed under and its kinds."""

    html: str
    sent_id: str
    text: str
    relations: tuple[str, ...] = ()
    kinds: tuple[str, ...] = ()

    def as_json(self) -> dict[str, object]:
        return {"html": self.html, "id": self.sent_id, "text": self.text,
                "relations": list(self.relations), "kinds": list(self.kinds)}


def _asset(name: str) -> str:
    return files("polyparse.parser.views").joinpath(name).read_text(encoding="utf-8")


def html_document(title: str, heading: str, body: str) -> str:
    """A page: its title, the heading part (HTML) and the body (HTML)."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<meta name=\"generator\" content=\"polyparse\"><title>{escape(title)}</title>"
            f"<style>{_asset('page_style.css')}{tree_style()}</style></head>\n"
            f"<body><header class=\"pp-top\">{heading}</header>\n<main>{body}</main></body>"
            "</html>\n")


def page_data(entries: Iterable[SentenceEntry]) -> str:
    """The script element holding the sentences: their JSON, gzip-compressed and in base64
    (DecompressionStream opens it in the page), since the pictures of thousands of sentences
    take tens of megabytes and compress about eightfold."""
    text = json.dumps({"sentences": [entry.as_json() for entry in entries]},
                      ensure_ascii=False, separators=(",", ":"))
    packed = base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0))
    return ('<script type="application/octet-stream" id="pp-data" '
            f'data-encoding="gzip+base64">{packed.decode("ascii")}</script>')


def sentence_list(entries: Sequence[SentenceEntry], controls: str = "",
                  legend: str = "") -> str:
    """The list of sentences (drawn by sentence_list.js), after its controls (HTML holding
    #pp-relation, #pp-kind or #pp-search) and a legend, with the data and the script."""
    return (f'<div class="pp-controls">{controls}<span id="pp-count"></span></div>{legend}'
            '<div id="pp-sentences"></div><div id="pp-more" hidden>'
            '<button type="button">more sentences</button></div>'
            '<noscript><p>The sentences are drawn by the page\'s script; allow scripts to see '
            'them.</p></noscript>'
            f"{page_data(entries)}<script>{_asset('sentence_list.js')}</script>")


def search_box() -> str:
    return ('<label>find <input id="pp-search" type="search" placeholder="sent_id or text">'
            "</label>")


def tree_entry(number: int, tree: SentenceTree, pictures: str, note: str = "") -> str:
    """A sentence's HTML: its number (from 1) and id, its text, a note and its pictures."""
    name = f"{number}" + (f" · {escape(tree.sent_id)}" if tree.sent_id else "")
    meta = f'<p class="pp-meta">{note}</p>' if note else ""
    return (f"<h3>{name}</h3><p class=\"pp-text\">{escape(tree.text)}</p>{meta}"
            f'<div class="pp-pictures">{pictures}</div>')


def trees_page(trees: Iterable[tuple[int, SentenceTree]], source: str) -> str:
    """The page of `dep show --format html` (and `ja show`): every (number, tree) drawn, with
    a search box by id and text."""
    entries = [SentenceEntry(tree_entry(number, tree, tree_svg(tree, standalone=False)),
                             tree.sent_id, tree.text) for number, tree in trees]
    legend = ('<div class="pp-legend"><span><span class="pp-swatch crossing"></span>'
              "non-projective arc</span></div>")
    heading = (f"<h1>{escape(source)}</h1><p>{len(entries)} sentence"
               f"{'s' * (len(entries) != 1)}, drawn by polyparse</p>")
    return html_document(source, heading, sentence_list(entries, search_box(), legend))
