"""polyparse.parse_files with every kind of dependency parser gives the bytes `dep parse` gives:
the parser opened by the library (greedy or beam search) goes to the workers as it is, and the
workers run the stages one process runs."""
from __future__ import annotations

from pathlib import Path

import pytest

import polyparse
from polyparse.parser.cli.main import main
from tests.parser.dependency.synthetic import write_treebank


@pytest.fixture(scope="module")
def treebanks(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("parse-files")
    files = {"train": write_treebank(folder / "train.conllu", 150, seed=3),
             "a": write_treebank(folder / "a.conllu", 40, seed=5),
             "b": write_treebank(folder / "b.conllu", 30, seed=6)}
    for name, options in {"greedy": ["--classifier", "linear"],
                          "beam": ["--classifier", "structured-perceptron", "--epochs", "2",
                                   "--beam", "3"]}.items():
        files[name] = folder / f"{name}.model"
        assert main(["dep", "train", "--train", str(files["train"]), "--model",
                     str(files[name]), "--quiet", *options]) == 0
    return files


@pytest.mark.parametrize("kind", ["greedy", "beam"])
@pytest.mark.parametrize("workers", [None, 2])
def test_parse_files_gives_what_dep_parse_gives(treebanks: dict[str, Path], kind: str,
                                                workers: int | None, tmp_path: Path) -> None:
    expected = b""
    for name in ("a", "b"):
        out = tmp_path / f"{name}.conllu"
        assert main(["dep", "parse", "--model", str(treebanks[kind]), str(treebanks[name]),
                     "-o", str(out), "--quiet"]) == 0
        expected += out.read_bytes()
    parser = polyparse.load_parser(treebanks[kind])
    entries = polyparse.parse_files([treebanks["a"], treebanks["b"]], tmp_path / "parts",
                                    parser=parser, workers=workers, shard_size=2048)
    parts = sorted((tmp_path / "parts").glob("part-*"))
    assert len(entries) == len(parts) > 2
    assert b"".join(part.read_bytes() for part in parts) == expected
