"""The bunsetsu feature keys (pair_keys, boundary_keys, chunk_properties through sentence_keys)
against a plain-Python reference written from the module's docstring, on random sentences of
lexicon ids and on real KWDLC sentences. Keys are compared as multisets."""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from polyparse.features.interning import StringInterner
from polyparse.parser.bunsetsu.bunsetsu_features import sentence_keys, special_ids
from tests.parser.bunsetsu.samples import Sentence, kwdlc_or_skip

NO_ID = 2  # ids 0-2 are the lexicon's "no token", "root", "unknown": they give no key
SURF, POS1, POS2, FORM = 0, 1, 2, 3
# Template numbers, re-declared from the module (a key is (template << 48) | value).
T_H_LAST, T_I_HEAD, T_I_TAIL, T_I_LAST = 1, 5, 9, 13
T_J_ZERO, T_J_HEAD, T_J_TAIL, T_J_LAST = 17, 21, 25, 29
T_K_ZERO, T_K_HEAD, T_K_LAST = 33, 37, 41
T_COORD_HJ, T_COORD_IJ, T_COORD_IK = 45, 46, 47
T_I_FIRST, T_J_FINAL = 48, 49
T_I_BRACKET, T_J_BRACKET, T_I_PUNCT, T_J_PUNCT = 50, 51, 52, 53
T_I_PARTICLE, T_J_PARTICLE = 54, 55
T_DISTANCE, T_GAP_BRACKET, T_GAP_PUNCT = 56, 57, 58
T_CHILD_PARTICLE, T_I_CHILD_PARTICLE = 59, 60
T_B_PREV2, T_B_PREV, T_B_THIS, T_B_NEXT, T_B_NEXT2 = 64, 68, 72, 76, 80
T_B_CLASS_PREV, T_B_CLASS_THIS, T_B_FIRST = 84, 85, 86
T_B_CLASS_PREV2, T_B_CLASS_NEXT = 90, 91
# Bracket states: no brackets, more 括弧始 than 括弧終, fewer, as many (> 0).
NO_BRACKET, OPENED, CLOSED, BALANCED = 0, 1, 2, 3
COMMA, PERIOD = 1, 2  # punctuation flags (both: 3)

SPECIAL_NAMES = ("special", "comma", "period", "bracket_in", "bracket_out", "particle")


def key(template: int, value: int) -> int:
    return (template << 48) | value


@dataclass
class Chunk:
    """A bunsetsu as J.DepP sees it: morpheme indices (-1: none) and properties."""

    zero: int
    last: int
    head: int
    tail: int
    punct: int
    opened: int
    closed: int
    particles: list[int]


def matches(value: int, special: int) -> bool:
    # A string the lexicon lacks is none of J.DepP's special strings.
    return special > NO_ID and value == special


def chunk_of(surface: Sequence[int], pos1: Sequence[int], pos2: Sequence[int], start: int,
             end: int, ids: dict[str, int]) -> Chunk:
    """J.DepP's scan of the chunk's morphemes from the last to the first."""
    chunk = Chunk(start, end - 1, -1, -1, 0, 0, 0, [])
    for m in range(end - 1, start - 1, -1):
        if matches(pos1[m], ids["special"]):
            if matches(pos2[m], ids["comma"]):
                chunk.punct |= COMMA
            elif matches(pos2[m], ids["period"]):
                chunk.punct |= PERIOD
            elif matches(pos2[m], ids["bracket_in"]):
                chunk.opened += 1
            elif matches(pos2[m], ids["bracket_out"]):
                chunk.closed += 1
            continue
        if chunk.tail < 0:
            chunk.tail = m
        if matches(pos1[m], ids["particle"]):
            if surface[m] > NO_ID and surface[m] not in chunk.particles:
                chunk.particles.append(surface[m])
        elif chunk.head < 0:
            chunk.head = m
    return chunk


def bracket_state(opened: int, closed: int) -> int:
    if opened > closed:
        return OPENED
    if opened < closed:
        return CLOSED
    return NO_BRACKET if opened == 0 else BALANCED


