"""Reading and writing CaboCha's lattice format (parser.formats.cabocha)."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuFormatError, BunsetsuSentence
from polyparse.parser.formats.cabocha import format_cabocha, knp_to_cabocha, read_cabocha
from polyparse.parser.formats.knp import read_knp
from tests.parser.formats.test_knp import assert_error_names_line

IPADIC = """\
* 0 2D 0/1 0.000000
太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
は\t助詞,係助詞,*,*,*,*,は,ハ,ワ
* 1 2D 0/1 1.234567
ポケモン\t名詞,一般,*,*,*,*,*\tB-ARTIFACT
を\t助詞,格助詞,一般,*,*,*,を,ヲ,ヲ
* 2 -1D 0/0 0.000000
見た\t動詞,自立,*,*,一段,連用タ接続,見る,ミ,ミ
EOS
"""

JUMAN = """\
# S-ID:1
* 0 1D
太郎\t名詞,人名,*,*,太郎,たろう
は\t助詞,副助詞,*,*,は,は
* 1 -1D
行った\t動詞,*,子音動詞カ行促音便形,タ形,行く,いった
、\t特殊,読点,*,*,"、,","、"
EOS
"""

MECAB = """\
太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
が\t助詞,格助詞,一般,*,*,*,が,ガ,ガ
来る\t動詞,自立,*,*,カ変・来ル,基本形,来る,クル,クル
EOS
"""


def read_text(text: str, **options) -> list[BunsetsuSentence]:
    return list(read_cabocha(io.StringIO(text), name="t.cabocha", **options))


def test_ipadic_features() -> None:
    (sentence,) = read_text(IPADIC)
    assert sentence.surface == ["太郎", "は", "ポケモン", "を", "見た"]
    assert sentence.pos1[0] == "名詞" and sentence.pos2[0] == "固有名詞"
    assert sentence.conj_type[4] == "一段" and sentence.conj_form[4] == "連用タ接続"
    assert sentence.base[4] == "見る" and sentence.reading[4] == "ミ"
    assert sentence.reading[2] == "*" and sentence.base[2] == "*"
    assert sentence.chunk_starts == [0, 2, 4] and sentence.heads == [2, 2, -1]
    assert sentence.dep_types == ["D", "D", "D"] and sentence.chunk_lines == [0, 3, 6]


def test_juman_features_and_quoted_fields() -> None:
    (sentence,) = read_text(JUMAN)
    assert sentence.sid == "1" and sentence.start_line == 1
    assert sentence.pos2 == ["人名", "副助詞", "*", "読点"]
    assert sentence.conj_type[2] == "子音動詞カ行促音便形" and sentence.base[2] == "行く"
    assert sentence.reading[2] == "いった"
    assert sentence.base[3] == "、," and sentence.reading[3] == "、"


def test_format_replaces_only_the_head_field() -> None:
    (sentence,) = read_text(IPADIC)
    assert format_cabocha(sentence, sentence.heads) == IPADIC
    lines = format_cabocha(sentence, [1, 2, -1]).split("\n")
    assert lines[0] == "* 0 1D 0/1 0.000000" and lines[3] == "* 1 2D 0/1 1.234567"
    lines = format_bunsetsu(sentence, [2, 2, -1], ["P", "D", "D"], fmt="cabocha").split("\n")
    assert lines[0] == "* 0 2P 0/1 0.000000"
    assert format_cabocha(sentence, [2, 2, -1]) == IPADIC


def test_mecab_output_gets_bunsetsu_lines() -> None:
    (sentence,) = read_text(MECAB)
    assert sentence.chunk_starts == [] and sentence.heads == []
    text = format_cabocha(sentence, [1, -1], chunk_starts=[0, 2])
    # CaboCha's -f1 bunsetsu lines: HEAD/FUNC (the last content morpheme, the last that is
    # not a symbol) and the score, which polyparse does not keep.
    assert text.split("\n")[0] == "* 0 1D 0/1 0.000000"
    assert text.split("\n")[3].startswith("* 1 -1D ")
    (again,) = read_text(text)
    assert again.chunk_starts == [0, 2] and again.heads == [1, -1]


def test_dispatcher_reads_both_formats(tmp_path: Path) -> None:
    path = tmp_path / "a.cabocha"
    path.write_text(IPADIC, encoding="utf-8")
    (sentence,) = read_bunsetsu(path, fmt="cabocha")
    assert sentence.heads == [2, 2, -1] and sentence.source == str(path)


BAD_INPUTS = {
    "broken bunsetsu line": (
        "* 0\n太郎\t名詞,人名,*,*,太郎,たろう\nEOS\n", 1, "broken bunsetsu line '* 0'"),
    "bare star": ("* 0 -1D\n太郎\t名詞,人名,*,*,太郎,たろう\n*\nEOS\n", 3, "broken bunsetsu line"),
    "id not an integer": ("* a -1D\n太郎\t名詞,人名,*,*,太郎,たろう\nEOS\n", 1,
                          "bunsetsu id 'a' is not an integer"),
    "id out of order": ("* 1 -1D\n太郎\t名詞,人名,*,*,太郎,たろう\nEOS\n", 1,
                        "bunsetsu id 1 out of order, expected 0"),
    "head not an integer": ("* 0 xD\n太郎\t名詞,人名,*,*,太郎,たろう\nEOS\n", 1,
                            "bunsetsu head 'xD' is not an integer followed by a label"),
    "head beyond the sentence": ("* 0 3D\n太郎\t名詞,人名,*,*,太郎,たろう\n* 1 -1D\n"
                                 + "は\t助詞,副助詞,*,*,は,は\nEOS\n", 1,
                                 "head 3 of bunsetsu 0 is outside the sentence"),
    "self-loop": ("* 0 0D\n太郎\t名詞,人名,*,*,太郎,たろう\n* 1 -1D\nは\t助詞,副助詞,*,*,は,は\nEOS\n", 1,
                  "bunsetsu 0 is its own head"),
    "no tab": ("* 0 -1D\n太郎 名詞,人名,*,*,太郎,たろう\nEOS\n", 2, "morpheme line without a tab"),
    "wrong feature count": ("* 0 -1D\n太郎\t名詞,人名,*,*,太郎\nEOS\n", 2, "5 features, expected 6"),
    "no features": ("* 0 -1D\n太郎\t\nEOS\n", 2, "no features, expected 6"),
    "no EOS": ("* 0 -1D\n太郎\t名詞,人名,*,*,太郎,たろう\n", 2, "end of file without EOS"),
}


@pytest.mark.parametrize("case", sorted(BAD_INPUTS))
def test_bad_input_names_file_and_line(case: str, tmp_path: Path) -> None:
    assert_error_names_line(tmp_path / "bad.cabocha", *BAD_INPUTS[case], read=read_cabocha)


def test_utf8_error_names_the_line(tmp_path: Path) -> None:
    path = tmp_path / "latin.cabocha"
    path.write_bytes(IPADIC.encode() + b"* 0 -1D\ncaf\xe9\t\xe9,x\nEOS\n")
    with pytest.raises(BunsetsuFormatError, match=rf"^{path}:11: not valid utf-8 text \(byte e9"):
        list(read_cabocha(path))


@pytest.mark.parametrize("corpus", ["kwdlc", "ja_wac"])
def test_knp_corpora_converted_to_cabocha(corpora: Path, corpus: str) -> None:
    files = sorted((corpora / corpus).glob("knp/*/*.knp"))
    if not files:
        pytest.skip(f"{corpora / corpus} holds no KNP files")
    fields = ("sid", "surface", "reading", "base", "pos1", "pos2", "conj_type", "conj_form",
              "chunk_starts", "heads", "dep_types")
    n = 0
    for path in files:
        sentences = list(read_knp(path, validate=False))
        text = "".join(knp_to_cabocha(sentence) for sentence in sentences)
        converted = list(read_cabocha(io.StringIO(text), validate=False, name=path.name))
        assert len(converted) == len(sentences), path
        for knp, cabocha in zip(sentences, converted):
            for field in fields:
                assert getattr(cabocha, field) == getattr(knp, field), (path, field)
        assert "".join(format_cabocha(s, s.heads) for s in converted) == text, path
        n += len(converted)
    assert n > 15000


# CaboCha as other tools and corpora write it: `#!` metadata lines, UniDic
# short-unit features (29 fields, empty ones for none) with long-unit columns after them, labels
# other than D, and morphemes whose surface is "#" or "*".
UNIDIC = (
    "#! DOC\t0\n"
    "#! DOCATTR\t<ID>0</ID>\n"
    "* 0 2F 0/0 -0.5\n"
    "#\t補助記号,一般,*,*,,,,#,#,,#,,記号,,,,,,,,,,,,,,,1,2\t#\t補助記号,一般,*,*,,,,#\tB\n"
    "* 1 2DX 0/1 -0.5\n"
    "太郎\t名詞,固有名詞,人名,名,,,タロウ,タロウ,太郎,タロー,太郎,タロー,固,,,,,,,,,,,,,,,3,4"
    "\t太郎\t名詞,固有名詞,人名,名,,,タロウ,タロウ\tB\n"
    "*\t補助記号,一般,*,*,,,,*,*,,*,,記号,,,,,,,,,,,,,,,5,6\t*\t補助記号,一般,*,*,,,,*\t\n"
    "* 2 -1Z 0/0 0.0\n"
    "見る\t動詞,一般,*,*,上一段-マ行,終止形-一般,ミル,見る,見る,ミル,見る,ミル,和,,,,,,,,,,,,,,,"
    "7,8\t見る\t動詞,一般,*,*,上一段-マ行,終止形-一般,ミル,見る\tB\n"
    "EOS\n"
)


def test_unidic_cabocha_of_other_tools() -> None:
    (sentence,) = read_text(UNIDIC)
    assert sentence.surface == ["#", "太郎", "*", "見る"]
    assert sentence.chunk_starts == [0, 1, 3] and sentence.heads == [2, 2, -1]
    assert sentence.dep_types == ["F", "DX", "Z"]
    assert sentence.pos1 == ["補助記号", "名詞", "補助記号", "動詞"]
    assert sentence.conj_type[3] == "上一段-マ行" and sentence.conj_form[3] == "終止形-一般"
    assert sentence.base[3] == "見る" and sentence.reading[1] == "タロウ"
    assert sentence.conj_type[1] == "*"
    written = format_cabocha(sentence, [2, 2, -1])
    assert [line for line in written.splitlines() if not line.startswith("* ")] == [
        line for line in UNIDIC.splitlines() if not line.startswith("* ")]


def test_ud_gsd_dev_parses_to_507_head_final_trees(corpora: Path, tmp_path: Path) -> None:
    """The CaboCha file of UD Japanese GSD's own team, parsed with a model trained on KNP data:
    every line but the bunsetsu lines kept, one head-final tree a sentence, scores printed."""
    import subprocess
    import sys

    gsd = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    if not gsd.is_file():
        pytest.skip("no ja_gsd_cabocha")
    polyparse = [str(Path(sys.executable).parent / "polyparse")]
    model = tmp_path / "kwdlc.model"
    kwdlc = corpora / "kwdlc"
    result = subprocess.run([*polyparse, "ja", "train", "--ids", str(kwdlc / "id" / "test.id"),
                             "--corpus", str(kwdlc / "knp"), "--model", str(model),
                             "--iterations", "2", "--quiet"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    out = tmp_path / "gsd.cabocha"
    result = subprocess.run([*polyparse, "ja", "parse", "--format", "cabocha", "--model",
                             str(model), str(gsd), "-o", str(out)], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    (warning,) = result.stderr.splitlines()
    assert "tagged with UniDic's parts of speech, but the model was trained on JUMAN's" in warning
    assert "(--model ja_unidic)" in warning
    given, parsed = gsd.read_text(encoding="utf-8"), out.read_text(encoding="utf-8")
    assert [line for line in parsed.splitlines() if not line.startswith("* ")] == [
        line for line in given.splitlines() if not line.startswith("* ")]
    sentences = list(read_cabocha(out))
    assert len(sentences) == 507
    for sentence in sentences:
        n = len(sentence.heads)
        assert sentence.heads[-1] == -1 and all(i < h for i, h in enumerate(sentence.heads[:-1]))
        assert n == len(sentence.chunk_starts)
    result = subprocess.run([*polyparse, "ja", "evaluate", "--format", "cabocha", str(gsd),
                             str(out), "--json"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert 0 < json.loads(result.stdout)["dependency_accuracy"] <= 100
