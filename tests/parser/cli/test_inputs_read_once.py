"""Every input of every command is read once, so that standard input ("-" and /dev/stdin), a
pipe (`<(cat f)`, /dev/fd/N) and a named FIFO give what the regular file gives: the same
output, the same exit code and, for a model, the same arrays and the same sha256 of its
training data in its header. A command that opened a path twice (a sniff of the first line,
then the reader; the reader, then a digest) lost the first bytes of a pipe or read nothing.

Each case runs a command once on regular files and once with one of its inputs fed through
another kind of stream; the kinds take turns across the cases, so each command meets each
kind somewhere, and the cases of the first report (clf predict and train from a pipe,
/dev/stdin, "-" and a FIFO) are their own tests. Feeding is done by threads that write the
file's bytes into the stream; nothing waits on a clock but the hang guard."""
from __future__ import annotations

import hashlib
import json
import os
import random
import re
import subprocess
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_file import read_model_file
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import write_svmlight
from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.bunsetsu.samples import synthetic_sentences
from tests.parser.cli.test_clf_trees import _line as tree_line
from tests.parser.cli.test_ja import write_knp
from tests.parser.cli.user_runs import POLYPARSE, one_line
from tests.parser.dependency.synthetic import write_treebank

GOLD_CONLL = Path(__file__).resolve().parents[2] / "data" / "gold_conll" / "good.gold_conll"
KINDS = ("pipe", "fifo", "-", "/dev/stdin")
# Timings in a summary differ from run to run.
TIMINGS = re.compile(rb'"[a-z_]*seconds[a-z_]*": [0-9.e+-]+')


@dataclass
class Run:
    code: int
    stdout: bytes
    stderr: str
    output: str | None


def with_text_lines(treebank: Path) -> Path:
    """The treebank with `# text` lines that are its forms joined by spaces, as a tokenizer
    learns from."""
    blocks = []
    for block in treebank.read_text(encoding="utf-8").strip().split("\n\n"):
        lines = [line for line in block.splitlines() if not line.startswith("# text")]
        forms = [line.split("\t")[1] for line in lines if line[0].isdigit()]
        blocks.append("\n".join([f"# text = {' '.join(forms)}", *lines]) + "\n")
    treebank.write_text("\n".join(blocks) + "\n", encoding="utf-8")
    return treebank