class Reference:
    """Pair and boundary keys of one sentence, in plain Python."""

    def __init__(self, surface: Sequence[int], pos1: Sequence[int], pos2: Sequence[int],
                 conj_form: Sequence[int], chunk_start: Sequence[int], heads: Sequence[int],
                 ids: dict[str, int], char_class: Sequence[int] | None = None) -> None:
        self.columns = [list(surface), list(pos1), list(pos2), list(conj_form)]
        self.char_class = [0] * len(surface) if char_class is None else list(char_class)
        self.chunk_start = list(chunk_start)
        self.heads = list(heads)
        self.chunks = [chunk_of(surface, pos1, pos2, chunk_start[c], chunk_start[c + 1], ids)
                       for c in range(len(chunk_start) - 1)]

    def token(self, template: int, m: int, attributes: Sequence[int]) -> list[int]:
        if m < 0:
            return []
        values = [(a, self.columns[a][m]) for a in attributes]
        return [key(template + a, v) for a, v in values if v > NO_ID]

    def head_surface(self, c: int) -> int | None:
        """The surface id of chunk c's head word; None when there is none or it is unknown."""
        if not 0 <= c < len(self.chunks) or self.chunks[c].head < 0:
            return None
        value = self.columns[SURF][self.chunks[c].head]
        return value if value > NO_ID else None

    def pair(self, i: int, j: int) -> list[int]:
        chunks, n = self.chunks, len(self.chunks)
        ci, cj = chunks[i], chunks[j]
        every = (SURF, POS1, POS2, FORM)
        keys: list[int] = []
        if i > 0:
            keys += self.token(T_H_LAST, chunks[i - 1].last, [SURF])
        keys += self.token(T_I_HEAD, ci.head, every)
        keys += self.token(T_I_TAIL, ci.tail, every)
        keys += self.token(T_I_LAST, ci.last, [SURF, POS2])
        keys += self.token(T_J_ZERO, cj.zero, [SURF, POS2])
        keys += self.token(T_J_HEAD, cj.head, every)
        keys += self.token(T_J_TAIL, cj.tail, [SURF, POS2, FORM])
        keys += self.token(T_J_LAST, cj.last, [POS2])
        if j + 1 < n:
            ck = chunks[j + 1]
            keys += self.token(T_K_ZERO, ck.zero, [SURF])
            keys += self.token(T_K_HEAD, ck.head, [SURF])
            keys += self.token(T_K_LAST, ck.last, [SURF])
        hs, is_, js, ks = (self.head_surface(c) for c in (i - 1, i, j, j + 1))
        if js is not None and hs == js:
            keys.append(key(T_COORD_HJ, 1))
        if js is not None and is_ == js:
            keys.append(key(T_COORD_IJ, 1))
        if is_ is not None and is_ == ks:
            keys.append(key(T_COORD_IK, 1))
        if i == 0:
            keys.append(key(T_I_FIRST, 1))
        if j == n - 1:
            keys.append(key(T_J_FINAL, 1))
        keys.append(key(T_I_BRACKET, bracket_state(ci.opened, ci.closed)))
        keys.append(key(T_J_BRACKET, bracket_state(cj.opened, cj.closed)))
        keys.append(key(T_I_PUNCT, ci.punct))
        keys.append(key(T_J_PUNCT, cj.punct))
        keys += [key(T_I_PARTICLE, p) for p in ci.particles]
        keys += [key(T_J_PARTICLE, p) for p in cj.particles]
        distance = j - i
        keys.append(key(T_DISTANCE, 0 if distance == 1 else 1 if distance <= 5 else 2))
        gap = chunks[i + 1:j]
        keys.append(key(T_GAP_BRACKET, bracket_state(sum(c.opened for c in gap),
                                                     sum(c.closed for c in gap))))
        punct = 0
        for c in gap:
            punct |= c.punct
        keys.append(key(T_GAP_PUNCT, punct))
        for c in range(i + 1, j):
            if self.heads[c] == j:
                keys += [key(T_CHILD_PARTICLE, p) for p in chunks[c].particles]
        for c in range(i):
            if self.heads[c] == i:
                keys += [key(T_I_CHILD_PARTICLE, p) for p in chunks[c].particles]
        return keys

    def boundary(self, m: int) -> list[int]:
        n = len(self.columns[SURF])
        keys: list[int] = []
        if m >= 2:
            keys += self.token(T_B_PREV2, m - 2, [SURF, POS2, FORM])
        keys += self.token(T_B_PREV, m - 1, [SURF, POS1, POS2, FORM])
        keys += self.token(T_B_THIS, m, [SURF, POS1, POS2, FORM])
        if m + 1 < n:
            keys += self.token(T_B_NEXT, m + 1, [SURF, POS1, POS2])
        if m + 2 < n:
            keys += self.token(T_B_NEXT2, m + 2, [SURF])
        keys.append(key(T_B_CLASS_PREV, self.char_class[m - 1]))
        keys.append(key(T_B_CLASS_THIS, self.char_class[m]))
        if m >= 2:
            keys.append(key(T_B_CLASS_PREV2, self.char_class[m - 2]))
        if m + 1 < n:
            keys.append(key(T_B_CLASS_NEXT, self.char_class[m + 1]))
        # The bunsetsu holding m - 1, as the chunker has decided it before m.
        start = max(c for c in self.chunk_start[:-1] if c < m)
        if start < m - 1:
            keys += self.token(T_B_FIRST, start, [POS1, POS2])
        return keys


