"""What the KNP and CaboCha fast paths (parser.formats.knp_scan, cabocha_scan) must give as the
Python path does: the checks their equivalence tests share."""
from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from polyparse.features.interning import StringInterner
from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

CORPUS_ARRAYS = ("surface", "pos1", "pos2", "conj_form", "morpheme_ptr", "chunk_ptr",
                 "chunk_bounds")


def parser_with(strings: list[str]) -> BunsetsuParser:
    parser = BunsetsuParser()
    parser.lexicon = StringInterner(strings)
    return parser


def assert_scanned_as_read(scan, sentences: Sequence, data: bytes, parser: BunsetsuParser):
    """Every block of data scanned fast, into the lexicon ids that parser.encode gives the
    Python reader's sentences; that encoded corpus."""
    assert scan.end == len(data) and scan.n_blocks == len(sentences)
    assert scan.all_fast, np.flatnonzero(scan.block_fast == 0)[:5]
    corpus = parser.encode(sentences)
    for name in CORPUS_ARRAYS:
        assert np.array_equal(getattr(corpus, name), getattr(scan, name)), name
    return corpus


def assert_rewritten_as_written(scan, sentences: Sequence, write: Callable[..., str],
                                seed: int) -> tuple[np.ndarray, bytes]:
    """The scan rewritten with about half of its heads moved at random (seed), whole and in two
    parts, equals the Python writer's text (write(sentence, heads)); the heads and that text."""
    rng = np.random.default_rng(seed)
    heads = scan.old_heads.copy()
    changed = rng.random(len(heads)) < 0.5
    heads[changed] = rng.integers(-1, 40, int(changed.sum()))
    cp = scan.chunk_ptr
    expected = "".join(write(s, heads[cp[t]:cp[t + 1]].tolist())
                       for t, s in enumerate(sentences)).encode("utf-8")
    assert scan.rewrite(heads, 0, scan.n_blocks) == expected
    middle = scan.n_blocks // 2
    assert scan.rewrite(heads, 0, middle) + scan.rewrite(heads, middle, scan.n_blocks) == expected
    assert scan.rewritten_size(heads, 0, scan.n_blocks) == len(expected)
    return heads, expected