def polyparse_ok(*argv: str | Path) -> None:
    result = subprocess.run([POLYPARSE, *map(str, argv), "-q"], capture_output=True, text=True,
                            timeout=HANG_GUARD_SECONDS)
    assert result.returncode == 0, result.stderr


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Small inputs of every kind the commands read, and a model of every kind."""
    folder = tmp_path_factory.mktemp("read-once")
    f = {"train.conllu": with_text_lines(write_treebank(folder / "train.conllu", 80, seed=1)),
         "dev.conllu": with_text_lines(write_treebank(folder / "dev.conllu", 20, seed=2))}
    (folder / "raw.txt").write_text("the dog saw a cat .\n\nthe man ran .\n", encoding="utf-8")
    f["raw.txt"] = folder / "raw.txt"
    rng = np.random.default_rng(5)
    rows = [sorted(set(rng.choice(60, size=6).tolist())) for _ in range(400)]
    y = np.array([1 if row[0] < 10 else -1 for row in rows])
    write_svmlight(folder / "train.svm", BinaryMatrix.from_rows(rows[:300], n_features=60), y[:300])
    write_svmlight(folder / "test.svm", BinaryMatrix.from_rows(rows[300:], n_features=60), y[300:])
    f["train.svm"], f["test.svm"] = folder / "train.svm", folder / "test.svm"
    lines = random.Random(3)
    f["train.tk"], f["test.tk"] = folder / "train.tk", folder / "test.tk"
    f["train.tk"].write_text("".join(tree_line(lines) for _ in range(200)))
    f["test.tk"].write_text("".join(tree_line(lines) for _ in range(60)))
    f["train.knp"] = write_knp(folder / "train.knp", synthetic_sentences(1, 120), "train")
    f["test.knp"] = write_knp(folder / "test.knp", synthetic_sentences(2, 20), "test")
    f["gold_conll"] = GOLD_CONLL
    for name, argv in {
        "dep.model": ["dep", "train", "--train", f["train.conllu"], "--classifier", "linear"],
        "kernel.model": ["dep", "train", "--train", f["train.conllu"], "--classifier",
                         "kernel-svm", "--split-threshold", "1000"],
        "tag.model": ["tag", "train", "--train", f["train.conllu"]],
        "tok.model": ["tokenize", "train", "--train", f["train.conllu"]],
        "clf.model": ["clf", "train", f["train.svm"], "--classifier", "kernel-svm"],
        "tk.model": ["clf", "train", f["train.tk"], "--classifier", "voted-perceptron",
                     "--epochs", "1"],
        "ja.model": ["ja", "train", "--train", f["train.knp"], "--iterations", "3"],
        "srl.model": ["srl", "train", "--train", GOLD_CONLL, "--epochs", "1"],
    }.items():
        polyparse_ok(*argv, "--model", folder / name)
        f[name] = folder / name
    for name, argv in {"dev.parsed": ["dep", "parse", f["dev.conllu"], "--model", f["dep.model"]],
                       "test.parsed.knp": ["ja", "parse", f["test.knp"], "--model",
                                           f["ja.model"]]}.items():
        polyparse_ok(*argv, "-o", folder / name)
        f[name] = folder / name
    return f


# Each command with its inputs as keys of `files` ("OUT": an output file it writes); the
# inputs marked "*" are fed another way, one case each.
COMMANDS = [
    ["dep", "train", "--train", "*train.conllu", "--dev", "*dev.conllu", "--model", "OUT",
     "--classifier", "linear"],
    ["dep", "parse", "*dev.conllu", "--model", "*dep.model"],
    ["dep", "parse", "*raw.txt", "--format", "raw", "--tokenizer", "*tok.model", "--tagger",
     "tag.model", "--model", "dep.model"],
    ["dep", "parse", "*dev.conllu", "--model", "dep.model", "--workers", "2", "--shard-size",
     "2K"],
    ["dep", "evaluate", "*dev.conllu", "*dev.parsed", "--json"],
    ["dep", "convert", "--model", "*kernel.model", "--to", "split", "--output", "OUT"],
    ["dep", "show", "*dev.parsed"],
    ["tag", "train", "--train", "*train.conllu", "--dev", "dev.conllu", "--model", "OUT"],
    ["tag", "tag", "*dev.conllu", "--model", "*tag.model"],
    ["tag", "evaluate", "dev.conllu", "*dev.parsed"],
    ["tokenize", "train", "--train", "*train.conllu", "--dev", "*dev.conllu", "--model", "OUT"],
    ["tokenize", "tokenize", "*raw.txt", "--model", "tok.model"],
    ["tokenize", "evaluate", "*dev.conllu", "dev.parsed"],
    ["ja", "train", "--train", "*train.knp", "--model", "OUT", "--iterations", "3"],
    ["ja", "parse", "*test.knp", "--model", "*ja.model"],
    ["ja", "evaluate", "test.knp", "*test.parsed.knp", "--json"],
    ["ja", "show", "*test.parsed.knp"],
    ["srl", "train", "--train", "*gold_conll", "--model", "OUT", "--epochs", "1"],
    ["srl", "predict", "--model", "*srl.model", "*gold_conll"],
    ["srl", "evaluate", "*gold_conll", "gold_conll", "--json"],
    ["clf", "train", "*train.svm", "--model", "OUT", "--classifier", "linear"],
    ["clf", "train", "*train.tk", "--model", "OUT", "--classifier", "voted-perceptron",
     "--epochs", "1"],
    ["clf", "predict", "--model", "*clf.model", "*test.svm", "--json", "--decision-values",
     "OUT"],
    ["clf", "predict", "--model", "clf.model", "*test.svm", "--json", "--workers", "2",
     "--shard-size", "1K"],
    ["clf", "predict", "--model", "*tk.model", "*test.tk", "--json"],
    ["clf", "convert", "--model", "*clf.model", "--to", "split", "--output", "OUT"],
    ["clf", "info", "--model", "*clf.model", "--json"],
]


def cases() -> list[tuple[list[str], int, str]]:
    """(command, index of the input fed another way, kind), the kinds taking turns."""
    found = []
    for command in COMMANDS:
        for index, word in enumerate(command):
            if word.startswith("*"):
                found.append((command, index, KINDS[len(found) % len(KINDS)]))
    return found


CASES = cases()


def case_id(case: tuple[list[str], int, str]) -> str:
    command, index, kind = case
    name = command[index].lstrip("*")
    return f"{'-'.join(command[:2])}-{name}-{kind.strip('/').replace('/', '-')}"


def feed(path: Path, open_writer: Callable[[], int]) -> threading.Thread:
    """A thread writing path's bytes into the descriptor open_writer() gives, then closing it
    (a reader that stops early makes it stop quietly)."""
    data = path.read_bytes()

    def write() -> None:
        descriptor = open_writer()
        try:
            with os.fdopen(descriptor, "wb") as stream:
                stream.write(data)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def run(command: list[str], files: dict[str, Path], folder: Path, fed: int | None = None,
        kind: str = "") -> Run:
    """The command on files (its OUT written into folder), the input at index fed given as
    kind."""
    argv = [str(folder / "out") if word == "OUT" else str(files.get(word.lstrip("*"), word))
            for word in command]
    options: dict = {"stdin": subprocess.DEVNULL}
    writer = None
    if fed is not None:
        source = files[command[fed].lstrip("*")]
        if kind == "pipe":
            read_end, write_end = os.pipe()
            argv[fed] = f"/dev/fd/{read_end}"
            options["pass_fds"] = (read_end,)
            writer = feed(source, lambda: write_end)
        elif kind == "fifo":
            fifo = folder / "input.fifo"
            os.mkfifo(fifo)
            argv[fed] = str(fifo)
            writer = feed(source, lambda: os.open(fifo, os.O_WRONLY))
        else:
            argv[fed] = kind
            options["stdin"] = source.open("rb")
    try:
        result = subprocess.run([POLYPARSE, *argv], capture_output=True,
                                timeout=HANG_GUARD_SECONDS, **options)
    finally:
        if kind == "pipe":
            os.close(read_end)
        elif kind not in ("", "fifo"):
            options["stdin"].close()
        if kind == "fifo" and writer.is_alive():
            # The command never opened the FIFO: release the writer, then fail below.
            os.close(os.open(fifo, os.O_RDONLY | os.O_NONBLOCK))
    if writer is not None:
        writer.join(HANG_GUARD_SECONDS)
    out = folder / "out"
    return Run(result.returncode, result.stdout, result.stderr.decode(),
               None if not out.exists() else model_digest(out))


def model_digest(path: Path) -> str:
    """A model file's arrays and header without the command line that made it (which names
    its inputs' paths), or the file's sha256 when it is not a model file."""
    try:
        header, arrays = read_model_file(path)
    except Exception:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    def without_paths(value: object) -> object:
        if isinstance(value, dict):
            return {key: without_paths(item) for key, item in value.items()
                    if "command" not in key and key not in ("data", "source", "seconds")}
        return value

    digest = hashlib.sha256(json.dumps(without_paths(header), sort_keys=True).encode())
    for name in sorted(arrays):
        digest.update(name.encode() + arrays[name].tobytes())
    return digest.hexdigest()


class References:
    """Each command's run on regular files, made when a case first needs it."""

    def __init__(self, files: dict[str, Path], folders: pytest.TempPathFactory) -> None:
        self.files = files
        self.folders = folders
        self.runs: dict[str, Run] = {}

    def of(self, command: list[str]) -> Run:
        key = " ".join(command)
        if key not in self.runs:
            result = run(command, self.files, self.folders.mktemp("reference"))
            assert result.code == 0, (command, result.stderr)
            self.runs[key] = result
        return self.runs[key]


