"""A parsed sentence written in the other bunsetsu format: KNP from CaboCha, MeCab or raw text,
CaboCha from KNP.

A sentence written in the format it was read in keeps every line (parser/formats/knp.py and
cabocha.py change only the heads). Written in the other format, it is rebuilt from what both
formats share: comment lines, the bunsetsu with their heads and types, and per morpheme its
surface and the six columns (reading, base, pos1, pos2, conj_type, conj_form) that
``BunsetsuSentence`` keeps; the other features of the input are dropped.

- KNP: ``# S-ID:`` and other comment lines, ``* HEADTYPE`` bunsetsu lines, each followed by one
  basic-phrase line ``+ HEADTYPE`` (one basic phrase per bunsetsu: KNP's finer basic phrases
  are not made here, but readers such as rhoknp need them), and JUMAN-style morpheme lines
  ``surface reading base pos1 0 pos2 0 conj_type 0 conj_form 0 NIL``. The ids are 0 (they
  number JUMAN's own tag set; tools that read KNP, rhoknp among them, take them as given); a
  half-width space is written ``\\␣`` and a tab ``\\t``, as Juman++ writes a morpheme that is one
  of them (and rhoknp reads it back), also inside a longer field, so that KNP and rhoknp split
  every line into its fields.
- CaboCha (``-f1``): the comment lines, ``* ID HEADTYPE HEAD/FUNC 0.000000`` bunsetsu lines and
  ``surface<TAB>pos1,pos2,conj_type,conj_form,base,reading`` (the JUMAN layout J.DepP reads).
"""
from __future__ import annotations

from collections.abc import Callable, Sequence

from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence

__all__ = ["cabocha_block_of", "cabocha_chunk_line", "csv_field", "head_and_function",
           "knp_block_of"]

# Parts of speech that are not a bunsetsu's head word (CaboCha's HEAD): symbols and particles
# and auxiliaries of the three dictionaries; the function word (FUNC) is the last morpheme that
# is not a symbol.
_SYMBOLS = frozenset(("特殊", "記号", "補助記号", "空白"))
_FUNCTIONAL = _SYMBOLS | frozenset(("助詞", "助動詞", "判定詞"))
# CaboCha writes its classifier's margin as the score; polyparse's decoders keep none.
NO_SCORE = "0.000000"


def _leaning(pos1: str, pos2: str) -> bool:
    """A content morpheme that leans on the one before it: a non-independent verb or adjective
    (UniDic's 非自立可能, IPAdic's 非自立: いる in 読んでいる, する after a verbal noun), a verb or
    adjective suffix (IPAdic's 接尾), or a suffix that is not nominal (UniDic's 接尾辞 other
    than 名詞的, JUMAN's 動詞性 and 形容詞性 接尾辞)."""
    if pos1 in ("動詞", "形容詞"):
        return pos2 in ("非自立可能", "非自立", "接尾")
    return pos1 == "接尾辞" and not pos2.startswith("名詞")


def head_and_function(pos1: Sequence[str], pos2: Sequence[str], start: int, end: int
                      ) -> tuple[int, int]:
    """CaboCha's HEAD/FUNC of the bunsetsu of morphemes [start, end), relative to start: the
    last content morpheme that does not lean on the one before it (_leaning), else the first
    content morpheme, else the first; and the last morpheme that is not a symbol (the last
    one when all are). CaboCha marks 泳いでいる so (head 泳い, function いる), and so are
    96 % of the heads in UD Japanese GSD's own CaboCha file (ud_gsd_dev.cabocha; 84 % by the
    last content morpheme alone)."""
    content = [m for m in range(start, end) if pos1[m] not in _FUNCTIONAL]
    firm = [m for m in content if not _leaning(pos1[m], pos2[m])]
    head = firm[-1] if firm else (content[0] if content else start)
    func = next((m for m in range(end - 1, start - 1, -1) if pos1[m] not in _SYMBOLS),
                end - 1)
    return head - start, func - start


