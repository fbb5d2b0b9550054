"""Which dictionary's parts of speech a sentence carries, told by their names alone.

JUMAN (the KNP corpora, MeCab's jumandic), IPAdic (MeCab's and CaboCha's usual dictionary) and
UniDic share the names of most parts of speech (名詞, 動詞, 助詞), but each has a few top-level
ones (pos1) of its own: punctuation and symbols are JUMAN's 特殊, IPAdic's 記号 and UniDic's
補助記号, the copula is JUMAN's 判定詞, demonstratives JUMAN's 指示詞, pronouns and na-adjective
stems UniDic's 代名詞 and 形状詞, prefixes IPAdic's 接頭詞 (the others' 接頭辞). MeCab's output
and CaboCha files are told apart by their number of features (parser/formats/cabocha.py); a KNP
file has none to tell, whoever wrote it (KNP itself, or polyparse from CaboCha or raw text), so
its sentences are told by these names: a sentence is the first scheme of SCHEMES_IN_ORDER that
one of its parts of speech marks, "" when none does (a short sentence without punctuation).
UniDic comes first because it also has a rare 記号 (letters and signs), IPAdic before JUMAN
because no JUMAN sentence holds an IPAdic name.
"""
from __future__ import annotations

from collections.abc import Iterable

__all__ = ["SCHEME_MARKS", "SCHEMES_IN_ORDER", "scheme_of_pos1"]

# The parts of speech (pos1) that mark each scheme.
SCHEME_MARKS: dict[str, frozenset[str]] = {
    "unidic": frozenset(("補助記号", "形状詞", "代名詞", "空白")),
    "ipadic": frozenset(("記号", "接頭詞", "フィラー", "その他")),
    "juman": frozenset(("特殊", "判定詞", "指示詞", "未定義語")),
}
SCHEMES_IN_ORDER = ("unidic", "ipadic", "juman")


def scheme_of_pos1(pos1: Iterable[str]) -> str:
    """The scheme of a sentence with these parts of speech (module notes), "" when none
    tells."""
    names = set(pos1)
    for scheme in SCHEMES_IN_ORDER:
        if not names.isdisjoint(SCHEME_MARKS[scheme]):
            return scheme
    return ""