def difference(got: Sequence[int], expected: Sequence[int]) -> str:
    """The keys only one side has, as (template, value), for assertion messages."""
    extra, missing = Counter(map(int, got)), Counter(map(int, expected))
    extra.subtract(missing)
    return ", ".join(f"{'+' if n > 0 else '-'}({k >> 48}, {k & 0xFFFFFFFF})"
                     for k, n in sorted(extra.items()) if n)


def compare(surface: Sequence[int], pos1: Sequence[int], pos2: Sequence[int],
            conj_form: Sequence[int], chunk_start: Sequence[int], heads: Sequence[int],
            ids: dict[str, int]) -> int:
    """Assert that every pair i < j and every boundary m >= 1 gets the reference's keys;
    returns the number of key lists compared."""
    n_chunks, n_morphemes = len(chunk_start) - 1, len(surface)
    pairs = [(i, j) for j in range(n_chunks) for i in range(j)]
    boundaries = list(range(1, n_morphemes))
    # Character classes: any small values, as a function of the surface (0 included).
    char_class = [(7 * x) % 46 for x in surface]
    got_pairs, got_boundaries = sentence_keys(surface, pos1, pos2, conj_form, chunk_start,
                                              heads, ids, pairs, boundaries, char_class)
    reference = Reference(surface, pos1, pos2, conj_form, chunk_start, heads, ids, char_class)
    for (i, j), got in zip(pairs, got_pairs):
        expected = reference.pair(i, j)
        assert sorted(got) == sorted(expected), (i, j, difference(got, expected))
    for m, got in zip(boundaries, got_boundaries):
        expected = reference.boundary(m)
        assert sorted(got) == sorted(expected), (m, difference(got, expected))
    return len(pairs) + len(boundaries)


# Random sentences: small id ranges so that coordination and repeated particles happen; the
# special strings have ids 3-8, and the unknown ids 0-2 appear in every column.
RANDOM_IDS = dict(zip(SPECIAL_NAMES, range(3, 9)))


