"""`polyparse ja` on the edges of its inputs, run as a user runs it: a sentence that cannot be read
(a byte that is not UTF-8, a stray tab, a line of the wrong shape) ends the run with one line
naming file and line after every sentence before it has come out of the pipe; --encoding-errors
replace reads such bytes as U+FFFD on every `ja` command; \\r, \\r\\n and \\n line ends give the
same output; a gold CaboCha file keeps no gold score or label where the parser moved a head;
MeCab's own output with unidic-lite is read."""
from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from polyparse.parser.formats.cabocha import read_cabocha
from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.cli.user_runs import POLYPARSE, one_line, polyparse
from tests.parser.formats.test_cabocha import IPADIC as CABOCHA_IPADIC
from tests.parser.formats.test_cabocha import MECAB
from tests.parser.formats.test_knp import SMALL

RAW = "太郎は本を読んだ。\n花子が京都の大学に行った。\n次郎は走る。\n"
# Each format's sentences, one block (or line) apiece, and the bundled model that reads them.
SENTENCES = {
    "knp": [block + "EOS\n" for block in SMALL.split("EOS\n")[:-1]] * 3,
    "cabocha": [CABOCHA_IPADIC] * 4,
    "mecab": [MECAB] * 4,
    "raw": RAW.splitlines(keepends=True),
}
MODELS = {"knp": "ja_wac", "cabocha": "ja_wac", "mecab": "ja_wac", "raw": "ja_unidic"}
# A line each format cannot read: a KNP morpheme line of seven fields, a stray tab in CaboCha
# and MeCab lines, a tab in raw text.
BROKEN = {
    "knp": lambda block: block.replace(" * 0 * 0\n", "\n", 1),
    "cabocha": lambda block: block.replace("\t", "\tx\t", 1),
    "mecab": lambda block: block.replace("\t", "\tx\t", 1),
    "raw": lambda line: line[:1] + "\t" + line[1:],
}


def needs(fmt: str) -> None:
    if fmt == "raw":
        pytest.importorskip("fugashi")
        pytest.importorskip("unidic_lite")


def options(fmt: str) -> list[str]:
    return ["ja", "parse", "--format", fmt, "--model", MODELS[fmt]]