def cabocha_chunk_line(sentence: BunsetsuSentence, starts: Sequence[int], number: int,
                       head: int, dep_type: str) -> str:
    """The ``* ID HEADTYPE HEAD/FUNC SCORE`` line of bunsetsu number."""
    end = starts[number + 1] if number + 1 < len(starts) else len(sentence.surface)
    head_word, function = head_and_function(sentence.pos1, sentence.pos2,
                                             starts[number], end)
    return f"* {number} {head}{dep_type} {head_word}/{function} {NO_SCORE}"


def _comments(sentence: BunsetsuSentence) -> list[str]:
    """The lines of the sentence that are neither morphemes, bunsetsu nor EOS."""
    skip = set(sentence.morpheme_lines) | set(sentence.chunk_lines)
    return [line for i, line in enumerate(sentence.lines[:-1])
            if i not in skip and line and not line.isspace() and not line.startswith("+ ")
            and line != "+"]


def _knp_field(text: str) -> str:
    """A surface, reading or base form as a field of a KNP morpheme line (Juman++'s escapes,
    jumandic/shared/juman_format.cc)."""
    if not text:
        return "*"
    if " " in text or "\t" in text:
        text = text.replace(" ", "\\␣").replace("\t", "\\t")
    return text


def _block(sentence: BunsetsuSentence, starts: Sequence[int],
           chunk_lines: Callable[[int], list[str]], morpheme_line: Callable[[int], str]) -> str:
    """The comment lines, then each morpheme's line, after the lines chunk_lines(number) of
    the bunsetsu it starts; EOS and its newline at the end."""
    lines = _comments(sentence)
    first = dict(zip(starts, range(len(starts))))
    for m in range(len(sentence.surface)):
        if m in first:
            lines.extend(chunk_lines(first[m]))
        lines.append(morpheme_line(m))
    lines.append("EOS\n")
    return "\n".join(lines)


def knp_block_of(sentence: BunsetsuSentence, starts: Sequence[int], heads: Sequence[int],
                 dep_types: Sequence[str] | None) -> str:
    """The sentence as a KNP block (EOS and its newline included)."""

    def chunk_lines(number: int) -> list[str]:
        head_type = f"{heads[number]}{_knp_type(dep_types, number)}"
        return [f"* {head_type}", f"+ {head_type}"]

    def morpheme_line(m: int) -> str:
        return " ".join((
            _knp_field(sentence.surface[m]), _knp_field(sentence.reading[m]),
            _knp_field(sentence.base[m]), _knp_field(sentence.pos1[m]), "0",
            _knp_field(sentence.pos2[m]), "0", _knp_field(sentence.conj_type[m]), "0",
            _knp_field(sentence.conj_form[m]), "0", "NIL"))

    return _block(sentence, starts, chunk_lines, morpheme_line)


def _knp_type(dep_types: Sequence[str] | None, number: int) -> str:
    """KNP knows D, P, A and I; any other label (CaboCha's D, other corpora's F, B, Z) is D."""
    dep_type = "D" if dep_types is None else dep_types[number]
    return dep_type if dep_type in ("D", "P", "A", "I") else "D"


def csv_field(field: str) -> str:
    """A MeCab feature field as CSV writes it: quoted when it holds a comma or a quote."""
    if "," in field or '"' in field:
        return '"' + field.replace('"', '""') + '"'
    return field


def cabocha_block_of(sentence: BunsetsuSentence, starts: Sequence[int], heads: Sequence[int],
                     dep_types: Sequence[str] | None) -> str:
    """The sentence as a CaboCha block in the JUMAN layout (EOS and its newline included)."""

    def chunk_lines(number: int) -> list[str]:
        dep_type = "D" if dep_types is None else dep_types[number]
        return [cabocha_chunk_line(sentence, starts, number, heads[number], dep_type)]

    def morpheme_line(m: int) -> str:
        features = (sentence.pos1[m], sentence.pos2[m], sentence.conj_type[m],
                    sentence.conj_form[m], sentence.base[m], sentence.reading[m])
        return f"{sentence.surface[m]}\t{','.join(map(csv_field, features))}"

    return _block(sentence, starts, chunk_lines, morpheme_line)
