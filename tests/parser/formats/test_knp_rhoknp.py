"""Every way polyparse writes KNP, read by rhoknp (Kyoto University's KNP reader) as an oracle: the
same bunsetsu heads and morphemes, from the KNP, CaboCha, MeCab and raw-text inputs of the test
suite, through format_knp (heads changed, bunsetsu inserted into JUMAN's output), the fast path's
byte rewrite, the conversion from the other formats (half-width spaces written as Juman++ writes
them, `\\␣`) and `polyparse ja parse` itself (--output-format knp, --rechunk)."""
from __future__ import annotations

import io
import subprocess

import numpy as np
import pytest

from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.knp import format_knp, read_knp
from polyparse.parser.formats.knp_scan import KnpLexicon, scan_knp
from polyparse.parser.tokenize.japanese_text import read_raw_japanese
from tests.parser.cli.user_runs import POLYPARSE
from tests.parser.formats import test_cabocha, test_mecab_input
from tests.parser.formats.test_knp import MORPHEMES_ONLY, SMALL
from tests.parser.formats.test_knp_scan import PLAIN

rhoknp = pytest.importorskip("rhoknp")

# test_knp's unusual spellings as KNP writes them: a basic-phrase line in every bunsetsu (rhoknp
# needs one; the Kyoto Corpus's older files have none) and no JUMAN homograph (@) line (KNP
# folds them into features). rhoknp refuses input without them, and so what is written of it.
UNUSUAL = """\
# S-ID:odd-1
* 1D
+ 1D
\\  \\  \\  特殊 1 空白 6 * 0 * 0
* * * 特殊 1 記号 5 * 0 * 0
+ + + 特殊 1 記号 5 * 0 * 0
# # # 特殊 1 記号 5 * 0 * 0
* -1D
+ -1D
行く いく 行く 動詞 2 * 0 子音動詞カ行促音便形 3 基本形 2
EOS
"""
KNP_INPUTS = {"small": SMALL, "plain": PLAIN, "unusual": UNUSUAL}
CABOCHA_INPUTS = {"ipadic": test_cabocha.IPADIC, "juman": test_cabocha.JUMAN}
MECAB_INPUTS = {
    "ipadic": test_mecab_input.IPADIC, "unidic": test_mecab_input.UNIDIC,
    "jumandic": test_mecab_input.JUMANDIC, "cabocha's mecab": test_cabocha.MECAB,
    # MeCab-UniDic's own tab-separated output (unidic-lite's dicrc), a space and all.
    "unidic tabs": "Ad\tAd\tAd\tAd\t名詞-普通名詞-一般\t\t\t0\n \t\t\t \t空白\t\t\t\n"
                   "Planner\tPlanner\tPlanner\tPlanner\t名詞-普通名詞-一般\t\t\t0\nEOS\n",
}
RAW_INPUTS = ["太郎は花子が読んでいる本を次郎に渡した。", " Apple 社の　iPhone は  ",
              "Ad Planner で  調べた", " ", "ａ,b\"c\""]


def unescaped(field: str) -> str:
    """A surface as rhoknp gives it: Juman++'s escapes of a whole field undone."""
    return {"\\␣": " ", "\\t": "\t"}.get(field, field)


def assert_rhoknp_reads(text: str) -> None:
    """rhoknp reads every block of text with polyparse's heads and morphemes."""
    ours = list(read_knp(io.StringIO(text), validate=False))
    assert ours
    blocks = [block + "EOS\n" for block in text.split("EOS\n")[:-1]]
    assert len(blocks) == len(ours)
    for block, sentence in zip(blocks, ours):
        theirs = rhoknp.Sentence.from_knp(block)
        assert [phrase.parent_index for phrase in theirs.phrases] == sentence.heads
        assert [m.surf for m in theirs.morphemes] == [unescaped(s) for s in sentence.surface]
        assert [m.pos for m in theirs.morphemes] == sentence.pos1


def moved(heads: list[int]) -> list[int]:
    """Other heads for the same bunsetsu, still a head-final tree."""
    n = len(heads)
    return [n - 1 if k < n - 1 else -1 for k in range(n)]