@pytest.fixture(scope="module")
def references(files: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> References:
    return References(files, tmp_path_factory)


@pytest.mark.parametrize("case", CASES, ids=[case_id(case) for case in CASES])
def test_an_input_from_a_stream_gives_what_the_file_gives(
        case: tuple[list[str], int, str], files: dict[str, Path], references: References,
        tmp_path: Path) -> None:
    command, index, kind = case
    reference = references.of(command)
    result = run(command, files, tmp_path, index, kind)
    assert result.code == 0, result.stderr
    assert TIMINGS.sub(b"", result.stdout) == TIMINGS.sub(b"", reference.stdout)
    assert result.output == reference.output


def test_every_command_meets_every_kind_of_stream() -> None:
    groups = {command[0] for command in COMMANDS}
    assert groups == {"dep", "tag", "tokenize", "ja", "srl", "clf"}
    for group in groups:
        assert {kind for command, _, kind in CASES if command[0] == group} == set(KINDS), group


def test_a_model_header_holds_the_sha256_of_its_piped_training_data(
        files: dict[str, Path], tmp_path: Path) -> None:
    result = run(["dep", "train", "--train", "*train.conllu", "--model", "OUT", "--classifier",
                  "linear"], files, tmp_path, 3, "pipe")
    assert result.code == 0, result.stderr
    header, _ = read_model_file(tmp_path / "out")
    assert header["train_sha256"] == hashlib.sha256(
        files["train.conllu"].read_bytes()).hexdigest()


@pytest.mark.parametrize("how", ["process substitution", "/dev/stdin", "-", "fifo"])
def test_clf_predict_from_a_pipe_predicts_every_example(
        how: str, files: dict[str, Path], tmp_path: Path) -> None:
    """`clf predict --model m <(cat t.svm)`, `cat t.svm | clf predict --model m /dev/stdin`
    (and "-", and a named FIFO) predicted 744 of 1,000 examples (the first 4,096 bytes were
    gone) or failed with a false "missing label"."""
    kind = {"process substitution": "pipe"}.get(how, how)
    command = ["clf", "predict", "--model", "clf.model", "*test.svm", "--json"]
    result = run(command, files, tmp_path, 4, kind)
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["n"] == 100


def test_clf_train_from_a_pipe(files: dict[str, Path], tmp_path: Path) -> None:
    """`clf train <(cat t.svm)` said `empty file`."""
    result = run(["clf", "train", "*train.svm", "--model", "OUT", "--classifier", "linear",
                  "--json"], files, tmp_path, 2, "pipe")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["rows"] == 300
    header, _ = read_model_file(tmp_path / "out")
    assert header["training"]["data_sha256"] == hashlib.sha256(
        files["train.svm"].read_bytes()).hexdigest()


def test_two_inputs_from_standard_input_are_refused(files: dict[str, Path]) -> None:
    result = subprocess.run([POLYPARSE, "dep", "evaluate", "-", "/dev/stdin"],
                            capture_output=True, text=True, stdin=subprocess.DEVNULL)
    one_line(result, "two inputs cannot both be read from standard input")


def test_gold_from_standard_input(files: dict[str, Path]) -> None:
    """The gold file of an evaluation may come from standard input as the system's may."""
    with files["dev.conllu"].open("rb") as gold:
        result = subprocess.run([POLYPARSE, "dep", "evaluate", "-", str(files["dev.parsed"]),
                                 "--json"], capture_output=True, stdin=gold)
    assert result.returncode == 0, result.stderr
    assert "LAS" in json.loads(result.stdout)


def test_resume_needs_an_input_that_can_be_read_again(files: dict[str, Path],
                                                      tmp_path: Path) -> None:
    parts = tmp_path / "parts"
    polyparse_ok("dep", "parse", files["dev.conllu"], "--model", files["dep.model"],
                 "--output-dir", parts)
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    result = subprocess.run([POLYPARSE, "dep", "parse", str(fifo), "--model",
                             str(files["dep.model"]), "--output-dir", str(parts), "--resume"],
                            capture_output=True, text=True, timeout=HANG_GUARD_SECONDS)
    one_line(result, "--resume reads the input again", str(fifo))

