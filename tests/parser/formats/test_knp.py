"""Reading and writing KNP files (parser.formats.knp) and the bunsetsu checks."""
from __future__ import annotations

import io
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from polyparse.parser.formats.bunsetsu import BUNSETSU_FORMATS, format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import (
    BunsetsuFormatError,
    BunsetsuSentence,
    malformed,
    validate,
)
from polyparse.parser.formats.knp import _read_careful, format_knp, read_knp

SMALL = """\
# S-ID:w201106-0000010001-1 KNP:3.1
* 2D
+ 3D
太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0
は は は 助詞 9 副助詞 2 * 0 * 0
* 2P <並列>
+ 2D
京都 きょうと 京都 名詞 6 地名 4 * 0 * 0 NIL
+ 3D <NE:ORGANIZATION:京都大学>
大学 だいがく 大学 名詞 6 普通名詞 1 * 0 * 0 "代表表記:大学/だいがく カテゴリ:場所-施設"
に に に 助詞 9 格助詞 1 * 0 * 0
* -1D
+ -1D <rel type="ガ" target="太郎"/>
行った いった 行く 動詞 2 * 0 子音動詞カ行促音便形 3 タ形 10
EOS
# S-ID:w201106-0000010001-2
* -1D
+ -1D
はい はい はい 感動詞 12 * 0 * 0 * 0
EOS
"""

MORPHEMES_ONLY = """\
# S-ID:juman-1
太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0
は は は 助詞 9 副助詞 2 * 0 * 0
行った いった 行く 動詞 2 * 0 子音動詞カ行促音便形 3 タ形 10
EOS
"""


def read_text(text: str, **options) -> list[BunsetsuSentence]:
    return list(read_knp(io.StringIO(text), name="t.knp", **options))


def error_of(path: Path, read: Callable[..., Iterator[BunsetsuSentence]] = read_knp,
             **options) -> str:
    """The message, one line, of the BunsetsuFormatError that reading path raises."""
    with pytest.raises(BunsetsuFormatError) as caught:
        list(read(path, **options))
    message = str(caught.value)
    assert "\n" not in message
    return message


def assert_error_names_line(path: Path, text: str, line: int, problem: str,
                            read: Callable[..., Iterator[BunsetsuSentence]] = read_knp) -> None:
    """Reading `text` from path fails with the message `path:line: problem...`."""
    path.write_text(text, encoding="utf-8")
    message = error_of(path, read)
    assert message.startswith(f"{path}:{line}: {problem}"), message


# -- reading -------------------------------------------------------------------------------


def test_fields_of_a_small_file() -> None:
    first, second = read_text(SMALL)
    assert first.sid == "w201106-0000010001-1"
    assert first.surface == ["太郎", "は", "京都", "大学", "に", "行った"]
    assert first.reading[5] == "いった" and first.base[5] == "行く"
    assert first.pos1 == ["名詞", "助詞", "名詞", "名詞", "助詞", "動詞"]
    assert first.pos2[0] == "人名" and first.conj_type[5] == "子音動詞カ行促音便形"
    assert first.conj_form[5] == "タ形"
    assert first.chunk_starts == [0, 2, 5]
    assert first.heads == [2, 2, -1] and first.dep_types == ["D", "P", "D"]
    assert [first.lines[i] for i in first.chunk_lines] == ["* 2D", "* 2P <並列>", "* -1D"]
    assert first.lines[first.morpheme_lines[3]].startswith("大学 ")
    assert first.lines[-1] == "EOS" and first.start_line == 1 and first.source == "t.knp"
    assert second.start_line == 16 and second.heads == [-1] and len(second) == 1
    assert malformed(first) is None and malformed(second) is None


