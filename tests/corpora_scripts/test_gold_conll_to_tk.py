"""gold_conll_to_tk.py: SVM-light-TK boundary instances of a gold_conll file, statistics, and
the SRL boundary dataset reproduced byte for byte from the corpus (its test split through the
script; its train split in-process, tests/parser/srl/test_srl_boundary_dataset.py)."""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from corpora_scripts.gold_conll_to_tk import subset_indices, subset_path
from tests.parser.formats.test_gold_conll import TOOL_BAD_INPUTS

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "corpora_scripts" / "gold_conll_to_tk.py"
SPLIT_SCRIPT = ROOT / "corpora_scripts" / "gold_conll_split.py"
# datasets/srl_boundary/README.md, "Re-running the generator reproduces the files byte for byte"
MD5 = {"train.tk": "9d247411", "dev.tk": "199774ed", "test.tk": "e0394332",
       "train.5k.tk": "ac00ad87", "train.20k.tk": "e32e99c9", "train.50k.tk": "1f32d375",
       "test.10k.tk": "552bcb28"}


def run(*args: str | Path, cwd: Path, script: Path = SCRIPT) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(script), *map(str, args)], check=False,
                          cwd=cwd, capture_output=True, text=True, timeout=300)


@pytest.fixture()
def good(data_dir: Path) -> Path:
    return data_dir / "gold_conll" / "good.gold_conll"


def test_subset_names_and_indices() -> None:
    assert subset_path(Path("d/train.tk"), 5000) == Path("d/train.5k.tk")
    assert subset_path(Path("test.tk"), 1234) == Path("test.1234.tk")
    chosen = subset_indices(100, 10, 1)
    assert chosen == sorted(chosen) and len(set(chosen)) == 10
    assert set(subset_indices(100, 5, 1)) < set(chosen)


