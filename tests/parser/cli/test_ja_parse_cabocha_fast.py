"""`polyparse ja parse` of CaboCha by the fast path (parser/formats/cabocha_scan.pyx) against the
Python path: identical output (blocks it leaves to Python among them), on UD Japanese GSD's file
too, and each sentence written as soon as it is fed."""
from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.parser.cli.user_runs import POLYPARSE, check_each_block_comes_back_as_soon_as_it_is_fed
from tests.parser.formats.test_cabocha_scan import SAMPLES

MODEL = ["--model", "ja_unidic"]


def ja_parse(*args: str, data: bytes) -> bytes:
    result = subprocess.run([POLYPARSE, "ja", "parse", "--format", "cabocha", *MODEL, *args],
                            input=data, capture_output=True)
    assert result.returncode == 0, result.stderr
    return result.stdout


def python_path_output(data: bytes) -> bytes:
    """The output of the Python path, as UTF-8: --encoding utf-16 is never fast."""
    text = data.decode("utf-8").encode("utf-16")
    return ja_parse("--encoding", "utf-16", data=text).decode("utf-16").encode("utf-8")


def test_fast_and_python_paths_give_identical_output() -> None:
    slow = "* 0 -1D\r\n太郎\t名詞,固有名詞,人名,名,*,*,太郎,タロウ,タロー\r\nEOS\r\n"
    text = "".join(SAMPLES.values()) * 20 + slow + "".join(SAMPLES.values()) * 20
    data = text.encode()
    fast = ja_parse(data=data)
    assert fast == python_path_output(data)
    assert fast.count(b"EOS\n") == text.count("EOS\r\n") + text.count("EOS\n")


def test_ud_japanese_gsd_output_identical(corpora: Path, tmp_path: Path) -> None:
    source = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    out = tmp_path / "out.cabocha"
    result = subprocess.run([POLYPARSE, "ja", "parse", "--format", "cabocha", *MODEL,
                             str(source), "-o", str(out)], capture_output=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == python_path_output(source.read_bytes())


def test_each_sentence_comes_back_as_soon_as_it_is_fed() -> None:
    """Each sentence's parse is read back while the input stays open: had the command waited
    for more input (or for the end of it), the read would hang."""
    blocks = [SAMPLES["ipadic with a named entity"], SAMPLES["from knp"].split("EOS\n")[0]
              + "EOS\n"] * 2
    check_each_block_comes_back_as_soon_as_it_is_fed(
        [POLYPARSE, "ja", "parse", "--format", "cabocha", *MODEL],
        [block.encode() for block in blocks], b"EOS\n")


@pytest.mark.parametrize("workers", ["2"])
def test_shards_write_the_same_bytes(workers: str, tmp_path: Path) -> None:
    data = ("".join(SAMPLES.values()) * 30).encode()
    source = tmp_path / "in.cabocha"
    source.write_bytes(data)
    out = tmp_path / "out.cabocha"
    result = subprocess.run([POLYPARSE, "ja", "parse", "--format", "cabocha", *MODEL,
                             "--workers", workers, str(source), "-o", str(out)],
                            capture_output=True)
    assert result.returncode == 0, result.stderr
    assert out.read_bytes() == ja_parse(data=data)


@pytest.mark.parametrize("model", ["ja_wac", "ja_unidic"])
def test_the_tag_warning_is_the_python_paths(model: str, tmp_path: Path) -> None:
    """The counts of the fast path (the scanner's dictionaries and unknown parts of speech)
    give the warning line the Python path's give."""
    text = SAMPLES["ipadic with a named entity"] * 30 + SAMPLES["from mecab unidic (aConType "
                                                               "quotes)"] * 10
    warnings = []
    for encoding in ("utf-8", "utf-16"):
        source = tmp_path / f"in.{encoding}"
        source.write_text(text, encoding=encoding)
        result = subprocess.run([POLYPARSE, "ja", "parse", "--format", "cabocha", "--model",
                                 model, "--encoding", encoding, str(source), "-o",
                                 str(tmp_path / "out")], capture_output=True)
        assert result.returncode == 0, result.stderr
        warnings.append(result.stderr.decode().replace(str(source), "IN"))
    assert warnings[0] == warnings[1] and "warning" in warnings[0]