def test_sources_path_binary_text_and_stdin(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "small.knp"
    path.write_text(SMALL, encoding="utf-8")
    expected = [s.surface for s in read_text(SMALL)]
    assert [s.surface for s in read_knp(path)] == expected
    assert [s.surface for s in read_knp(str(path))] == expected
    assert [s.surface for s in read_knp(io.BytesIO(SMALL.encode()))] == expected
    crlf = io.BytesIO(SMALL.replace("\n", "\r\n").encode())
    assert [s.lines for s in read_knp(crlf)] == [s.lines for s in read_text(SMALL)]
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(SMALL.encode())))
    sentences = list(read_knp("-"))
    assert [s.surface for s in sentences] == expected and sentences[0].source == "<stdin>"


def test_morphemes_only_input_has_no_bunsetsu() -> None:
    (sentence,) = read_text(MORPHEMES_ONLY)
    assert sentence.chunk_starts == [] and sentence.heads == [] and sentence.chunk_lines == []
    assert sentence.surface == ["太郎", "は", "行った"] and malformed(sentence) is None


def test_unusual_spellings_are_read_line_by_line() -> None:
    text = """\
# S-ID:odd-1
* 1D
\\  \\  \\  特殊 1 空白 6 * 0 * 0
* * * 特殊 1 記号 5 * 0 * 0
+ + + 特殊 1 記号 5 * 0 * 0
# # # 特殊 1 記号 5 * 0 * 0
* -1D
+ -1D
行く いく 行く 動詞 2 * 0 子音動詞カ行促音便形 3 基本形 2
@ 行く ゆく 行く 動詞 2 * 0 子音動詞カ行 2 基本形 2
EOS
"""
    (sentence,) = read_text(text)
    assert sentence.surface == ["\\ ", "*", "+", "#", "行く"]
    assert sentence.pos2[:4] == ["空白", "記号", "記号", "記号"]
    assert sentence.chunk_starts == [0, 4] and sentence.heads == [1, -1]
    assert sentence.reading[4] == "いく" and sentence.morpheme_lines == [2, 3, 4, 5, 8]
    assert format_knp(sentence, sentence.heads) == text


def test_careful_reading_equals_the_plain_one() -> None:
    for sentence in read_text(SMALL):
        assert _read_careful(sentence.lines, sentence.start_line, sentence.source) == sentence


def test_blank_lines_between_sentences_are_skipped() -> None:
    text = "\n" + SMALL.replace("EOS\n#", "EOS\n\n \n#")
    first, second = read_text(text)
    assert first.start_line == 2 and second.start_line == 19 and second.lines[0].startswith("#")


# -- writing -------------------------------------------------------------------------------


def test_format_changes_only_bunsetsu_heads() -> None:
    first, _ = read_text(SMALL)
    assert format_knp(first, first.heads) == SMALL.split("# S-ID:w201106-0000010001-2")[0]
    changed = format_knp(first, [1, 2, -1]).split("\n")
    assert changed[1] == "* 1D" and changed[5] == "* 2P <並列>" and changed[11] == "* -1D"
    assert changed[2] == "+ 3D"
    typed = format_knp(first, [2, 2, -1], ["P", "D", "D"]).split("\n")
    assert typed[1] == "* 2P" and typed[5] == "* 2D <並列>"
    assert format_bunsetsu(first, [1, 2, -1], fmt="knp") == "\n".join(changed)


def test_format_inserts_bunsetsu_lines_into_morphemes_only_input() -> None:
    (sentence,) = read_text(MORPHEMES_ONLY)
    text = format_knp(sentence, [1, -1], chunk_starts=[0, 2])
    # Each bunsetsu is one basic phrase (`+` line), as rhoknp needs.
    assert text.split("\n")[:8] == ["# S-ID:juman-1", "* 1D", "+ 1D",
                                    "太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0",
                                    "は は は 助詞 9 副助詞 2 * 0 * 0", "* -1D", "+ -1D",
                                    "行った いった 行く 動詞 2 * 0 子音動詞カ行促音便形 3 タ形 10"]
    (again,) = read_text(text)
    assert again.chunk_starts == [0, 2] and again.heads == [1, -1] and again.dep_types == ["D", "D"]
    with pytest.raises(ValueError, match="give chunk_starts"):
        format_knp(sentence, [1, -1])
    with pytest.raises(ValueError, match="not increasing"):
        format_knp(sentence, [1, -1], chunk_starts=[0, 3])


