"""`polyparse ja parse` of KNP by the fast path (parser/formats/knp_scan.pyx) against the Python
path: identical output, streaming sentence by sentence, and the Python reader's exact errors."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from polyparse.parser.formats.knp import read_knp
from tests.parser.cli.user_runs import check_each_block_comes_back_as_soon_as_it_is_fed
from tests.parser.formats.test_knp import SMALL

POLYPARSE = str(Path(sys.executable).parent / "polyparse")
ENV = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[3])}


def polyparse(*args: str, **options) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "polyparse.parser.cli.main", *args], capture_output=True,
                          env=ENV, **options)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("ja")
    train = folder / "train.knp"
    train.write_text(SMALL * 20)
    path = folder / "ja.model"
    result = polyparse("ja", "train", "--train", str(train), "--model", str(path),
                       "--classifier", "linear", "--no-chunker")
    assert result.returncode == 0, result.stderr
    return train, path


def python_path_output(path: Path, model: Path) -> bytes:
    """The output of the Python path, as UTF-8: --encoding utf-16 is never fast, so read a
    UTF-16 copy (standard output is UTF-16 too)."""
    copy = path.with_suffix(".utf16")
    copy.write_text(path.read_text(encoding="utf-8"), encoding="utf-16")
    result = polyparse("ja", "parse", "--model", str(model), "--encoding", "utf-16", str(copy))
    assert result.returncode == 0, result.stderr
    return result.stdout.decode("utf-16").encode("utf-8")


def test_fast_and_python_paths_give_identical_output(model, tmp_path: Path) -> None:
    _, path = model
    slow_block = "* -1D\n\\ \\ \\ 特殊 1 空白 6 * 0 * 0\nEOS\n"
    text = SMALL * 50 + slow_block + SMALL * 50
    source = tmp_path / "in.knp"
    source.write_text(text)
    fast = polyparse("ja", "parse", "--model", str(path), str(source))
    assert fast.returncode == 0, fast.stderr
    assert fast.stdout == python_path_output(source, path)
    assert len(list(read_knp(source))) == fast.stdout.count(b"EOS\n")


def test_corpus_output_identical(model, corpora: Path, tmp_path: Path) -> None:
    _, path = model
    files = sorted((corpora / "kwdlc").glob("knp/*/*.knp"))[:300]
    if not files:
        pytest.skip("no KWDLC files")
    source = tmp_path / "kwdlc.knp"
    source.write_bytes(b"".join(f.read_bytes() for f in files))
    fast = polyparse("ja", "parse", "--model", str(path), str(source), "-o",
                     str(tmp_path / "out.knp"))
    assert fast.returncode == 0, fast.stderr
    assert (tmp_path / "out.knp").read_bytes() == python_path_output(source, path)


@pytest.mark.parametrize("tail, message", [
    ("* 1X\nはい はい はい 感動詞 12 * 0 * 0 * 0\nEOS\n", "in.knp:{n}: "),
    ("* -1D\nはい はい はい 感動詞 12 * 0 * 0 * 0\n", "end of file without EOS"),
    ("* -1D\n\xff\nEOS\n", "in.knp:{m}: not valid utf-8 text"),
])
def test_errors_name_file_and_line(model, tmp_path: Path, tail: str, message: str) -> None:
    _, path = model
    head = SMALL * 3
    source = tmp_path / "in.knp"
    data = head.encode() + tail.encode("utf-8", "surrogateescape").replace(b"\xc3\xbf", b"\xff")
    source.write_bytes(data)
    result = polyparse("ja", "parse", "--model", str(path), str(source))
    assert result.returncode == 2
    line = result.stderr.decode().strip()
    n = head.count("\n") + 1
    assert message.format(n=n, m=n + 1) in line, line
    assert "Traceback" not in line


def test_heads_beyond_the_sentence_are_not_errors(model, tmp_path: Path) -> None:
    _, path = model
    source = tmp_path / "in.knp"
    source.write_text(SMALL.replace("* 2P", "* 7P"))
    result = polyparse("ja", "parse", "--model", str(path), str(source))
    assert result.returncode == 0, result.stderr


def test_each_sentence_comes_back_as_soon_as_it_is_fed(model) -> None:
    """Each sentence's parse is read back while the input stays open: had the command waited
    for more input (or for the end of it), the read would hang."""
    _, path = model
    blocks = [(block + "EOS\n").encode() for block in SMALL.split("EOS\n")[:2]] * 2
    check_each_block_comes_back_as_soon_as_it_is_fed(
        [sys.executable, "-m", "polyparse.parser.cli.main", "ja", "parse", "--model", str(path)],
        blocks, b"EOS\n", env=ENV)
