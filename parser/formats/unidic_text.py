"""Japanese raw text to UniDic morphemes: MeCab through fugashi, with the unidic-lite dictionary
(the optional extra `polyparse[mecab]`).

Each morpheme becomes a CaboCha / MeCab line ``surface<TAB>features``, the features being MeCab's
comma-separated UniDic fields as MeCab-UniDic prints them (26 fields for a dictionary word, 6
for an unknown one). MeCab skips the half-width white space between morphemes; here it becomes a
morpheme of its own, tagged ``空白`` as UniDic tags a full-width space, so that the surfaces of
a sentence join back to its text exactly. A tab cannot be written in the CaboCha or KNP formats
(it separates their fields) and is refused.
"""
from __future__ import annotations

from typing import Any

from features.errors import InputError

__all__ = ["MECAB_EXTRA", "UniDicTagger", "require_mecab", "space_features"]

MECAB_EXTRA = "pip install 'polyparse[mecab]' (fugashi and unidic-lite)"
# MeCab's output: each morpheme as its surface with the white space before it (%M), a tab and
# its features (%H), then EOS. fugashi splits its argument string as a shell would, hence the
# doubled backslashes.
_FORMAT = (r"-O '' --node-format=%M\\t%H\\n --unk-format=%M\\t%H\\n --eos-format=EOS\\n "
           r"--bos-format=")


def space_features(space: str) -> str:
    """UniDic's features for white space (as it tags U+3000: pos1 空白, the text as orth)."""
    return f"空白,*,*,*,*,*,,{space},{space},,{space},,記号,*,*,*,*,,,,,*,*,*,*,*"


def require_mecab() -> tuple[Any, Any]:
    """The fugashi and unidic_lite modules; InputError saying what to install without them
    (checked before any input is read, without loading the dictionary)."""
    try:
        import fugashi
        import unidic_lite
    except ImportError:
        raise InputError(f"Japanese raw text needs MeCab with UniDic: {MECAB_EXTRA}") from None
    return fugashi, unidic_lite


class UniDicTagger:
    """MeCab with unidic-lite; morpheme_lines(text) gives the lines of one sentence."""

    def __init__(self) -> None:
        fugashi, unidic_lite = require_mecab()
        self.dictionary = unidic_lite.DICDIR
        self._tagger = fugashi.GenericTagger(f"-r /dev/null -d {self.dictionary} {_FORMAT}")

    def morpheme_lines(self, text: str) -> list[str]:
        """The morphemes of text (one sentence, no tab, no line break) as
        ``surface<TAB>features`` lines; their surfaces join to text."""
        if not text:
            return []
        lines = self._tagger.parse(text).split("\n")
        lines.pop()
        position = 0
        out: list[str] = []
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
