"""Japanese raw text to morphemes: MeCab through fugashi, with the dictionary of a tag scheme.

Each tag scheme the readers know (parser/formats/tag_schemes.py, parser/formats/cabocha.py) is
written by one MeCab dictionary packaged for Python: UniDic by unidic-lite (the optional extra
`polyparse[mecab]`), IPAdic by ipadic, JUMAN's parts of speech by jumandic. Each morpheme becomes a
CaboCha / MeCab line ``surface<TAB>features``, the features being MeCab's comma-separated fields as
that dictionary prints them. MeCab skips the half-width white space between morphemes; here it
becomes a morpheme of its own, tagged as the dictionary tags a full-width space (UniDic's 空白,
IPAdic's and JUMAN's 空白 symbol), so that the surfaces of a sentence join back to its text exactly.
A tab cannot be written in the CaboCha or KNP formats (it separates their fields) and is refused.
"""
from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any

from polyparse.features.errors import InputError

__all__ = ["DICTIONARIES", "MECAB_EXTRA", "MeCabDictionary", "MeCabTagger", "require_mecab"]

MECAB_EXTRA = "pip install 'polyparse[mecab]' (fugashi and unidic-lite)"
# MeCab's output: each morpheme as its surface with the white space before it (%M), a tab and
# its features (%H), then EOS. fugashi splits its argument string as a shell would, hence the
# doubled backslashes.
_FORMAT = (r"-O '' --node-format=%M\\t%H\\n --unk-format=%M\\t%H\\n --eos-format=EOS\\n "
           r"--bos-format=")


@dataclass(frozen=True)
class MeCabDictionary:
    """A MeCab dictionary packaged for Python: the tag scheme it writes and its name in
    messages, the module whose DICDIR holds it, what to install without it, and its features
    for white space ({space} stands for the white space itself), as it tags a full-width
    space."""

    tagset: str
    name: str
    module: str
    install: str
    space: str

    def space_features(self, space: str) -> str:
        """The features of a morpheme of white space."""
        return self.space.replace("{space}", space)


DICTIONARIES = {
    "unidic": MeCabDictionary(
        "unidic", "UniDic", "unidic_lite", MECAB_EXTRA,
        "空白,*,*,*,*,*,,{space},{space},,{space},,記号,*,*,*,*,,,,,*,*,*,*,*"),
    "ipadic": MeCabDictionary("ipadic", "IPAdic", "ipadic", "pip install fugashi ipadic",
                              "記号,空白,*,*,*,*,{space},{space},{space}"),
    "juman": MeCabDictionary("juman", "JUMAN's dictionary", "jumandic",
                             "pip install fugashi jumandic", "特殊,空白,*,*,{space},{space},*"),
}


def require_mecab(tagset: str = "unidic") -> tuple[Any, Any]:
    """The fugashi module and the dictionary module of tagset; InputError saying what to
    install without them (checked before any input is read, without loading the dictionary).
    """
    dictionary = DICTIONARIES.get(tagset)
    if dictionary is None:
        raise InputError(f"Japanese raw text: no MeCab dictionary is known for the tag set "
                         f"{tagset!r} (known: {', '.join(DICTIONARIES)})")
    try:
        fugashi = importlib.import_module("fugashi")
        module = importlib.import_module(dictionary.module)
    except ImportError:
        raise InputError(f"Japanese raw text needs MeCab with {dictionary.name}: "
                         f"{dictionary.install}") from None
    return fugashi, module


class MeCabTagger:
    """MeCab with the dictionary of tagset; morpheme_lines(text) gives the lines of one
    sentence."""

    def __init__(self, tagset: str = "unidic") -> None:
        fugashi, module = require_mecab(tagset)
        self.tagset = tagset
        self.dictionary = DICTIONARIES[tagset]
        self._tagger = fugashi.GenericTagger(f"-r /dev/null -d {module.DICDIR} {_FORMAT}")

    def morpheme_lines(self, text: str) -> list[str]:
        """The morphemes of text (one sentence, no tab, no line break) as
        ``surface<TAB>features`` lines; their surfaces join to text."""
        if not text:
            return []
        lines = self._tagger.parse(text).split("\n")
        lines.pop()
        position = 0
        out: list[str] = []
        space_features = self.dictionary.space_features
        for line in lines:
            surface, _, features = line.partition("\t")
            word = surface.lstrip()
            if word and word != surface:
                space = surface[: len(surface) - len(word)]
                out.append(f"{space}\t{space_features(space)}")
                position += len(space)
                surface = word
                line = f"{word}\t{features}"
            out.append(line)
            position += len(surface)
        if position < len(text):
            rest = text[position:]
            if rest.isspace():
                out.append(f"{rest}\t{space_features(rest)}")
            else:
                raise ValueError(f"MeCab's morphemes do not cover {text!r}")
        return out
