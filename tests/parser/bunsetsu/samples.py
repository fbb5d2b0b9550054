"""Sentences for the bunsetsu tests: a tiny KNP reader for KWDLC, and synthetic sentences.

The reader is deliberately minimal and local to these tests (the KNP reader of the formats
package, parser.formats.knp, has its own tests with the formats); it keeps what the bunsetsu
parser reads: per morpheme surface, pos1, pos2 and conjugated form, per bunsetsu its first
morpheme and its head.
"""
from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path

import pytest

# JUMAN writes a half-width space inside a field as "\ ".
ESCAPED_SPACE = "\\ "
SPACE_MARK = "\x00"


@dataclass
class Sentence:
    """What BunsetsuParser reads: per-morpheme strings, chunk starts and chunk heads."""

    surface: list[str] = field(default_factory=list)
    pos1: list[str] = field(default_factory=list)
    pos2: list[str] = field(default_factory=list)
    conj_form: list[str] = field(default_factory=list)
    chunk_starts: list[int] = field(default_factory=list)
    heads: list[int] = field(default_factory=list)
    sent_id: str = ""

    def without_chunks(self) -> Sentence:
        return Sentence(list(self.surface), list(self.pos1), list(self.pos2),
                        list(self.conj_form), [], [], self.sent_id)


def read_knp_text(text: str) -> list[Sentence]:
    """Sentences of KNP text: `# ` comments, `* HEAD TYPE` bunsetsu lines, `+` lines, morpheme
    lines `surface reading base pos1 id pos2 id conjtype id conjform id ...`, `EOS`."""
    sentences: list[Sentence] = []
    current = Sentence()
    for line in text.splitlines():
        if line.startswith("# "):
            current.sent_id = line[2:].split(" ", 1)[0].removeprefix("S-ID:")
        elif line == "EOS":
            sentences.append(current)
            current = Sentence()
        elif line.startswith("* "):
            current.chunk_starts.append(len(current.surface))
            current.heads.append(int(line.split(" ")[1][:-1]))
        elif line.startswith("+ ") or not line:
            continue
        else:
            fields = [f.replace(SPACE_MARK, " ")
                      for f in line.replace(ESCAPED_SPACE, SPACE_MARK).split(" ")]
            current.surface.append(fields[0])
            current.pos1.append(fields[3])
            current.pos2.append(fields[5])
            current.conj_form.append(fields[9])
    return sentences


def kwdlc_root() -> Path | None:
    """POLYPARSE_CORPORA/kwdlc, or None when unset or absent."""
    value = os.environ.get("POLYPARSE_CORPORA")
    if not value:
        return None
    root = Path(value) / "kwdlc"
    return root if (root / "id").is_dir() else None


def kwdlc_sentences(root: Path, split: str, limit: int) -> list[Sentence]:
    """The first `limit` sentences of the documents listed in id/<split>.id."""
    out: list[Sentence] = []
    for doc_id in (root / "id" / f"{split}.id").read_text().split():
        path = root / "knp" / doc_id[:-5] / f"{doc_id}.knp"
        out.extend(read_knp_text(path.read_text(encoding="utf-8")))
        if len(out) >= limit:
            break
    return out[:limit]


def kwdlc_or_skip(split: str, limit: int) -> list[Sentence]:
    """kwdlc_sentences of POLYPARSE_CORPORA/kwdlc; the calling test is skipped without it."""
    root = kwdlc_root()
    if root is None:
        pytest.skip("POLYPARSE_CORPORA is not set (or has no kwdlc)")
    return kwdlc_sentences(root, split, limit)


def is_head_final_tree(heads: list[int]) -> bool:
    """Every chunk but the last heads to its right, the last to -1, and no arcs cross."""
    n = len(heads)
    if n == 0 or heads[-1] != -1:
        return False
    for i in range(n - 1):
        if not i < heads[i] < n:
            return False
        for k in range(i + 1, heads[i]):
            if heads[k] > heads[i]:
                return False
    return True


def random_head_final_tree(rng: random.Random, n: int) -> list[int]:
    """A random projective head-final tree: each chunk heads to one on the right spine."""
    heads = [-1] * n
    for i in range(n - 2, -1, -1):
        spine = [i + 1]
        while heads[spine[-1]] != -1:
            spine.append(heads[spine[-1]])
        heads[i] = rng.choice(spine)
    return heads


CONTENT = [("猫", "名詞", "普通名詞", "*"), ("犬", "名詞", "普通名詞", "*"),
           ("公園", "名詞", "普通名詞", "*"), ("走った", "動詞", "*", "タ形"),
           ("見る", "動詞", "*", "基本形"), ("大きい", "形容詞", "*", "基本形"),
           ("東京", "名詞", "地名", "*"), ("三", "名詞", "数詞", "*")]
PARTICLES = [("が", "助詞", "格助詞", "*"), ("を", "助詞", "格助詞", "*"),
             ("に", "助詞", "格助詞", "*"), ("は", "助詞", "副助詞", "*"),
             ("の", "助詞", "接続助詞", "*")]
SYMBOLS = [("、", "特殊", "読点", "*"), ("「", "特殊", "括弧始", "*"),
           ("」", "特殊", "括弧終", "*")]
PERIOD = ("。", "特殊", "句点", "*")


def synthetic_sentence(rng: random.Random, n_chunks: int) -> Sentence:
    """Random bunsetsu of content words, particles and symbols over a random head-final tree;
    the last bunsetsu is a verb with a period."""
    s = Sentence(heads=random_head_final_tree(rng, n_chunks))
    for c in range(n_chunks):
        s.chunk_starts.append(len(s.surface))
        morphemes = []
        if rng.random() < 0.1:
            morphemes.append(SYMBOLS[1])
        if c == n_chunks - 1:
            morphemes += [CONTENT[rng.choice([3, 4])], PERIOD]
        else:
            morphemes += rng.choices(CONTENT, k=rng.choice([1, 1, 2]))
            morphemes += rng.sample(PARTICLES, k=rng.choice([0, 1, 1, 2]))
            if rng.random() < 0.1:
                morphemes.append(SYMBOLS[2])
            if rng.random() < 0.2:
                morphemes.append(SYMBOLS[0])
        for surface, pos1, pos2, form in morphemes:
            s.surface.append(surface)
            s.pos1.append(pos1)
            s.pos2.append(pos2)
            s.conj_form.append(form)
    return s


def synthetic_sentences(seed: int, n: int, max_chunks: int = 8) -> list[Sentence]:
    rng = random.Random(seed)
    return [synthetic_sentence(rng, rng.randint(1, max_chunks)) for _ in range(n)]