def through_a_pipe(args: list[str], data: bytes) -> tuple[bytes, str, int]:
    """stdout, stderr and exit code of polyparse fed data through a pipe."""
    child = subprocess.Popen([POLYPARSE, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE)
    out, err = child.communicate(data, timeout=HANG_GUARD_SECONDS)
    return out, err.decode(), child.returncode


def parsed(fmt: str, sentences: list[str]) -> bytes:
    """What ja parse writes for these sentences alone."""
    result = subprocess.run([POLYPARSE, *options(fmt)], input="".join(sentences).encode(),
                            capture_output=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def with_bad_byte(sentence: str) -> bytes:
    """The sentence with a byte that is not UTF-8 after the first character of its last line
    of text (its last morpheme)."""
    data = sentence.encode()
    end = data.rfind(b"\nEOS\n")
    start = data.rfind(b"\n", 0, end) + 1 if end >= 0 else 0
    first = len(data[start:].decode()[:1].encode())
    return data[:start + first] + b"\xff" + data[start + first:]


@pytest.mark.parametrize("bad", [-1, 2])
@pytest.mark.parametrize("fmt", sorted(SENTENCES))
def test_sentences_before_a_bad_byte_come_out_of_the_pipe(fmt: str, bad: int) -> None:
    """One byte that is not UTF-8 in the last sentence (or in a middle one): every sentence
    before it is parsed and written; then one line names the byte's line; exit code 2."""
    needs(fmt)
    sentences = SENTENCES[fmt]
    k = bad % len(sentences)
    data = "".join(sentences[:k]).encode() + with_bad_byte(sentences[k]) + \
        "".join(sentences[k + 1:]).encode()
    out, err, code = through_a_pipe(options(fmt), data)
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    line = data.count(b"\n", 0, data.index(b"\xff")) + 1
    assert err.startswith(f"polyparse: <stdin>:{line}: not valid utf-8 text (byte ff"), err
    assert out == parsed(fmt, sentences[:k])


@pytest.mark.parametrize("fmt", sorted(SENTENCES))
def test_sentences_before_a_malformed_line_come_out(fmt: str, tmp_path: Path) -> None:
    needs(fmt)
    sentences = SENTENCES[fmt]
    k = len(sentences) - 2
    changed = BROKEN[fmt](sentences[k])
    assert changed != sentences[k]
    text = "".join(sentences[:k]) + changed + "".join(sentences[k + 1:])
    out, err, code = through_a_pipe(options(fmt), text.encode())
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    first_change = next(i for i, (a, b) in enumerate(zip(text.splitlines(),
                                                         "".join(sentences).splitlines()))
                        if a != b)
    assert err.startswith(f"polyparse: <stdin>:{first_change + 1}: "), err
    assert out == parsed(fmt, sentences[:k])
    # The same from a file: the file's name, and the sentences before on standard output.
    source = tmp_path / "in.txt"
    source.write_text(text, encoding="utf-8")
    result = subprocess.run([POLYPARSE, *options(fmt), str(source)], capture_output=True)
    assert result.returncode == 2
    assert result.stderr.decode().startswith(f"polyparse: {source}:{first_change + 1}: ")
    assert result.stdout == parsed(fmt, sentences[:k])


@pytest.mark.parametrize("fmt", sorted(SENTENCES))
def test_replace_reads_bad_bytes_as_u_fffd(fmt: str) -> None:
    needs(fmt)
    sentences = SENTENCES[fmt]
    data = b"".join(with_bad_byte(s) for s in sentences)
    out, err, code = through_a_pipe([*options(fmt), "--encoding-errors", "replace"], data)
    assert code == 0, err
    # One warning line for the input, naming the first bad byte's line.
    (warning,) = [line for line in err.splitlines() if "U+FFFD" in line]
    line = data.count(b"\n", 0, data.index(b"\xff")) + 1
    assert warning.startswith(f"polyparse: warning: <stdin>:{line}: not valid utf-8 text")
    text = out.decode()
    assert text.count("\ufffd") >= len(sentences) and text.count("EOS\n") == len(sentences)


def test_every_ja_command_takes_encoding_errors(tmp_path: Path) -> None:
    gold = tmp_path / "gold.knp"
    gold.write_bytes(parsed("knp", SENTENCES["knp"]).replace("郎".encode(), b"\xff"))
    for command in (["ja", "evaluate", str(gold), str(gold)], ["ja", "show", str(gold)],
                    ["ja", "train", "--train", str(gold), "--model", str(tmp_path / "m"),
                     "--iterations", "1", "--no-chunker"]):
        strict = polyparse(*command)
        one_line(strict, f"{gold}:4: not valid utf-8 text")
        replaced = polyparse(*command, "--encoding-errors", "replace")
        assert replaced.returncode == 0, replaced.stderr
        assert "read as U+FFFD" in replaced.stderr
    assert (tmp_path / "m").exists()
    assert "100.00" in polyparse("ja", "evaluate", str(gold), str(gold), "--encoding-errors",
                                 "replace").stdout


def test_replaced_bytes_in_an_encoding_without_u_fffd(tmp_path: Path) -> None:
    """EUC-JP has no U+FFFD: a byte read as one is written as "?"."""
    source = tmp_path / "in.knp"
    source.write_bytes(SMALL.encode("euc-jp").replace("郎".encode("euc-jp"), b"\x80", 1))
    result = subprocess.run([POLYPARSE, "ja", "parse", "--encoding", "euc-jp",
                             "--encoding-errors", "replace", "--model", "ja_wac", "--format",
                             "knp", str(source)], capture_output=True)
    assert result.returncode == 0, result.stderr
    assert "read as U+FFFD" in result.stderr.decode()
    assert result.stdout.decode("euc-jp").split("\n")[3].startswith("太? たろう 太郎 名詞")


@pytest.mark.parametrize("ends", ["\r", "\r\n", "\r\r\n"])
@pytest.mark.parametrize("fmt", sorted(SENTENCES))
def test_line_ends_give_the_same_output(fmt: str, ends: str) -> None:
    needs(fmt)
    text = "".join(SENTENCES[fmt])
    plain = parsed(fmt, [text])
    result = subprocess.run([POLYPARSE, *options(fmt)],
                            input=text.replace("\n", ends).encode(), capture_output=True)
    assert result.returncode == 0, result.stderr
    assert b"\r" not in result.stdout
    if fmt == "raw" and ends == "\r\r\n":
        # Each stray \r is an empty line of text: an empty sentence, a bare EOS.
        assert result.stdout.replace(b"EOS\nEOS\n", b"EOS\n") == plain
    else:
        assert result.stdout == plain


GOLD_CABOCHA = """\
* 0 3F 0/1 -0.868313
太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー
は\t助詞,係助詞,*,*,*,*,は,ハ,ワ
* 1 3Z 0/1 1.331973
本\t名詞,一般,*,*,*,*,本,ホン,ホン
を\t助詞,格助詞,一般,*,*,*,を,ヲ,ヲ
* 2 3D 0/0 0.645
読ん\t動詞,自立,*,*,五段・マ行,連用タ接続,読む,ヨン,ヨン
で\t助詞,接続助詞,*,*,*,*,で,デ,デ
* 3 -1D 0/1 0
いる\t動詞,非自立,*,*,一段,基本形,いる,イル,イル
。\t記号,句点,*,*,*,*,。,。,。
EOS
"""


def test_a_gold_cabocha_file_keeps_no_gold_score_where_a_head_moved() -> None:
    """Bunsetsu lines whose head the parser changed get its own label (D) and its score,
    which it keeps none of (0.000000); the others are written as they came."""
    gold = GOLD_CABOCHA
    result = polyparse("ja", "parse", "--format", "cabocha", "--model", "ja_wac",
                       input=gold)
    assert result.returncode == 0, result.stderr
    (before,) = read_cabocha(io.StringIO(gold))
    (after,) = read_cabocha(io.StringIO(result.stdout))
    moved = 0
    for number, (old, new) in enumerate(zip(before.chunk_lines, after.chunk_lines)):
        old_line, new_line = before.lines[old].split(" "), after.lines[new].split(" ")
        if before.heads[number] == after.heads[number]:
            assert new_line == old_line
        else:
            moved += 1
            assert new_line[2] == f"{after.heads[number]}D"
            assert new_line[3] == old_line[3] and new_line[4] == "0.000000"
    assert moved


def test_gold_ud_japanese_gsd_scores_stay_only_on_kept_heads(corpora: Path) -> None:
    path = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    result = polyparse("ja", "parse", "--format", "cabocha", "--model", "ja_unidic", str(path))
    assert result.returncode == 0, result.stderr
    gold = list(read_cabocha(str(path)))
    system = list(read_cabocha(io.StringIO(result.stdout)))
    kept = moved = 0
    for g, s in zip(gold, system, strict=True):
        for number, (old, new) in enumerate(zip(g.chunk_lines, s.chunk_lines)):
            if g.heads[number] == s.heads[number]:
                kept += 1
                assert s.lines[new] == g.lines[old]
            else:
                moved += 1
                fields = s.lines[new].split(" ")
                assert fields[2].endswith("D") and fields[4] == "0.000000"
    assert kept > moved > 0


def test_mecab_output_with_unidic_lite_is_read() -> None:
    """fugashi.Tagger().parse (MeCab with unidic-lite's dicrc, its tab-separated format) gives
    the parse that MeCab's comma-separated features of the same analysis give."""
    fugashi = pytest.importorskip("fugashi")
    unidic_lite = pytest.importorskip("unidic_lite")
    lines = [line for line in RAW.splitlines() if line]
    tabs = "".join(fugashi.Tagger().parse(line) + "\n" for line in lines)
    assert "\t名詞-" in tabs and "," not in tabs.split("\n")[0]
    features = fugashi.GenericTagger(f"-d {unidic_lite.DICDIR} -r /dev/null")
    commas = "".join(features.parse(line) + "\n" for line in lines)
    options = ["ja", "parse", "--format", "mecab", "--model", "ja_unidic",
               "--output-format", "knp"]
    from_tabs = polyparse(*options, input=tabs)
    assert from_tabs.returncode == 0 and from_tabs.stderr == "", from_tabs.stderr
    assert from_tabs.stdout == polyparse(*options, input=commas).stdout
    # Written as CaboCha, MeCab's own lines are kept, and read back the same.
    cabocha = polyparse("ja", "parse", "--format", "mecab", "--model", "ja_unidic",
                        input=tabs).stdout
    again = polyparse("ja", "parse", "--format", "cabocha", "--model", "ja_unidic",
                      input=cabocha)
    assert again.returncode == 0 and again.stdout == cabocha
