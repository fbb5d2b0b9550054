"""What `pipeline train` does with the treebanks users bring: without `# text` lines, one
sentence, empty nodes and enhanced dependencies, columns left blank; a line for what cannot
be learned, never a traceback."""
from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.parser.cli.user_runs import POLYPARSE
from tests.parser.tagging.synthetic import synthetic_conllu

TEXT = "The big dog saw a cat .\n\nA small cat likes the fish .\n"


def word_lines(conllu: str, change: Callable[[list[str]], list[str]]) -> str:
    """The CoNLL-U with each word line's columns changed."""
    return "\n".join("\t".join(change(line.split("\t"))) if line.count("\t") == 9 else line
                     for line in conllu.split("\n"))


def blank(*columns: int) -> Callable[[list[str]], list[str]]:
    return lambda fields: [("_" if i in columns else value) for i, value in enumerate(fields)]


def with_empty_nodes(conllu: str) -> str:
    """Enhanced dependencies on every word, and an empty node after each sentence's first."""
    lines = []
    for line in conllu.split("\n"):
        fields = line.split("\t")
        if len(fields) == 10:
            fields[8] = f"{fields[6]}:{fields[7]}"
            lines.append("\t".join(fields))
            if fields[0] == "1":
                lines.append("1.1\tnull\t_\t_\t_\t_\t_\t_\t1:dep\t_")
        else:
            lines.append(line)
    return "\n".join(lines)


def train_and_parse(tmp_path: Path, conllu: str) -> tuple[subprocess.CompletedProcess,
                                                          subprocess.CompletedProcess | None]:
    train, model = tmp_path / "train.conllu", tmp_path / "model"
    train.write_text(conllu, encoding="utf-8")
    trained = subprocess.run([POLYPARSE, "pipeline", "train", "--train", str(train), "--model",
                              str(model), "--quiet"], capture_output=True, text=True, check=False)
    if trained.returncode != 0:
        return trained, None
    parsed = subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), "--format", "raw",
                             "--quiet"], input=TEXT, capture_output=True, text=True, check=False)
    return trained, parsed


BASE = synthetic_conllu(60, seed=1, features=True)


@pytest.mark.parametrize("case, conllu", [
    ("no text lines", "\n".join(line for line in BASE.split("\n")
                                if not line.startswith("# text"))),
    ("empty nodes and enhanced dependencies", with_empty_nodes(BASE)),
    ("no lemmas and no FEATS", word_lines(BASE, blank(2, 5))),
    ("no XPOS", word_lines(BASE, blank(4))),
])
def test_treebanks_users_bring_train_a_pipeline(case: str, conllu: str, tmp_path: Path) -> None:
    trained, parsed = train_and_parse(tmp_path, conllu)
    assert trained.returncode == 0 and trained.stderr == "", (case, trained.stderr)
    assert parsed is not None and parsed.returncode == 0, (case, parsed and parsed.stderr)
    words = [line.split("\t") for line in parsed.stdout.splitlines() if line[:1].isdigit()]
    assert [w[1] for w in words] == TEXT.split()
    assert all(w[3] != "_" and w[6] != "_" for w in words)


def test_one_sentence_trains_on_gold_tags_with_a_warning(tmp_path: Path) -> None:
    trained, parsed = train_and_parse(tmp_path, BASE.split("\n\n")[0] + "\n\n")
    assert trained.returncode == 0 and trained.stderr.splitlines() == [
        f"polyparse: warning: {tmp_path / 'train.conllu'}: 1 sentences cannot fill the 5 folds "
        "of the parser's jackknifed tags: the parser learns from the gold tags"]
    assert parsed is not None and parsed.returncode == 0


def test_a_missing_column_is_one_line(tmp_path: Path) -> None:
    trained, _ = train_and_parse(tmp_path, word_lines(BASE, blank(7)))
    assert trained.returncode != 0 and trained.stderr.splitlines() == [
        f'polyparse: {tmp_path / "train.conllu"}:3: DEPREL is missing ("_")']
    assert not (tmp_path / "model").exists()