def test_format_checks_lengths() -> None:
    first, _ = read_text(SMALL)
    with pytest.raises(ValueError, match="3 bunsetsu, got 2 heads"):
        format_knp(first, [2, -1])
    with pytest.raises(ValueError, match="chunk_starts must be None"):
        format_knp(first, first.heads, chunk_starts=[0, 1, 5])
    with pytest.raises(ValueError, match="unknown format"):
        read_bunsetsu("x", fmt="conllu")
    assert BUNSETSU_FORMATS == ("knp", "cabocha")


# -- bad input -----------------------------------------------------------------------------

GOOD_HEAD = "* 1D\n+ 1D\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\n"
LAST = "* -1D\n+ -1D\n行った いった 行く 動詞 2 * 0 子音動詞カ行促音便形 3 タ形 10\nEOS\n"
BAD_INPUTS = {
    "head beyond the sentence": (
        "# S-ID:1\n* 5D\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\n" + LAST,
        2, "head 5 of bunsetsu 0 is outside the sentence (2 bunsetsu)"),
    "self-loop": (
        GOOD_HEAD + "* 1D\nは は は 助詞 9 副助詞 2 * 0 * 0\n" + LAST,
        4, "bunsetsu 1 is its own head"),
    "head to the left": (
        GOOD_HEAD + "* 0D\nは は は 助詞 9 副助詞 2 * 0 * 0\n" + LAST,
        4, "head 0 of bunsetsu 1 is to its left"),
    "two roots": (
        "# S-ID:1\n" + GOOD_HEAD + "* -1D\nは は は 助詞 9 副助詞 2 * 0 * 0\n" + LAST,
        5, "several roots: bunsetsu 1, 2 have head -1"),
    "bunsetsu without morphemes": (
        GOOD_HEAD + "* 2D\n" + LAST, 4, "bunsetsu 1 has no morphemes"),
    "no EOS": (GOOD_HEAD + LAST + GOOD_HEAD, 10,
               "end of file without EOS (the sentence starting at line 8 is not closed)"),
    "bunsetsu line without head": (
        GOOD_HEAD + "* D <x>\nは は は 助詞 9 副助詞 2 * 0 * 0\n" + LAST, 4,
        "bunsetsu line without a head"),
    "bare star": (GOOD_HEAD + "*\n" + LAST, 4, "bunsetsu line without a head"),
    "non-integer head": (GOOD_HEAD + "* xD\n" + LAST, 4, "head 'x' of the bunsetsu line is not"),
    "no type": (GOOD_HEAD + "* 2\n" + LAST, 4, "bunsetsu line without a dependency type"),
    "too few fields": (
        GOOD_HEAD + "は は は 助詞 9\n" + LAST, 4, "morpheme line has 5 fields, expected at least 11"),
    "non-integer ids": (
        GOOD_HEAD + "は は は 助詞 x 副助詞 2 * 0 * 0\n" + LAST, 4, "morpheme line: the ids of pos1, pos2"),
    "morpheme before the first bunsetsu": (
        "# S-ID:1\nは は は 助詞 9 副助詞 2 * 0 * 0\n" + LAST, 2,
        "morpheme line before the first bunsetsu line"),
    "sentence of bunsetsu without morphemes": ("# S-ID:1\n* -1D\nEOS\n", 1,
                                               "sentence has bunsetsu lines but no morphemes"),
    "empty file": ("", 1, "empty file, no sentences"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_names_file_and_line(case: str, tmp_path: Path) -> None:
    assert_error_names_line(tmp_path / "bad.knp", *BAD_INPUTS[case])


def test_malformed_sentences_are_read_without_validation(tmp_path: Path) -> None:
    text, line, problem = BAD_INPUTS["two roots"]
    (sentence,) = read_text(text, validate=False)
    assert malformed(sentence) == f"t.knp:{line}: " + problem + " (only the last bunsetsu is the root)"
    with pytest.raises(BunsetsuFormatError, match="several roots"):
        validate(sentence)


def test_utf8_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.knp"
    path.write_bytes(SMALL.encode() + GOOD_HEAD.encode() + b"caf\xe9 x y z 6 a 1 * 0 * 0\n")
    message = error_of(path)
    assert message.startswith(f"{path}:24: not valid utf-8 text (byte e9 at byte column 4")


# -- the corpora ---------------------------------------------------------------------------

CORPORA = {"kwdlc": "knp/*/*.knp", "ja_wac": "knp/*/*.knp"}


def corpus_files(corpora: Path, corpus: str) -> list[Path]:
    files = sorted((corpora / corpus).glob(CORPORA[corpus]))
    if not files:
        pytest.skip(f"{corpora / corpus} holds no KNP files")
    return files


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_every_corpus_file_round_trips(corpora: Path, corpus: str) -> None:
    for path in corpus_files(corpora, corpus):
        sentences = list(read_knp(path, validate=False))
        text = "".join(format_knp(sentence, sentence.heads) for sentence in sentences)
        assert text.encode("utf-8") == path.read_bytes(), path


# Every how many-th file of a corpus rhoknp reads too (some 900 sentences of each).
RHOKNP_FILE_STEP = 16


@pytest.mark.parametrize("corpus", sorted(CORPORA))
def test_corpus_sentences_equal_rhoknp(corpora: Path, corpus: str) -> None:
    """Every sentence of every 16th file (spread over the whole corpus), read by both: the
    reader's own round trip above covers every file."""
    rhoknp = pytest.importorskip("rhoknp")
    n = 0
    for path in corpus_files(corpora, corpus)[::RHOKNP_FILE_STEP]:
        for sentence in read_knp(path, validate=False):
            oracle = rhoknp.Sentence.from_knp("\n".join(sentence.lines) + "\n", post_init=False)
            morphemes = oracle.morphemes
            where = f"{path}:{sentence.start_line}"
            assert sentence.surface == [m.text for m in morphemes], where
            assert sentence.reading == [m.reading for m in morphemes], where
            assert sentence.base == [m.lemma for m in morphemes], where
            assert sentence.pos1 == [m.pos for m in morphemes], where
            assert sentence.pos2 == [m.subpos for m in morphemes], where
            assert sentence.conj_type == [m.conjtype for m in morphemes], where
            assert sentence.conj_form == [m.conjform for m in morphemes], where
            phrases = oracle.phrases
            starts, position = [], 0
            for phrase in phrases:
                starts.append(position)
                position += len(phrase.morphemes)
            assert sentence.chunk_starts == starts, where
            assert sentence.heads == [p.parent_index for p in phrases], where
            assert sentence.dep_types == [p.dep_type.value for p in phrases], where
            assert sentence.sid == oracle.sid, where
            n += 1
    assert n > 800


def test_malformed_corpus_sentences_are_found(corpora: Path) -> None:
    found = {}
    for corpus in sorted(CORPORA):
        train = set((corpora / corpus / "id" / "train.id").read_text().split())
        problems = []
        for path in corpus_files(corpora, corpus):
            if path.stem not in train:
                continue
            for sentence in read_knp(path, validate=False):
                problem = malformed(sentence)
                if problem is not None:
                    problems.append((sentence.sid, problem.split(": ", 1)[1]))
        found[corpus] = problems
    assert [sid for sid, _ in found["kwdlc"]] == ["w201106-0001290480-1"]
    assert "is its own head" in found["kwdlc"][0][1]
    kinds = [problem for _, problem in found["ja_wac"]]
    assert sum("its own head" in kind or "several roots" in kind or "outside" in kind
               for kind in kinds) == 19
    # The other 11 have a head to the left: cycles such as 5 -> 6 -> 5 (wiki00011736-01-01).
    assert sum("to its left" in kind for kind in kinds) == 11 and len(kinds) == 30
