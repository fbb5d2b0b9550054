"""The KNP fast path (parser.formats.knp_scan) against the Python reader and writer: lexicon ids
equal BunsetsuParser.encode(read_knp(...)), the rewritten bytes equal format_knp, and unusual
blocks are left to the Python reader."""
from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.formats.knp import format_knp, read_knp
from polyparse.parser.formats.knp_scan import KnpLexicon, lexicon_hash, scan_knp, utf8_valid
from polyparse.parser.models.bundled import bundled_japanese_model
from tests.parser.formats.scan_equivalence import (
    assert_rewritten_as_written,
    assert_scanned_as_read,
    parser_with,
)
from tests.parser.formats.test_knp import CORPORA, SMALL, corpus_files

PLAIN = """\
# S-ID:x-1
* 1D
+ 1D
太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0
* -1D
+ -1D
来た きた 来る 動詞 2 * 0 カ変動詞 14 タ形 10
EOS
"""


def assert_equivalent(data: bytes, parser: BunsetsuParser, seed: int = 0) -> None:
    """Every block scanned fast; ids and rewritten bytes as the Python path gives them."""
    scan = scan_knp(KnpLexicon(parser.lexicon.strings), data)
    sentences = list(read_knp(io.BytesIO(data), validate=False))
    corpus = assert_scanned_as_read(scan, sentences, data, parser)
    heads, expected = assert_rewritten_as_written(scan, sentences, format_knp, seed)
    middle = scan.n_blocks // 2
    target = bytearray(b"=" * (len(expected) + 5))
    end = scan.rewrite_into(heads, 0, middle, target, 2)
    assert scan.rewrite_into(heads, middle, scan.n_blocks, target, end) == len(expected) + 2
    assert target == b"==" + expected + b"==="
    with pytest.raises(ValueError):
        scan.rewrite_into(heads, 0, scan.n_blocks, target, 6)
    n_unknown = sum(scan.unknown_pos1().values())
    assert n_unknown == int((corpus.pos1 == 2).sum())


def test_small_file_equals_the_python_path() -> None:
    data = (SMALL + PLAIN).encode()
    assert_equivalent(data, parser_with(["太郎", "名詞", "人名", "*", "は"]))
    assert_equivalent(data, parser_with([]))


def test_unknown_pos1_counted_in_order() -> None:
    scan = scan_knp(KnpLexicon(["名詞"]), (SMALL + PLAIN).encode())
    assert scan.unknown_pos1() == {"助詞": 2, "動詞": 2, "感動詞": 1}


def test_reserved_strings_keep_their_ids() -> None:
    line = "<none> <none> <none> <unknown> 1 <root> 2 * 0 * 0\n"
    scan = scan_knp(KnpLexicon(parser_with([]).lexicon.strings), f"* -1D\n{line}EOS\n".encode())
    assert scan.surface.tolist() == [0] and scan.pos1.tolist() == [2]
    assert scan.pos2.tolist() == [1]


def test_incomplete_block_is_left_for_the_next_buffer() -> None:
    data = PLAIN.encode() + b"# S-ID:x-2\n* -1D\n"
    scan = scan_knp(KnpLexicon([]), data)
    assert scan.n_blocks == 1 and scan.end == len(PLAIN.encode())
    assert scan.n_lines == PLAIN.count("\n") and scan.n_fast == 1
    assert len(scan.chunk_bounds) == 3


