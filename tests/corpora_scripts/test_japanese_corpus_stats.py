"""japanese_corpus_stats.py: corpus_stats on hand-built sentences; the script end to end once
parser.formats.knp (the KNP reader) is there."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from corpora_scripts.japanese_corpus_stats import (
    PROBLEMS,
    corpus_stats,
    document_id,
    format_table,
    tree_problems,
)

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "corpora_scripts" / "japanese_corpus_stats.py"


def sentence(sid: str, heads: list[int], n_morphemes: int) -> SimpleNamespace:
    return SimpleNamespace(sid=sid, heads=heads, chunk_starts=list(range(len(heads))),
                           surface=["x"] * n_morphemes)


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), *map(str, args)], check=False,
                          cwd=cwd, capture_output=True, timeout=600)


@pytest.mark.parametrize("heads, problems", [
    ([2, 2, -1], []),
    ([-1], []),
    ([0, -1], ["self_loop"]),
    ([1, 0], ["no_root", "head_to_left"]),
    ([-1, -1], ["several_roots"]),
    ([5, -1], ["head_outside"]),
    ([-2, -1], ["head_outside"]),
    ([1, 1, -1], ["self_loop"]),
    ([2, 0, -1], ["head_to_left"]),
    ([], ["no_root"]),
])
def test_tree_problems(heads: list[int], problems: list[str]) -> None:
    assert tree_problems(heads) == problems


@pytest.mark.parametrize("sid, document", [
    ("w201106-0000060050-1", "w201106-0000060050"),
    ("S-ID:w201106-0000060050-1-02", "w201106-0000060050"),
    ("wiki00010002-00-01", "wiki00010002"),
    ("wiki00010002-01", "wiki00010002"),
    ("950101003-001", "950101003"),
    ("doc-3", "doc"),
    ("single", "single"),
])
def test_document_id(sid: str, document: str) -> None:
    assert document_id(sid) == document


def test_corpus_stats_counts_each_problem_once_per_sentence() -> None:
    sentences = [
        sentence("w201106-0000060050-1", [2, 2, -1], 7),
        sentence("w201106-0000060050-2", [-1], 2),
        sentence("wiki00010002-00-01", [0, 0, -1], 4),  # a self-loop and a head to the left
        sentence("wiki00010002-00-02", [1, 1, 9], 3),   # self-loop, outside, no root
        sentence("wiki00010002-01", [-1, -1], 2),
    ]
    stats = corpus_stats(iter(sentences))
    assert stats == {
        "documents": 2, "sentences": 5, "bunsetsu": 12, "morphemes": 18, "malformed_trees": 3,
        "malformed": {"self_loop": 2, "no_root": 1, "several_roots": 1, "head_outside": 1,
                      "head_to_left": 1},
        "examples": {"self_loop": "wiki00010002-00-01", "head_to_left": "wiki00010002-00-01",
                     "no_root": "wiki00010002-00-02", "head_outside": "wiki00010002-00-02",
                     "several_roots": "wiki00010002-01"},
    }
    table = format_table(stats)
    assert table.splitlines()[:5] == ["documents        2", "sentences        5",
                                      "bunsetsu         12", "morphemes        18",
                                      "malformed_trees  3"]
    assert "  self_loop      2  (first: wiki00010002-00-01)" in table.splitlines()


def test_an_empty_corpus() -> None:
    stats = corpus_stats([])
    assert stats["documents"] == stats["sentences"] == stats["malformed_trees"] == 0
    assert stats["malformed"] == dict.fromkeys(PROBLEMS, 0)
    assert format_table(stats).count("\n") == 5


def test_a_missing_document_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "knp").mkdir()
    (tmp_path / "ids.txt").write_text("w201106-0000060050\n", encoding="utf-8")
    result = run("--ids", "ids.txt", "--corpus", tmp_path / "knp", cwd=tmp_path)
    assert result.returncode == 2 and result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "japanese_corpus_stats.py: ids.txt:1: no document w201106-0000060050 (tried ")


@pytest.mark.parametrize("args", [[], ["a.knp", "--ids", "ids.txt", "--corpus", "knp"],
                                  ["--ids", "ids.txt"]])
def test_inputs_are_checked_before_reading(tmp_path: Path, args: list[str]) -> None:
    result = run(*args, cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr.decode().splitlines()[-1].startswith("japanese_corpus_stats.py: error: ")


KNP = """# S-ID:w201106-0000010001-1
* 2D
+ 3D
太郎 たろう 太郎 名詞 6 人名 5 * 0 * 0
は は は 助詞 9 副助詞 2 * 0 * 0
* 2D
+ 2D
京都 きょうと 京都 名詞 6 地名 4 * 0 * 0
+ 3D
大学 だいがく 大学 名詞 6 普通名詞 1 * 0 * 0
に に に 助詞 9 格助詞 1 * 0 * 0
* -1D
+ -1D
行った いった 行く 動詞 2 * 0 子音動詞カ行促音便形 3 タ形 10
EOS
# S-ID:w201106-0000010001-2
* 0D
+ 0D
はい はい はい 感動詞 12 * 0 * 0 * 0
EOS
"""


def test_the_script_on_a_knp_file(tmp_path: Path) -> None:
    pytest.importorskip("polyparse.parser.formats.knp")
    (tmp_path / "a.knp").write_text(KNP, encoding="utf-8")
    result = run("a.knp", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert {key: stats[key] for key in ("documents", "sentences", "bunsetsu", "morphemes",
                                         "malformed_trees")} == {
        "documents": 1, "sentences": 2, "bunsetsu": 4, "morphemes": 7, "malformed_trees": 1}
    assert stats["malformed"]["self_loop"] == stats["malformed"]["no_root"] == 1
    table = run("a.knp", cwd=tmp_path)
    assert table.returncode == 0 and table.stdout.decode() == format_table(stats)


def test_malformed_agrees_with_tree_problems(tmp_path: Path) -> None:
    knp = pytest.importorskip("polyparse.parser.formats.knp")
    bunsetsu_sentence = pytest.importorskip("polyparse.parser.formats.bunsetsu_sentence")
    (tmp_path / "a.knp").write_text(KNP, encoding="utf-8")
    for parsed in knp.read_knp(tmp_path / "a.knp", validate=False):
        assert (bunsetsu_sentence.malformed(parsed) is None) == (not tree_problems(parsed.heads))


@pytest.mark.parametrize("split, expected", [
    ("train", {"documents": 4427, "sentences": 13856, "malformed_trees": 1}),
    ("test", {"documents": 700, "sentences": 2195, "malformed_trees": 0}),
])
def test_kwdlc_figures(corpora: Path, tmp_path: Path, split: str, expected: dict) -> None:
    pytest.importorskip("polyparse.parser.formats.knp")
    kwdlc = corpora / "kwdlc"
    result = run("--ids", kwdlc / "id" / f"{split}.id", "--corpus", kwdlc / "knp", "--json",
                 cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    stats = json.loads(result.stdout)
    assert {key: stats[key] for key in expected} == expected
    if split == "train":
        assert stats["examples"] == {"self_loop": "w201106-0001290480-1"}
