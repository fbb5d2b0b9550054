"""Every input path is checked before any work: a missing input, or a folder
given as one, is one line naming it, before a model is loaded. The model here is a FIFO that
nobody writes: a command that loaded it first would wait until the hang guard."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from polyparse.features.input_files import InputPathError, check_input_path, check_input_paths
from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.cli.user_runs import POLYPARSE, one_line, polyparse


@pytest.fixture
def waiting_model(tmp_path: Path) -> Path:
    fifo = tmp_path / "model.fifo"
    os.mkfifo(fifo)
    return fifo


@pytest.mark.parametrize("command", [
    ["dep", "parse", "{missing}", "--model", "{model}"],
    ["ja", "parse", "{missing}", "--model", "{model}"],
    ["srl", "predict", "{missing}", "--model", "{model}"],
    ["clf", "predict", "--model", "{model}", "{missing}"],
], ids=["dep-parse", "ja-parse", "srl-predict", "clf-predict"])
def test_a_missing_input_is_reported_before_the_model_loads(
        tmp_path: Path, waiting_model: Path, command: list[str]) -> None:
    missing = tmp_path / "not-there.txt"
    argv = [word.format(missing=missing, model=waiting_model) for word in command]
    result = polyparse(*argv, timeout=HANG_GUARD_SECONDS)
    one_line(result, f"{missing}: No such file or directory")


@pytest.mark.parametrize("group", ["dep", "ja", "srl"])
def test_evaluate_checks_both_files_first(tmp_path: Path, group: str) -> None:
    gold = tmp_path / "gold.txt"
    gold.write_text("")
    result = polyparse(group, "evaluate", str(gold), str(tmp_path))
    one_line(result, f"{tmp_path}: is a folder, not a file")


def test_a_folder_as_training_file(tmp_path: Path) -> None:
    result = polyparse("dep", "train", "--train", str(tmp_path), "--model",
                       str(tmp_path / "m.model"))
    one_line(result, f"{tmp_path}: is a folder, not a file")
    assert os.listdir(tmp_path) == []


def test_check_input_path(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    os.mkfifo(tmp_path / "fifo")
    check_input_paths(["-", tmp_path / "file", tmp_path / "fifo", None])
    for path, problem in ((tmp_path / "none", "No such file or directory"),
                          (tmp_path, "is a folder, not a file"), ("", "an input path is empty")):
        with pytest.raises(InputPathError, match=problem):
            check_input_path(path)


def test_an_unknown_encoding_is_refused_before_anything_runs(tmp_path: Path,
                                                             waiting_model: Path) -> None:
    result = polyparse("dep", "parse", str(tmp_path / "none.conllu"), "--model",
                       str(waiting_model), "--encoding", "latin-9x", timeout=HANG_GUARD_SECONDS)
    assert result.returncode == 2
    assert result.stderr.splitlines()[-1].endswith(
        "argument --encoding: unknown text encoding 'latin-9x'")


def test_stdout_is_written_in_the_encoding_too(tmp_path: Path) -> None:
    """Issue 22, A4: --encoding applies to standard output as to -o files."""
    from polyparse.parser.models.bundled import bundled_example

    text = bundled_example().read_text(encoding="utf-8").replace("parser", "pars\u00e9r")
    latin = tmp_path / "in.conllu"
    latin.write_bytes(text.encode("latin-1"))
    to_file = tmp_path / "out.conllu"
    assert polyparse("dep", "parse", str(latin), "--encoding", "latin-1", "-o",
                     str(to_file)).returncode == 0
    to_stdout = subprocess.run([POLYPARSE, "dep", "parse", str(latin), "--encoding", "latin-1"],
                               capture_output=True)
    assert to_stdout.returncode == 0, to_stdout.stderr
    assert to_stdout.stdout == to_file.read_bytes() and b"pars\xe9r" in to_stdout.stdout


# Each command with an output that is also one of its inputs ({x}); {other} is another file.
OUTPUT_ONTO_INPUT = {
    "dep-parse": ["dep", "parse", "{x}", "--model", "{other}", "-o", "{x}"],
    "dep-parse-model": ["dep", "parse", "{other}", "--model", "{x}", "-o", "{x}"],
    "dep-train": ["dep", "train", "--train", "{x}", "--model", "{x}"],
    "dep-train-dev": ["dep", "train", "--train", "{other}", "--dev", "{x}", "--model", "{x}"],
    "dep-convert": ["dep", "convert", "--model", "{x}", "--to", "split", "--output", "{x}"],
    "ja-parse": ["ja", "parse", "{other}", "--model", "{x}", "-o", "{x}"],
    "ja-train": ["ja", "train", "--train", "{x}", "--model", "{x}"],
    "srl-train": ["srl", "train", "--train", "{x}", "--model", "{x}"],
    "srl-predict": ["srl", "predict", "{x}", "--model", "{other}", "-o", "{x}"],
    "clf-train": ["clf", "train", "{x}", "--classifier", "linear", "--model", "{x}"],
    "clf-predict": ["clf", "predict", "--model", "{other}", "{x}", "--decision-values", "{x}"],
    "clf-convert": ["clf", "convert", "--model", "{x}", "--to", "split", "--output", "{x}"],
}


@pytest.mark.parametrize("how", ["same path", "symlink", "hard link"])
@pytest.mark.parametrize("command", list(OUTPUT_ONTO_INPUT), ids=list(OUTPUT_ONTO_INPUT))
def test_an_output_that_is_an_input_is_refused_before_anything_is_read(
        tmp_path: Path, command: str, how: str) -> None:
    """Issue 22, A2 and C3: refused in one line, the input left as it was."""
    data = tmp_path / "data.txt"
    data.write_text("keep me\n")
    other = tmp_path / "other.txt"
    other.write_text("other\n")
    output = {"same path": data, "symlink": tmp_path / "link.txt",
              "hard link": tmp_path / "hard.txt"}[how]
    if how == "symlink":
        output.symlink_to(data)
    elif how == "hard link":
        os.link(data, output)
    argv = [word.format(x=data, other=other) for word in OUTPUT_ONTO_INPUT[command]]
    # The output is the last path named {x} (after -o, --model, --output, --decision-values).
    last = max(i for i, word in enumerate(OUTPUT_ONTO_INPUT[command]) if word == "{x}")
    argv[last] = str(output)
    result = polyparse(*argv)
    one_line(result, "would overwrite an input of this command")
    assert data.read_text() == "keep me\n"
    assert sorted(os.listdir(tmp_path)) == sorted({"data.txt", "other.txt", output.name})


@pytest.mark.parametrize("group, text", [("dep", ""), ("ja", ""), ("ja", "\n\n")])
def test_an_empty_input_parses_to_an_empty_output(tmp_path: Path, group: str,
                                                  text: str) -> None:
    """Issue 22, C5: shards can be empty; their parse is empty too, with exit 0."""
    empty = tmp_path / "empty.txt"
    empty.write_text(text)
    out = tmp_path / "out.txt"
    result = polyparse(group, "parse", str(empty), "-o", str(out))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    assert out.read_bytes() == b""
    piped = polyparse(group, "parse", input=text)
    assert piped.returncode == 0 and piped.stdout == "" and piped.stderr == ""
