"""A CoNLL-U block of raw text cut into several sentences, where a parser found sentence ends
inside it (parser/dependency/sentence_runs.py).

Each piece keeps its token and word lines (IDs and heads renumbered from 1), and gets its own
`# sent_id` and a `# text` of its own tokens; the first piece keeps the block's other comments
(`# newdoc`, `# newpar`) and the whitespace before the text (SpacesBefore). The pieces' blocks
therefore give back the text of the block (conllu_blocks.text_of_blocks).
"""
from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

from polyparse.parser.formats.conll import ID, Sentence, token_lines
from polyparse.parser.tokenize.conllu_blocks import token_spaces
from polyparse.parser.tokenize.segmenter import TokenizedSentence

__all__ = ["cut_block", "sent_id", "token_starts"]

_SENT_ID = "# sent_id = "
_TEXT = "# text = "


def token_starts(sentence: Sentence) -> list[bool]:
    """For each word of a block, whether a token begins at it (not the second or a later
    word of a multiword token)."""
    return [word == 0 for _, forms in token_lines(sentence.lines) for word in range(len(forms))]


def sent_id(sentence: Sentence) -> str | None:
    """The block's `# sent_id`, or None."""
    for line in sentence.lines:
        if line.startswith(_SENT_ID):
            return line[len(_SENT_ID):]
        if line[0] != "#":
            return None
    return None


def cut_block(sentence: Sentence, starts: Sequence[int], sent_ids: Sequence[str]
              ) -> list[Sentence]:
    """The block cut before each word of starts (0-based indices, the first 0; each must
    begin a token, and no head may point out of its piece), piece k taking sent_ids[k]."""
    comments = [line for line in sentence.lines if line[0] == "#"]
    kept = [line for line in comments if not line.startswith((_SENT_ID, _TEXT))]
    pieces: list[list[str]] = [[] for _ in starts]
    for line in sentence.lines:
        if line[0] == "#":
            continue
        columns = line.split("\t")
        word_id = columns[ID]
        first = int(word_id.split("-")[0].split(".")[0])
        piece = bisect_right(starts, first - 1) - 1
        columns[ID] = _shifted(word_id, starts[piece])
        pieces[piece].append("\t".join(columns))
    cut = []
    for k, (start, lines) in enumerate(zip(starts, pieces)):
        end = starts[k + 1] if k + 1 < len(starts) else len(sentence)
        own = list(kept) if k == 0 else []
        own += [_SENT_ID + sent_ids[k], _TEXT + _text(lines)]
        word_lines = [len(own) + index for index, line in enumerate(lines)
                      if "-" not in (word_id := line.split("\t", 1)[0]) and "." not in word_id]
        cut.append(Sentence(
            own + lines, word_lines, sentence.form[start:end], sentence.lemma[start:end],
            sentence.upos[start:end], sentence.xpos[start:end],
            [head - start if head > 0 else head for head in sentence.head[start:end]],
            sentence.deprel[start:end], sentence.start_line, sentence.feats[start:end]))
    return cut


def _shifted(word_id: str, offset: int) -> str:
    """A word, range or empty-node ID moved down by offset words."""
    if "-" in word_id:
        first, last = word_id.split("-")
        return f"{int(first) - offset}-{int(last) - offset}"
    whole, dot, empty = word_id.partition(".")
    return f"{int(whole) - offset}{dot}{empty}"


def _text(lines: list[str]) -> str:
    """`# text` of a piece's token lines: its tokens and the whitespace between them."""
    tokens = token_spaces(lines)
    return TokenizedSentence([form for form, _, _ in tokens],
                             [space for _, _, space in tokens],
                             [[form] for form, _, _ in tokens], False).text