def random_sentence(rng: np.random.Generator, ids: dict[str, int]
                    ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    n = int(rng.integers(1, 30))
    special_pos1 = [ids["special"], ids["particle"]]
    special_pos2 = [ids["comma"], ids["period"], ids["bracket_in"], ids["bracket_out"]]
    pos1 = np.where(rng.random(n) < 0.5, rng.choice(special_pos1, n), rng.integers(0, 12, n))
    pos2 = np.where(rng.random(n) < 0.6, rng.choice(special_pos2, n), rng.integers(0, 12, n))
    surface = rng.integers(0, 10, n)
    conj_form = rng.integers(0, 6, n)
    cuts = np.flatnonzero(rng.random(n - 1) < rng.uniform(0.1, 0.9)) + 1
    chunk_start = np.concatenate([[0], cuts, [n]])
    n_chunks = len(chunk_start) - 1
    # Partial heads: -1 (undecided) or any chunk; only heads[c] == i or j matters to the keys.
    heads = np.where(rng.random(n_chunks) < 0.4, -1, rng.integers(0, n_chunks, n_chunks))
    return [surface, pos1, pos2, conj_form], chunk_start, heads


@pytest.mark.parametrize("seed", range(4))
def test_random_sentences_match_the_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    compared = 0
    for _ in range(150):
        columns, chunk_start, heads = random_sentence(rng, RANDOM_IDS)
        compared += compare(*columns, chunk_start, heads, RANDOM_IDS)
    assert compared > 5000


def test_random_sentences_with_special_strings_the_lexicon_lacks() -> None:
    """A lexicon without 特殊, 括弧始, ... has NO_ID for them: an unknown POS (id 2) is none of
    them."""
    rng = np.random.default_rng(10)
    for missing in SPECIAL_NAMES:
        ids = dict(RANDOM_IDS, **{missing: NO_ID})
        for _ in range(40):
            columns, chunk_start, heads = random_sentence(rng, ids)
            compare(*columns, chunk_start, heads, ids)


def test_unknown_head_words_are_not_coordinated() -> None:
    """Two chunks whose head words the lexicon lacks (id 2) do not share a head word."""
    ids = RANDOM_IDS
    surface, pos1, pos2, form = [2, 2, 2], [9, 9, 9], [9, 9, 9], [0, 0, 0]
    (keys,), _ = sentence_keys(surface, pos1, pos2, form, [0, 1, 2, 3], [-1, -1, -1], ids,
                               [(1, 2)])
    coordination = {T_COORD_HJ, T_COORD_IJ, T_COORD_IK}
    assert not [k for k in keys if k >> 48 in coordination]


def test_a_known_example() -> None:
    """「猫 が 」 見る 。: the keys of (0, 1) and of the boundary at 見る, by hand ("*" is
    unknown to the lexicon, so it gives no key)."""
    lexicon = StringInterner(["特殊", "読点", "句点", "括弧始", "括弧終", "助詞", "猫", "が",
                              "見る", "名詞", "動詞", "格助詞", "基本形", "。", "「", "」"])
    ids = special_ids(lexicon)
    g = lexicon.get
    words = [("「", "特殊", "括弧始", "*"), ("猫", "名詞", "*", "*"), ("が", "助詞", "格助詞", "*"),
             ("」", "特殊", "括弧終", "*"), ("見る", "動詞", "*", "基本形"), ("。", "特殊", "句点", "*")]
    columns = [[g(w[a]) for w in words] for a in range(4)]
    (keys,), (boundary,) = sentence_keys(*columns, [0, 4, 6], [1, -1], ids, [(0, 1)], [4])
    expected = [key(T_I_HEAD + SURF, g("猫")), key(T_I_HEAD + POS1, g("名詞")),
                key(T_I_TAIL + SURF, g("が")), key(T_I_TAIL + POS1, g("助詞")),
                key(T_I_TAIL + POS2, g("格助詞")), key(T_I_LAST + SURF, g("」")),
                key(T_I_LAST + POS2, g("括弧終")), key(T_J_ZERO + SURF, g("見る")),
                key(T_J_HEAD + SURF, g("見る")), key(T_J_HEAD + POS1, g("動詞")),
                key(T_J_HEAD + FORM, g("基本形")), key(T_J_TAIL + SURF, g("見る")),
                key(T_J_TAIL + FORM, g("基本形")), key(T_J_LAST + POS2, g("句点")),
                key(T_I_FIRST, 1), key(T_J_FINAL, 1), key(T_I_BRACKET, BALANCED),
                key(T_J_BRACKET, NO_BRACKET), key(T_I_PUNCT, 0), key(T_J_PUNCT, PERIOD),
                key(T_I_PARTICLE, g("が")), key(T_DISTANCE, 0), key(T_GAP_BRACKET, NO_BRACKET),
                key(T_GAP_PUNCT, 0)]
    assert sorted(keys) == sorted(expected)
    assert key(T_B_PREV2 + SURF, g("が")) in boundary
    assert not [k for k in boundary if k >> 48 == T_B_NEXT2]
    assert len(boundary) == len(Reference(*columns, [0, 4, 6], [1, -1], ids).boundary(4))


@pytest.fixture(scope="module")
def kwdlc_test() -> list[Sentence]:
    return kwdlc_or_skip("test", 600)


def test_kwdlc_sentences_match_the_reference(kwdlc_test: list[Sentence]) -> None:
    lexicon = StringInterner()
    # The lexicon of a model trained elsewhere: every other sentence's strings are unknown.
    for s in kwdlc_test[::2]:
        for column in (s.surface, s.pos1, s.pos2, s.conj_form):
            lexicon.encode(column, grow=True)
    ids = special_ids(lexicon)
    assert min(ids.values()) > NO_ID
    rng = np.random.default_rng(0)
    compared = 0
    for s in kwdlc_test:
        columns = [lexicon.encode(c) for c in (s.surface, s.pos1, s.pos2, s.conj_form)]
        chunk_start = s.chunk_starts + [len(s.surface)]
        for heads in (s.heads, [-1] * len(s.heads),
                      [h if rng.random() < 0.5 else -1 for h in s.heads]):
            compared += compare(*columns, chunk_start, heads, ids)
    assert compared > 30000


def test_char_class_scripts() -> None:
    from polyparse.parser.bunsetsu.bunsetsu_features import char_class
    # 1 kanji, 2 hiragana, 3 katakana, 4 digit, 5 latin, 0 other: 8 * first + last.
    assert char_class("") == 0
    assert char_class("食べ") == 8 * 1 + 2
    assert char_class("コーヒー") == 8 * 3 + 3
    assert char_class("１８年") == 8 * 4 + 1
    assert char_class("ＮＨＫ") == 8 * 5 + 5
    assert char_class("・") == 0
    assert char_class("a々") == 8 * 5 + 1