@pytest.mark.parametrize("name", sorted(KNP_INPUTS))
def test_format_knp_and_the_fast_rewrite(name: str) -> None:
    text = KNP_INPUTS[name]
    assert_rhoknp_reads(text)
    sentences = list(read_knp(io.StringIO(text)))
    assert_rhoknp_reads("".join(format_knp(s, s.heads) for s in sentences))
    assert_rhoknp_reads("".join(format_knp(s, moved(s.heads)) for s in sentences))
    assert_rhoknp_reads("".join(format_knp(s, s.heads, ["P"] * (len(s.heads) - 1) + ["D"])
                                for s in sentences))
    scan = scan_knp(KnpLexicon([]), text.encode())
    if scan.all_fast:
        heads = np.concatenate([moved(s.heads) for s in sentences]).astype(np.int32)
        assert_rhoknp_reads(scan.rewrite(heads, 0, scan.n_blocks).decode())


def test_bunsetsu_inserted_into_juman_output() -> None:
    (sentence,) = read_knp(io.StringIO(MORPHEMES_ONLY))
    assert_rhoknp_reads(format_knp(sentence, [1, -1], chunk_starts=[0, 2]))
    assert_rhoknp_reads(format_knp(sentence, [1, 2, -1], chunk_starts=[0, 1, 2]))


def converted(sentences: list) -> str:
    """The sentences written as KNP, each morpheme a bunsetsu of its own when it has none."""
    out = []
    for s in sentences:
        if s.chunk_lines:
            out.append(format_bunsetsu(s, s.heads, fmt="knp"))
        else:
            n = len(s.surface)
            out.append(format_bunsetsu(s, [*range(1, n), -1], None, list(range(n)), "knp"))
    return "".join(out)


@pytest.mark.parametrize("name", sorted(CABOCHA_INPUTS))
def test_knp_from_cabocha(name: str) -> None:
    sentences = list(read_bunsetsu(io.StringIO(CABOCHA_INPUTS[name]), "cabocha"))
    assert_rhoknp_reads(converted(sentences))


@pytest.mark.parametrize("name", sorted(MECAB_INPUTS))
def test_knp_from_mecab(name: str) -> None:
    sentences = list(read_bunsetsu(io.StringIO(MECAB_INPUTS[name]), "mecab"))
    assert_rhoknp_reads(converted(sentences))


@pytest.mark.parametrize("text", RAW_INPUTS)
def test_knp_from_raw_text(text: str) -> None:
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    sentences = list(read_raw_japanese(io.StringIO(text + "\n")))
    written = converted(sentences)
    assert_rhoknp_reads(written)
    (theirs,) = rhoknp.Document.from_knp(written).sentences
    assert theirs.text.replace("\\␣", " ") == text


def ja_parse(fmt: str, data: str, *options: str) -> str:
    model = "ja_unidic" if fmt in ("raw", "mecab") else "ja_wac"
    result = subprocess.run([POLYPARSE, "ja", "parse", "--format", fmt, "--model", model,
                             "--output-format", "knp", *options], input=data.encode(),
                            capture_output=True)
    assert result.returncode == 0, result.stderr
    return result.stdout.decode()


def test_ja_parse_writes_knp_that_rhoknp_reads() -> None:
    for text in KNP_INPUTS.values():
        assert_rhoknp_reads(ja_parse("knp", text))
        assert_rhoknp_reads(ja_parse("knp", text, "--rechunk"))
    assert_rhoknp_reads(ja_parse("knp", MORPHEMES_ONLY))
    for text in CABOCHA_INPUTS.values():
        assert_rhoknp_reads(ja_parse("cabocha", text))
    for text in MECAB_INPUTS.values():
        assert_rhoknp_reads(ja_parse("mecab", text))


def test_ja_parse_of_raw_text_writes_knp_that_rhoknp_reads() -> None:
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    assert_rhoknp_reads(ja_parse("raw", "\n".join(RAW_INPUTS) + "\n"))


def test_ud_japanese_gsd_as_knp(corpora) -> None:
    """A real CaboCha file of another team (UniDic, its #! metadata lines) written as KNP."""
    path = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    assert_rhoknp_reads(ja_parse("cabocha", path.read_text(encoding="utf-8")))