@pytest.mark.parametrize("block", [
    "* -1D\n\\ \\ \\ 特殊 1 空白 6 * 0 * 0\nEOS\n",          # JUMAN's escaped space
    "* -1D\na\\ b a a 名詞 6 人名 5 * 0 * 0\nEOS\n",         # escaped space inside a field
    "* -1D\na a a 名詞 6 人名 5 * 0 * 0 \\ rest\nEOS\n",     # ... or in the rest of the line
    "* -1D\na a a 名詞 6 人名 5 * 0 * 0\n@ b b b 名詞 6 人名 5 * 0 * 0\nEOS\n",  # homograph
    "\n* -1D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",           # blank line before the block
    "* -1D\r\na a a 名詞 6 人名 5 * 0 * 0\r\nEOS\r\n",       # \r\n
    "* -1D\na a a 名詞 6 人名 5 * 0\nEOS\n",                 # 9 fields
    "* -1D\na a a 名詞 6 人名 x * 0 * 0\nEOS\n",             # an id that is not digits
    "* -1D\na  a 名詞 6 人名 5 * 0 * 0\nEOS\n",              # an empty field
    "* -1X\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",             # unknown type
    "* 1\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",               # no type
    "* 1D<x>\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",           # no space after the type
    "*  1D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",
    "* 1234567890D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",     # a head too long for int32
    "a a a 名詞 6 人名 5 * 0 * 0\nEOS\n",                    # no bunsetsu lines
    "a a a 名詞 6 人名 5 * 0 * 0\n* -1D\nb b b 名詞 6 人名 5 * 0 * 0\nEOS\n",  # morpheme first
    "* 1D\n* -1D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",       # an empty bunsetsu
    "* -1D\nEOS\n",                                          # no morphemes
    "* -1D\n+ D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",        # + line without a head
    "* -1D\n# late comment\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",
    "# a a 名詞 6 人名 5 * 0 * 0\n* -1D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",  # '#' morpheme
    "\ufeff* -1D\na a a 名詞 6 人名 5 * 0 * 0\nEOS\n",       # byte order mark
])
def test_unusual_blocks_are_slow(block: str) -> None:
    data = PLAIN.encode() + block.encode() + PLAIN.encode()
    scan = scan_knp(KnpLexicon(["名詞"]), data)
    assert scan.block_fast.tolist() == [1, 0, 1]
    assert scan.block_fast_index.tolist() == [0, -1, 1]
    assert scan.block_line.tolist() == [0, PLAIN.count("\n"),
                                        PLAIN.count("\n") + block.count("\n")]
    assert scan.n_fast == 2 and len(scan.surface) == 4
    assert np.array_equal(scan.chunk_bounds, [0, 1, 2, 0, 1, 2])
    with pytest.raises(ValueError):
        scan.rewrite(scan.old_heads, 0, 2)
    assert scan.rewrite(scan.old_heads, 2, 3) == PLAIN.encode()