def test_train_then_test_with_its_vocabulary(good: Path, tmp_path: Path) -> None:
    result = run(good, "-o", "train.tk", "--write-vocab", "features.vocab", "--subsets", "10",
                 "20", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert result.stdout.splitlines() == [
        "train.tk: 46 instances (17 +1, 29 -1), 5 predicates, avg tree 6.04 nodes / 2.33 "
        "words (max 14 nodes), argument spans matched by a node 9 / 10 (90.00 %)",
        "features: 85 in the vocabulary, 0 of the instances' 322 not in it (dropped)"]
    lines = (tmp_path / "train.tk").read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) == 46
    assert lines[0] == "+1 |BT| (S (NP-B (NNP Ann)) (VP (VBD-P gave))) |ET| " \
                       "1:1 2:1 3:1 4:1 5:1 6:1 7:1\n"
    vocab = (tmp_path / "features.vocab").read_text(encoding="utf-8").splitlines()
    assert len(vocab) == 85 and vocab[:2] == ["1\tpt=NP", "2\tlem=give"]
    for size in (10, 20):
        subset = (tmp_path / f"train.{size}.tk").read_text(encoding="utf-8")
        assert subset == "".join(lines[k] for k in subset_indices(46, size, 1))
    result = run(good, "-o", "again.tk", "--vocab", "features.vocab", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == {
        "instances": 46, "positives": 17, "negatives": 29, "predicates": 5,
        "avg_tree_nodes": 6.04, "avg_tree_words": 2.33, "max_tree_nodes": 14,
        "argument_spans": 10, "argument_spans_matched_by_a_node": 9, "vocabulary": 85,
        "features_dropped": 0}
    assert (tmp_path / "again.tk").read_bytes() == (tmp_path / "train.tk").read_bytes()


def test_features_outside_the_vocabulary_are_dropped(good: Path, tmp_path: Path) -> None:
    (tmp_path / "small.vocab").write_text("1\tlem=give\n2\tpos=after\n", encoding="utf-8")
    result = run(good, "-o", "out.tk", "--vocab", "small.vocab", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    lines = (tmp_path / "out.tk").read_text(encoding="utf-8").splitlines()
    assert lines[0].endswith("|ET| 1:1") and lines[2].endswith("|ET| 1:1 2:1")
    assert lines[-1] == "-1 |BT| (S (VP (VBD-P rose)) (.-B .)) |ET| 2:1"
    assert "features: 2 in the vocabulary" in result.stdout


@pytest.mark.parametrize("fixture, line, problem", TOOL_BAD_INPUTS)
def test_bad_input_is_one_line_and_writes_nothing(data_dir: Path, tmp_path: Path, fixture: str,
                                                  line: int, problem: str) -> None:
    source = data_dir / "gold_conll" / f"{fixture}.gold_conll"
    result = run(source, "-o", "out.tk", "--write-vocab", "features.vocab", "--subsets", "1",
                 cwd=tmp_path)
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr == f"gold_conll_to_tk.py: {source}:{line}: {problem}\n"
    assert list(tmp_path.iterdir()) == []


def test_bad_vocabulary_subsets_and_outputs(good: Path, tmp_path: Path) -> None:
    (tmp_path / "bad.vocab").write_text("1\tpt=NP\n1\tpt=NN\n", encoding="utf-8")
    result = run(good, "-o", "out.tk", "--vocab", "bad.vocab", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "gold_conll_to_tk.py: bad.vocab:2: id '1', expected 2 (ids count from 1 line by "
           "line)\n")
    result = run(good, "-o", "out.tk", "--write-vocab", "v", "--subsets", "47", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, f"gold_conll_to_tk.py: --subsets 47: {good} gives only 46 instances\n")
    result = run(good, "-o", "missing/out.tk", "--write-vocab", "v", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "gold_conll_to_tk.py: missing/out.tk: no such folder missing\n")
    result = run(good, "-o", "same", "--write-vocab", "same", cwd=tmp_path)
    assert (result.returncode, result.stderr) == (
        2, "gold_conll_to_tk.py: the output, subset and vocabulary files must differ\n")
    result = run(good, "-o", "out.tk", cwd=tmp_path)
    assert result.returncode == 2 and "--write-vocab" in result.stderr
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.vocab"]


def test_the_test_split_gives_the_dataset_byte_for_byte(corpora: Path, srl_boundary: Path,
                                                       tmp_path: Path) -> None:
    """gold_conll_split.py, then this script on its test split with the dataset's
    features.vocab and `--subsets 10000`: test.tk and test.10k.tk byte for byte, and the
    summary line. The train split (413,485 instances, the vocabulary built on it) is checked
    byte for byte in-process by tests/parser/srl/test_srl_boundary_dataset.py, through the
    functions this script calls."""
    source = corpora / "propbank_wsj_sample" / "wsj_0001-0199.words.gold_conll"
    if not source.is_file():
        pytest.skip(f"{source} not found")
    result = run("--input", source, "--output-dir", "split", cwd=tmp_path, script=SPLIT_SCRIPT)
    assert result.returncode == 0, result.stderr
    result = run("split/test.gold_conll", "-o", "test.tk", "--vocab",
                 srl_boundary / "features.vocab", "--subsets", "10000", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[0] == (
        "test.tk: 34,350 instances (1,980 +1, 32,370 -1), 794 predicates, avg tree 11.91 "
        "nodes / 3.62 words (max 75 nodes), argument spans matched by a node 1,563 / 1,583 "
        "(98.74 %)")
    for name in ("test.tk", "test.10k.tk"):
        assert hashlib.md5((tmp_path / name).read_bytes()).hexdigest().startswith(MD5[name])
        if (srl_boundary / name).is_file():
            assert (tmp_path / name).read_bytes() == (srl_boundary / name).read_bytes(), name


def test_the_dataset_subsets_are_the_scripts_subsets(srl_boundary: Path) -> None:
    """train.5k/20k/50k.tk and test.10k.tk are the lines subset_indices picks (seed 1, the
    script's default) from train.tk and test.tk: with the test above and the small-file test
    of --subsets, the script's subsets of the corpus are the dataset's."""
    for full, sizes in (("train.tk", (5000, 20000, 50000)), ("test.tk", (10000,))):
        if not (srl_boundary / full).is_file():
            pytest.skip(f"{srl_boundary / full} not found")
        lines = (srl_boundary / full).read_bytes().splitlines(keepends=True)
        for size in sizes:
            subset = subset_path(srl_boundary / full, size)
            picked = b"".join(lines[k] for k in subset_indices(len(lines), size, 1))
            assert picked == subset.read_bytes(), subset.name
            assert hashlib.md5(picked).hexdigest().startswith(MD5[subset.name])
