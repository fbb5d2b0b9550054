"""Reading back what the HTML pages hold: their sentence data and their scores."""
from __future__ import annotations

import base64
import gzip
import json
import re
from html import unescape


def page_sentences(page: str) -> list[dict]:
    """The sentences of a page (html, id, text, relations, kinds), from its data: JSON,
    gzip-compressed, in base64."""
    found = re.search(r'<script type="application/octet-stream" id="pp-data" '
                      r'data-encoding="gzip\+base64">([A-Za-z0-9+/=]*)</script>', page)
    assert found
    return json.loads(gzip.decompress(base64.b64decode(found.group(1))))["sentences"]


def page_json_lines(page: str) -> list[str]:
    """The lines the page shows as `--json` prints them."""
    found = re.search(r'<pre id="pp-json">(.*?)</pre>', page, flags=re.DOTALL)
    return unescape(found.group(1)).split("\n")


def page_score_cells(page: str) -> dict[str, list[str]]:
    """key -> the cells shown for it in the scores table, one per system."""
    table = re.search(r'<table class="pp-table" id="pp-scores">(.*?)</table>', page,
                      flags=re.DOTALL).group(1)
    cells = {}
    for key, row in re.findall(r'<tr data-key="([^"]+)">(.*?)</tr>', table):
        values = re.findall(r"<td title=[^>]*>([^<]*)</td>", row)
        cells[unescape(key)] = [unescape(value) for value in values]
    return cells


def score_cells(scores: dict) -> dict[str, list[str]]:
    """The cells the scores table should show for one system's --json scores: a nested
    mapping's keys as rows of their own ("precision.UAS")."""
    cells = {}
    for key, value in scores.items():
        for name, inner in (value.items() if isinstance(value, dict) else [("", value)]):
            cells[f"{key}.{name}" if name else key] = [shown(inner)]
    return cells


def shown(value: object) -> str:
    """A score as the scores table shows it (notes, a list of sentences, one after the
    other)."""
    if isinstance(value, list):
        return " ".join(value) or "–"
    return f"{value:.2f}" if isinstance(value, float) else str(value)
