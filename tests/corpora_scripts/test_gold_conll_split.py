"""gold_conll_split.py: the train/dev/test documents of a WSJ gold_conll file, each a valid file."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from corpora_scripts.gold_conll_split import split_of
from polyparse.parser.formats.gold_conll import gold_conll_documents, read_gold_conll

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "corpora_scripts" / "gold_conll_split.py"
SPLITS = ("train", "dev", "test")


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=False,
                          cwd=cwd, capture_output=True, text=True, timeout=120)


def test_split_of_document_ids() -> None:
    assert split_of("ontonotes/nw/wsj/00/wsj_0001") == "train"
    assert split_of("ontonotes/nw/wsj/01/wsj_0139") == "train"
    assert split_of("wsj_0140") == "dev"
    assert split_of("ontonotes/nw/wsj/01/wsj_0169") == "dev"
    assert split_of("ontonotes/nw/wsj/01/wsj_0170") == "test"
    assert split_of("ontonotes/nw/wsj/01/wsj_0199") == "test"
    assert split_of("ontonotes/nw/wsj/02/wsj_0200") is None
    assert split_of("ontonotes/nw/wsj/00/wsj_0000") is None
    assert split_of("bc/cctv/00/cctv_0001") is None


def test_documents_go_whole_and_in_order_to_their_split(data_dir: Path, tmp_path: Path) -> None:
    source = data_dir / "gold_conll" / "good.gold_conll"
    result = run("--input", source, "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines() == [
        "train: 1 documents, 3 sentences, 4 predicates, 9 argument spans",
        "dev: 1 documents, 1 sentences, 0 predicates, 0 argument spans",
        "test: 1 documents, 1 sentences, 1 predicates, 1 argument spans",
    ]
    outputs = [tmp_path / "out" / f"{name}.gold_conll" for name in SPLITS]
    assert b"".join(path.read_bytes() for path in outputs) == source.read_bytes()
    ids = [[s.document_id[-8:] for s in read_gold_conll(path)] for path in outputs]
    assert ids == [["wsj_0003"] * 3, ["wsj_0150"], ["wsj_0180"]]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        f"{name}.gold_conll" for name in SPLITS)


def test_framed_documents_keep_their_begin_and_end_lines(data_dir: Path,
                                                         tmp_path: Path) -> None:
    source = data_dir / "gold_conll" / "documents.gold_conll"
    result = run("--input", source, "--output-dir", tmp_path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "train.gold_conll").read_bytes() == source.read_bytes()
    assert (tmp_path / "dev.gold_conll").read_bytes() == b""
    assert list(read_gold_conll(tmp_path / "dev.gold_conll")) == []


@pytest.mark.parametrize("fixture, line, problem", [
    ("outside_split", 4, "document ontonotes/nw/wsj/02/wsj_0200 is in none of the splits "
                         "(wsj_0001-0139, wsj_0140-0169, wsj_0170-0199)"),
    ("parse_open", 6, "the parse bits leave 1 bracket open at the end of the sentence"),
    ("not_utf8", 4, "not valid utf-8 text (byte ff at byte column 43: invalid start byte)"),
])
def test_bad_input_is_one_line_and_writes_nothing(data_dir: Path, tmp_path: Path, fixture: str,
                                                  line: int, problem: str) -> None:
    source = data_dir / "gold_conll" / f"{fixture}.gold_conll"
    result = run("--input", source, "--output-dir", "out", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"gold_conll_split.py: {source}:{line}: {problem}\n"
    assert not (tmp_path / "out").exists()


def test_bad_output_folders_are_refused_before_reading(data_dir: Path, tmp_path: Path) -> None:
    source = data_dir / "gold_conll" / "good.gold_conll"
    (tmp_path / "file").write_text("kept\n", encoding="utf-8")
    result = run("--input", source, "--output-dir", "file", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "gold_conll_split.py: file: exists and is not a folder\n")
    result = run("--input", source, "--output-dir", "missing/out", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "gold_conll_split.py: missing/out: no such folder missing\n")
    result = run("--input", "absent.gold_conll", "--output-dir", "out", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "gold_conll_split.py: absent.gold_conll: No such file or directory\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_corpus_split(corpora: Path, tmp_path: Path) -> None:
    """The split of datasets/srl_boundary/README.md: 8,800 / 813 / 794 predicates and
    18,491 / 1,720 / 1,583 argument spans."""
    source = corpora / "propbank_wsj_sample" / "wsj_0001-0199.words.gold_conll"
    if not source.is_file():
        pytest.skip(f"{source} not found")
    result = run("--input", source, "--output-dir", tmp_path, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "train: 114 documents, 2,452 sentences, 8,800 predicates, 18,491 argument spans",
        "dev: 13 documents, 234 sentences, 813 predicates, 1,720 argument spans",
        "test: 17 documents, 210 sentences, 794 predicates, 1,583 argument spans",
    ]
    outputs = [tmp_path / f"{name}.gold_conll" for name in SPLITS]
    assert b"".join(path.read_bytes() for path in outputs) == source.read_bytes()
    for name, path in zip(SPLITS, outputs):
        documents = list(gold_conll_documents(read_gold_conll(path)))
        assert {split_of(document[0].document_id) for document in documents} == {name}
        numbers = [int(document[0].document_id[-4:]) for document in documents]
        assert numbers == sorted(numbers)
