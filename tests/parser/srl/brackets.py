"""A tree written in Penn brackets as the words, tags and parse bits of gold_conll rows, so that
the tests can state trees readably."""
from __future__ import annotations

import re

from polyparse.parser.srl.constituents import ConstituentTree

TOKEN = re.compile(r"\(([^\s()]+) ([^\s()]+)\)|\(([^\s()]+)|(\))")


def parse_bits(text: str) -> tuple[list[str], list[str], list[str]]:
    """(words, tags, parse bits) of a bracketed tree, ``(TOP (S (NP (NNP Ann)) ...))``."""
    words: list[str] = []
    tags: list[str] = []
    bits: list[str] = []
    opens = ""
    for match in TOKEN.finditer(text):
        tag, word, label, close = match.groups()
        if label is not None:
            opens += f"({label}"
        elif close is not None:
            bits[-1] += ")"
        else:
            words.append(word)
            tags.append(tag)
            bits.append(f"{opens}*")
            opens = ""
    return words, tags, bits


def tree_of(text: str) -> ConstituentTree:
    return ConstituentTree.from_parse_bits(*parse_bits(text))
