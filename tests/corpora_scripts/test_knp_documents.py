"""knp_documents.py: an id list's KNP documents as one file, never half written."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from polyparse.parser.formats.knp_documents import candidate_paths
from tests.child_processes import HANG_GUARD_SECONDS

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "corpora_scripts" / "knp_documents.py"

KWDLC_DOCUMENT = "# S-ID:w201106-0000060050-1\n* -1D\n+ -1D\n行う おこなう 行う 動詞 2 * 0 子音動詞ワ行 12 基本形 2\nEOS\n"
WAC_DOCUMENT = "# S-ID:wiki00010002-00-01\n* -1D\n+ -1D\n太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0\nEOS"


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=False,
                          cwd=cwd, capture_output=True, timeout=60)


@pytest.fixture()
def corpus(tmp_path: Path) -> Path:
    """A knp/ folder with one document in each corpus's layout."""
    knp = tmp_path / "knp"
    (knp / "w201106-00000").mkdir(parents=True)
    (knp / "w201106-00000" / "w201106-0000060050.knp").write_text(KWDLC_DOCUMENT, "utf-8")
    (knp / "wiki0001").mkdir()
    (knp / "wiki0001" / "wiki00010002.knp").write_text(WAC_DOCUMENT, "utf-8")
    return knp


def write_ids(path: Path, *ids: str) -> Path:
    path.write_text("".join(f"{i}\n" for i in ids), encoding="utf-8")
    return path


def test_candidate_paths_follow_both_layouts() -> None:
    corpus = Path("knp")
    assert candidate_paths(corpus, "w201106-0000060050") == [
        corpus / "w201106-00000" / "w201106-0000060050.knp",
        corpus / "w201106-" / "w201106-0000060050.knp"]
    assert candidate_paths(corpus, "wiki00010002") == [
        corpus / "wiki000" / "wiki00010002.knp", corpus / "wiki0001" / "wiki00010002.knp"]
    assert candidate_paths(corpus, "abc") == [corpus / "abc" / "abc.knp"]


def test_documents_are_concatenated_in_id_order(corpus: Path, tmp_path: Path) -> None:
    ids = write_ids(tmp_path / "ids.txt", "wiki00010002", "", "w201106-0000060050")
    out = tmp_path / "out.knp"
    result = run("--ids", ids, "--corpus", corpus, "-o", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout == result.stderr == b""
    assert out.read_text("utf-8") == WAC_DOCUMENT + "\n" + KWDLC_DOCUMENT
    stdout = run("--ids", ids, "--corpus", corpus, cwd=tmp_path)
    assert stdout.returncode == 0 and stdout.stdout == out.read_bytes()


def test_a_missing_document_is_one_line_and_writes_nothing(corpus: Path, tmp_path: Path) -> None:
    write_ids(tmp_path / "ids.txt", "w201106-0000060050", "w201106-0000099999")
    out = tmp_path / "out.knp"
    out.write_text("kept\n", encoding="utf-8")
    result = run("--ids", "ids.txt", "--corpus", corpus, "-o", out, cwd=tmp_path)
    assert result.returncode == 2
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "knp_documents.py: ids.txt:2: no document w201106-0000099999 (tried ")
    assert out.read_text("utf-8") == "kept\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ids.txt", "knp", "out.knp"]


@pytest.mark.parametrize("lines, message", [
    (["../secret"], "ids.txt:1: '../secret' is not a document id"),
    (["wiki00010002", "a b"], "ids.txt:2: 'a b' is not a document id"),
])
def test_a_bad_id_is_one_line(corpus: Path, tmp_path: Path, lines: list[str],
                              message: str) -> None:
    write_ids(tmp_path / "ids.txt", *lines)
    result = run("--ids", "ids.txt", "--corpus", corpus, cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == b""
    assert result.stderr.decode() == f"knp_documents.py: {message}\n"


def test_missing_inputs_are_one_line(corpus: Path, tmp_path: Path) -> None:
    result = run("--ids", "none.txt", "--corpus", corpus, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode() == "knp_documents.py: none.txt: No such file or directory\n"
    ids = write_ids(tmp_path / "ids.txt", "wiki00010002")
    result = run("--ids", ids, "--corpus", tmp_path / "nothere", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().count("\n") == 1 and "no such corpus folder" in \
        result.stderr.decode()
    result = run("--ids", ids, "--corpus", corpus, "-o", tmp_path / "no" / "out", cwd=tmp_path)
    assert result.returncode == 2 and "no such folder" in result.stderr.decode()


def open_once_read(fifo: Path, reader: subprocess.Popen) -> int:
    """The write end of fifo, opened once reader has opened it to read (opening a FIFO waits
    for the other end; the join's timeout is only a hang guard)."""
    opened: list[int] = []
    opener = threading.Thread(target=lambda: opened.append(os.open(fifo, os.O_WRONLY)))
    opener.start()
    opener.join(timeout=HANG_GUARD_SECONDS)
    if not opened:
        os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))  # lets the opener return
        opener.join()
        os.close(opened[0])
        raise AssertionError(f"{fifo} was never opened: {reader.communicate(timeout=60)}")
    return opened[0]


def test_a_terminated_run_leaves_the_output_as_it_was(corpus: Path, tmp_path: Path) -> None:
    """The second document is a FIFO: once the script has opened it, the first document sits
    in the temporary file and the script waits for the FIFO's bytes. SIGTERM comes then, and
    only after it is the FIFO closed: whether the signal interrupts the read or lands just
    before it (CPython runs a handler between bytecodes, so a read already under way is only
    left when it returns), the read ends and the signal's handler runs before anything else."""
    fifo_folder = corpus / "wiki0002"
    fifo_folder.mkdir()
    fifo = fifo_folder / "wiki00020000.knp"
    os.mkfifo(fifo)
    ids = write_ids(tmp_path / "ids.txt", "w201106-0000060050", "wiki00020000")
    out = tmp_path / "out.knp"
    out.write_text("kept\n", encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(SCRIPT), "--ids", str(ids), "--corpus",
                                str(corpus), "-o", str(out)], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    writer = open_once_read(fifo, process)
    try:
        assert any(p.name.endswith(".tmp") for p in tmp_path.iterdir())
        process.send_signal(signal.SIGTERM)
    finally:
        os.close(writer)
    _, stderr = process.communicate(timeout=HANG_GUARD_SECONDS)
    assert process.returncode == 128 + signal.SIGTERM
    assert stderr == b""
    assert out.read_text("utf-8") == "kept\n"
    assert not any(p.name.endswith(".tmp") for p in tmp_path.iterdir())


def test_kwdlc_test_documents(corpora: Path, tmp_path: Path) -> None:
    kwdlc = corpora / "kwdlc"
    ids = (kwdlc / "id" / "test.id").read_text("utf-8").split()
    out = tmp_path / "test.knp"
    result = run("--ids", kwdlc / "id" / "test.id", "--corpus", kwdlc / "knp", "-o", out,
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = b"".join((kwdlc / "knp" / i[:-5] / f"{i}.knp").read_bytes() for i in ids)
    data = out.read_bytes()
    assert data == expected
    assert len(ids) == 700
    assert data.count(b"\n# S-ID:") + data.startswith(b"# S-ID:") == 2195