@pytest.mark.parametrize("offset", range(20))
def test_backslashes_at_every_offset(offset: int) -> None:
    """The fields are split eight bytes at a time: an escaped space makes a block slow and a
    lone backslash is a plain byte, wherever they fall in a line."""
    prefix = "名" * (offset // 3) + "x" * (offset % 3)
    lone = f"* -1D\n{prefix}\\b r b 名詞 6 人名 5 * 0 * 0 {prefix}\\z\nEOS\n"
    assert_equivalent(lone.encode(), parser_with(["名詞", f"{prefix}\\b"]))
    for line in (f"{prefix}\\ b r b 名詞 6 人名 5 * 0 * 0\n",
                 f"a r b 名詞 6 人名 5 * 0 * 0 {prefix}\\ z\n",
                 f"a r {prefix}\\ 名詞 6 人名 5 * 0 * 0\n"):
        scan = scan_knp(KnpLexicon([]), f"* -1D\n{line}EOS\n".encode())
        assert scan.block_fast.tolist() == [0], line


def test_long_comment_without_id_fields_is_fast() -> None:
    comment = "# S-ID:1 " + " ".join(f"a{k}:b" for k in range(20)) + "\n"
    scan = scan_knp(KnpLexicon([]), (comment + PLAIN).encode())
    assert scan.all_fast


def test_utf8_check() -> None:
    assert scan_knp(KnpLexicon([]), PLAIN.encode()).valid_utf8
    for bad in (b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xe3\x81"):
        data = PLAIN.encode().replace("太郎".encode(), bad)
        assert not scan_knp(KnpLexicon([]), data).valid_utf8, bad


UTF8_PIECES = [
    b"a", b"abcdefg", b"0123456789abcdef", b"\x7f", "\u0080".encode(), "\u07ff".encode(),
    "\u0800".encode(), "\u0fff".encode(), "\u1000".encode(), "あ".encode(), "漢".encode(),
    "\ud7ff".encode(), "\ue000".encode(), "\uffff".encode(), "\U00010000".encode(),
    "\U0010ffff".encode(), "😀".encode(),
]
UTF8_BAD = [
    b"\x80", b"\xbf", b"\xc0\x80", b"\xc1\xbf", b"\xc2", b"\xe3\x81", b"\xe3", b"\xe0\x80\x80",
    b"\xe0\x9f\xbf", b"\xed\xa0\x80", b"\xed\xbf\xbf", b"\xef\xbf", b"\xe3\x41\x81",
    b"\xe3\x81\x41", b"\xf0\x80\x80\x80", b"\xf0\x8f\xbf\xbf", b"\xf4\x90\x80\x80",
    b"\xf5\x80\x80\x80", b"\xf8", b"\xff", b"\xf0\x9f\x98",
]


def python_decodes(data: bytes) -> bool:
    """Whether Python's decoder takes data as UTF-8."""
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def test_utf8_check_equals_the_python_decoder() -> None:
    """Random mixes of ASCII runs (every alignment of the eight-byte steps), valid sequences
    at the edges of each length and a few bad ones, checked as the end of a buffer and in
    its middle."""
    rng = np.random.default_rng(3)
    for trial in range(3000):
        pieces = [UTF8_PIECES[k] for k in rng.integers(0, len(UTF8_PIECES), rng.integers(0, 12))]
        if trial % 2:
            pieces.insert(int(rng.integers(0, len(pieces) + 1)),
                          UTF8_BAD[int(rng.integers(0, len(UTF8_BAD)))])
        text = b"".join(pieces)
        for data in (text + b"\nEOS\n", b"EOS\n" + text + b"\nEOS\n" + b"a" * 9):
            assert scan_knp(KnpLexicon([]), data).valid_utf8 == python_decodes(data), data


@pytest.mark.parametrize("seed", range(4))
def test_sixteen_byte_utf8_check_equals_the_python_decoder(seed: int) -> None:
    """The check sixteen bytes at a time (and where it leaves off to the byte-by-byte check)
    against Python's decoder and against the byte-by-byte check alone: runs of valid
    sequences long enough to cross many blocks, a bad one anywhere, at every offset of a
    block, and sequences cut by the end of the data."""
    rng = np.random.default_rng(seed)
    for trial in range(2500):
        pieces = [UTF8_PIECES[k] for k in rng.integers(0, len(UTF8_PIECES), rng.integers(0, 40))]
        if trial % 2:
            pieces.insert(int(rng.integers(0, len(pieces) + 1)),
                          UTF8_BAD[int(rng.integers(0, len(UTF8_BAD)))])
        data = b"x" * int(rng.integers(0, 16)) + b"".join(pieces)
        assert utf8_valid(data) == python_decodes(data), data


def test_utf8_check_of_every_byte_pair_across_a_block_edge() -> None:
    """Every byte 80-FF followed by every byte, and the leads with bounded second bytes (E0,
    ED, F0, F4 and their neighbours) followed by any two, where a sixteen-byte block ends
    between them (and not): as Python's decoder takes them."""
    cases = [bytes([a, b]) for a in range(0x80, 0x100) for b in range(0x100)]
    cases += [bytes([a, b, c, 0x80]) for a in (0xE0, 0xE1, 0xED, 0xEE, 0xF0, 0xF1, 0xF4, 0xF5)
              for b in range(0x70, 0xD0) for c in (0x41, 0x80, 0x9F, 0xA0, 0xBF, 0xC0)]
    for case in cases:
        for pad in (13, 15):
            data = b"x" * pad + case + "あ".encode() * 6
            assert utf8_valid(data) == python_decodes(data), data


# -- the lexicon's hash table against a dict --------------------------------------------------

ALPHABET = "abcxyz019 *-_" + "あいうえおがぎ" + "アイウエオー" + "日本語名詞動詞助詞" + "\U0001F600é"


def dict_ids(strings: list[str]) -> dict[bytes, int]:
    """What KnpLexicon gives, by a dict: UTF-8 bytes -> position (the last of equal strings);
    strings that have no UTF-8 form are left out."""
    ids = {}
    for index, text in enumerate(strings):
        try:
            ids[text.encode("utf-8")] = index
        except UnicodeEncodeError:
            continue
    return ids


def assert_lexicon_like_dict(strings: list[str], probes: list[bytes]) -> None:
    lexicon = KnpLexicon(strings)
    expected = dict_ids(strings)
    assert len(lexicon) == len(expected)
    capacity = lexicon.capacity
    assert capacity & (capacity - 1) == 0 and capacity >= 2 * len(expected)
    for key in [*expected, *probes]:
        assert lexicon.get(key) == expected.get(key, 2), key


def random_strings(rng: np.random.Generator, n: int, longest: int = 40) -> list[str]:
    return ["".join(rng.choice(list(ALPHABET), int(rng.integers(0, longest + 1))))
            for _ in range(n)]


def test_lexicon_equals_a_dict_on_random_strings() -> None:
    rng = np.random.default_rng(7)
    strings = random_strings(rng, 3000)
    keys = [text.encode() for text in strings]
    probes = [text.encode() for text in random_strings(rng, 3000)]
    probes += [key[:-1] for key in keys if key] + [key + b"x" for key in keys]
    probes += [key[:8] for key in keys] + [bytes(reversed(key)) for key in keys]
    assert_lexicon_like_dict(strings, probes)


def test_lexicon_equals_a_dict_on_real_strings() -> None:
    path = bundled_japanese_model()
    if path is None:
        pytest.skip("this installation has no bundled Japanese model")
    strings = BunsetsuParser.load(str(path)).lexicon.strings
    keys = [text.encode() for text in strings]
    probes = [key[:-1] for key in keys] + [key + "の".encode() for key in keys[:5000]]
    assert_lexicon_like_dict(strings, probes)


def test_lexicon_empty_string_duplicates_and_surrogates() -> None:
    assert KnpLexicon([]).get(b"") == 2 and len(KnpLexicon([])) == 0
    assert_lexicon_like_dict([""], [b"", b"a", b"\0"])
    assert_lexicon_like_dict(["x", "a", "", "a", "\ud800", "b\udfff", "a"],
                             [b"", b"a", b"b", b"x", b"\xed\xa0\x80", b"ab"])


def test_lexicon_probe_chains() -> None:
    """Strings that all start at one slot (a chain as long as they are many), others that end
    there, and absent strings that walk the whole chain."""
    rng = np.random.default_rng(11)
    n_chained = 60
    capacity = KnpLexicon([str(k) for k in range(n_chained + 20)]).capacity
    chained, elsewhere, absent = [], [], []
    while len(chained) < n_chained or len(absent) < 200:
        text = "".join(rng.choice(list(ALPHABET), int(rng.integers(0, 12))))
        if text in chained or text in elsewhere or text in absent:
            continue
        first_slot = lexicon_hash(text.encode()) & (capacity - 1)
        if first_slot == 0 and len(chained) < n_chained:
            chained.append(text)
        elif first_slot == 0:
            absent.append(text)
        elif first_slot >= capacity - 20 and len(elsewhere) < 20:
            elsewhere.append(text)
    strings = chained + elsewhere
    assert KnpLexicon(strings).capacity == capacity
    assert_lexicon_like_dict(strings, [text.encode() for text in absent])
    assert_lexicon_like_dict(strings[::-1], [text.encode() for text in absent])


def test_lexicon_hash_spreads_similar_keys() -> None:
    keys = [f"{k}".encode() for k in range(20000)] + [("名詞" * k).encode() for k in range(1, 40)]
    hashes = {lexicon_hash(key) for key in keys}
    assert len(hashes) == len(set(keys))
    low = np.array([h & 0xFFFF for h in hashes])
    assert np.bincount(low, minlength=1 << 16).max() <= 8


# -- the corpora ---------------------------------------------------------------------------


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_every_corpus_sentence_equals_the_python_path(corpora: Path, corpus: str) -> None:
    files = corpus_files(corpora, corpus)
    # A lexicon from a tenth of the files, so that some strings are unknown.
    training = [s for path in files[::10] for s in read_knp(path, validate=False)]
    parser = BunsetsuParser()
    parser.encode(training, grow=True)
    for start in range(0, len(files), 200):
        data = b"".join(path.read_bytes() for path in files[start:start + 200])
        assert_equivalent(data, parser, seed=start)
