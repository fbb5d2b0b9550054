"""What a user hits first, run as a user runs it: the installed `polyparse` in a child process.

Outputs never destroy what they are written to (FIFOs, devices, symlinks, permission bits),
signals and closed pipes end runs quietly without leftovers, options are checked before any
data is read, output streams sentence by sentence, and inputs that cannot give the model its
tags are reported in one line.

Nothing here measures time: a child is known to be under way by what it says (its progress bar
on a pseudo-terminal, a log line, a parsed sentence on its stdout) while its input, a pipe these
tests hold open, waits for more; timeouts are only guards against a hang.
"""
from __future__ import annotations

import json
import os
import select
import signal
import stat
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import write_svmlight
from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.cli.user_runs import (
    POLYPARSE,
    check_a_closed_pipe_ends_quietly,
    check_a_signal_while_parsing_leaves_nothing,
    check_each_block_comes_back_as_soon_as_it_is_fed,
    check_sigterm_ends_training_at_once,
    leftovers,
    one_line,
    polyparse,
)
from tests.parser.dependency.synthetic import write_treebank


@pytest.fixture(scope="module")
def treebank(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """A synthetic training treebank and a model trained on it (XPOS templates and splits)."""
    folder = tmp_path_factory.mktemp("user")
    train = write_treebank(folder / "train.conllu", 300, seed=4)
    model = folder / "syn.model"
    result = polyparse("dep", "train", "--train", str(train), "--model", str(model),
                       "--split-threshold", "100", "--classifier", "linear")
    assert result.returncode == 0, result.stderr
    return train, model


@pytest.fixture(scope="module")
def unwritten_input(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A FIFO that nothing ever writes: a command that opened it to read would wait forever."""
    fifo = tmp_path_factory.mktemp("unwritten") / "never-written.conllu"
    os.mkfifo(fifo)
    return fifo


def first_sentences(train: Path, n: int) -> bytes:
    """The first n sentences of a CoNLL-U file, each ending in its blank line."""
    return "".join(block + "\n\n" for block in train.read_text().split("\n\n")[:n]).encode()


# ----- outputs -------------------------------------------------------------------------------


def test_fifo_output_is_written_into_not_replaced(treebank, tmp_path: Path) -> None:
    train, model = treebank
    fifo = tmp_path / "out.fifo"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    result = polyparse("dep", "parse", "--model", str(model), str(train), "-o", str(fifo))
    reader.join(timeout=60)
    assert result.returncode == 0, result.stderr
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert received and received[0].count(b"\n\n") == 300
    assert leftovers(tmp_path) == []


def test_character_device_output_stays_a_device(treebank) -> None:
    """A terminal (a pseudo-terminal here, never /dev/null itself) is written, not replaced."""
    train, model = treebank
    master, slave = os.openpty()
    device = os.ttyname(slave)
    chunks: list[bytes] = []
    done = threading.Event()

    def drain() -> None:
        while True:
            ready, _, _ = select.select([master], [], [], 0.1)
            if not ready:
                if done.is_set():
                    return
                continue
            try:
                chunks.append(os.read(master, 1 << 16))
            except OSError:
                return

    reader = threading.Thread(target=drain)
    reader.start()
    try:
        result = polyparse("dep", "parse", "--model", str(model), str(train), "-o", device)
        done.set()
        reader.join(timeout=60)
        assert result.returncode == 0, result.stderr
        assert stat.S_ISCHR(os.stat(device).st_mode)
    finally:
        done.set()
        os.close(slave)
        os.close(master)
    assert b"\troot\t" in b"".join(chunks)


@pytest.mark.parametrize("name", ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"])
def test_stdout_by_name_is_written_as_the_shell_opened_it(treebank, tmp_path: Path,
                                                         name: str) -> None:
    """Issue 22, A1: `-o /dev/stdout >> log` appends (the file is neither reopened, which
    would truncate it, nor replaced), and `-o /dev/stdout | reader` writes into the pipe."""
    train, model = treebank
    log = tmp_path / "log.conllu"
    log.write_text("# kept\n")
    with open(log, "a") as appended:
        result = subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), str(train),
                                 "-o", name], stdout=appended, stderr=subprocess.PIPE, text=True)
    assert result.returncode == 0, result.stderr
    text = log.read_text()
    assert text.startswith("# kept\n") and text.count("\n\n") == 300
    piped = subprocess.run([POLYPARSE, "dep", "parse", "--model", str(model), str(train),
                            "-o", name], capture_output=True, text=True)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == text[len("# kept\n"):]
    assert leftovers(tmp_path) == []


def test_stderr_by_name_is_written_too(treebank) -> None:
    train, model = treebank
    result = polyparse("dep", "parse", "--model", str(model), str(train), "-o", "/dev/stderr")
    assert result.returncode == 0 and result.stdout == ""
    assert result.stderr.count("\n\n") == 300


def test_symlink_is_followed_and_permissions_kept(treebank, tmp_path: Path) -> None:
    train, model = treebank
    target = tmp_path / "target.conllu"
    target.write_text("old\n")
    target.chmod(0o640)
    link = tmp_path / "link.conllu"
    link.symlink_to(target.name)
    result = polyparse("dep", "parse", "--model", str(model), str(train), "-o", str(link))
    assert result.returncode == 0, result.stderr
    assert link.is_symlink() and os.readlink(link) == target.name
    assert stat.S_IMODE(os.stat(target).st_mode) == 0o640
    assert target.read_text().count("\n\n") == 300
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_new_outputs_follow_the_umask(treebank, tmp_path: Path, umask: int) -> None:
    train, model = treebank
    outputs = {"parse": tmp_path / "p.conllu", "model": tmp_path / "m.model",
               "svm": tmp_path / "m.svm", "values": tmp_path / "v.txt"}
    svm = tmp_path / "d.svm"
    write_svmlight(svm, BinaryMatrix.from_rows([[0, 2], [1, 2], [0, 1], [2]], n_features=3),
                   np.array([1, 2, 1, 2]), id_offset=1)
    runs = [
        ("dep", "parse", "--model", str(model), str(train), "-o", str(outputs["parse"])),
        ("dep", "train", "--train", str(train), "--model", str(outputs["model"]),
         "--split-threshold", "100", "--classifier", "linear"),
        ("clf", "train", str(svm), "--model", str(outputs["svm"]), "--classifier", "linear"),
        ("clf", "predict", "--model", str(outputs["svm"]), str(svm), "--decision-values",
         str(outputs["values"])),
    ]
    previous = os.umask(umask)
    try:
        for argv in runs:
            result = polyparse(*argv)
            assert result.returncode == 0, (argv, result.stderr)
    finally:
        os.umask(previous)
    for path in outputs.values():
        assert stat.S_IMODE(os.stat(path).st_mode) == 0o666 & ~umask, path


@pytest.mark.parametrize("where, message", [
    ("", "the output path is empty"),
    ("adir", "adir: is a folder"),
    ("nodir/out.conllu", "nodir/out.conllu: no such folder nodir"),
])
def test_bad_output_paths_are_named_before_the_work(treebank, unwritten_input, tmp_path: Path,
                                                     where: str, message: str) -> None:
    """The input is a FIFO nobody writes: had the command read a byte of it before checking
    the output path, it would still be waiting (the timeout only ends such a hang)."""
    _, model = treebank
    (tmp_path / "adir").mkdir()
    result = polyparse("dep", "parse", "--model", str(model), str(unwritten_input), "-o", where,
                       cwd=tmp_path, timeout=HANG_GUARD_SECONDS)
    line = one_line(result, message)
    assert ".polyparse" not in line and ".tmp" not in line
    result = polyparse("dep", "train", "--train", str(unwritten_input), "--model",
                       where.replace("out.conllu", "x.model") or "", cwd=tmp_path,
                       timeout=HANG_GUARD_SECONDS)
    one_line(result)
    assert sorted(os.listdir(tmp_path)) == ["adir"] and os.listdir(tmp_path / "adir") == []


# ----- signals and pipes ---------------------------------------------------------------------


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signal_while_writing_leaves_nothing(treebank, tmp_path: Path, signum: int) -> None:
    """The signal comes once the progress bar shows (the temporary output is open) while the
    input, a pipe held open here, still waits for more: the run can only end by the signal."""
    train, model = treebank
    check_a_signal_while_parsing_leaves_nothing(
        [POLYPARSE, "dep", "parse", "--model", str(model), "-", "-o",
         str(tmp_path / "out.conllu")], first_sentences(train, 20), tmp_path, signum)


def test_a_signal_while_training_ends_it_at_once(treebank, tmp_path: Path) -> None:
    """A million passes over 300 sentences would run for hours: ending within the hang guard
    after SIGTERM (sent once the log says training has begun) is ending at once."""
    train, _ = treebank
    check_sigterm_ends_training_at_once(
        [POLYPARSE, "dep", "train", "--train", str(train), "--model", str(tmp_path / "m.model"),
         "--classifier", "pa-slicing", "--iterations", "1000000"], "training states", tmp_path)


def test_closed_pipe_ends_quietly(treebank) -> None:
    """stdout is closed by its reader after the first sentences came back; the next sentence
    fed makes the child write into the closed pipe."""
    train, model = treebank
    check_a_closed_pipe_ends_quietly([POLYPARSE, "dep", "parse", "--model", str(model)],
                                     first_sentences(train, 2), b"\n\n", 2,
                                     first_sentences(train, 3))


def test_each_sentence_comes_back_as_soon_as_it_is_fed(treebank) -> None:
    """Each sentence's parse is read back while the input stays open: had the command waited
    for more input (or for the end of it), the read would hang."""
    train, model = treebank
    sentences = [sentence.encode() + b"\n\n" for sentence in train.read_text().split("\n\n")[:3]]
    check_each_block_comes_back_as_soon_as_it_is_fed(
        [POLYPARSE, "dep", "parse", "--model", str(model)], sentences, b"\n\n")


# ----- options ------------------------------------------------------------------------------


@pytest.mark.parametrize("options, message", [
    (["-C", "0"], "C must be positive"),
    (["--classifier", "pa-slicing", "--iterations", "0"], "iterations must be at least 1"),
    (["--iterations", "5"], "--iterations applies to pa-slicing, not poly2-linear"),
    (["--classifier", "pa-slicing", "--degree", "5"], "degree must be 1, 2 or 3"),
    (["--classifier", "kernel-svm", "--degree", "0"], "degree must be at least 1"),
    (["--classifier", "kernel-svm", "--gamma", "-1"], "gamma must be positive"),
    (["--classifier", "kernel-svm", "--cache-mb", "0"], "cache_mb must be positive"),
    (["--classifier", "kernel-svm", "--eps", "0"], "eps must be positive"),
    (["--classifier", "linear", "--degree", "3"], "--degree applies to kernel-svm and pa-slicing"),
    (["--split-threshold", "0"], "split_threshold must be at least 1"),
    (["--threads", "0"], "threads must be at least 1"),
    (["--seed", "-1"], "seed must lie in"),
])
def test_dep_train_options_are_checked_before_the_data(tmp_path: Path, options: list[str],
                                                       message: str) -> None:
    missing = tmp_path / "not-there.conllu"
    result = polyparse("dep", "train", "--train", str(missing), "--model",
                       str(tmp_path / "m.model"), *options)
    one_line(result, "dep train: " + message)
    assert os.listdir(tmp_path) == []


def test_version() -> None:
    result = polyparse("--version")
    assert result.returncode == 0 and result.stdout.startswith("polyparse ")


# ----- tags the model cannot use ------------------------------------------------------------


def test_missing_or_unknown_tags_are_reported_in_one_line(treebank, tmp_path: Path) -> None:
    train, model = treebank
    good = polyparse("dep", "parse", "--model", str(model), str(train))
    assert good.returncode == 0 and good.stderr == ""
    lines = train.read_text().split("\n")
    blank = tmp_path / "no-xpos.conllu"
    blank.write_text("\n".join(_with_column(line, 4, "_") for line in lines))
    result = polyparse("dep", "parse", "--model", str(model), str(blank))
    assert result.returncode == 0
    warnings = result.stderr.strip().splitlines()
    words = sum(1 for line in lines if line[:1].isdigit())
    assert len(warnings) == 1 and warnings[0].startswith(f"polyparse: warning: {blank}: ")
    assert f"{words} of {words} words have no XPOS" in warnings[0]
    foreign = tmp_path / "foreign.conllu"
    foreign.write_text("\n".join(_with_column(line, 4, "ZZ") for line in lines))
    result = polyparse("dep", "parse", "--model", str(model), str(foreign))
    assert f"{words} of {words} words have XPOS tags the model never saw in training (ZZ)" in result.stderr


@pytest.mark.parametrize("classifier", ["linear", "structured-perceptron"])
def test_a_model_trained_without_xpos_reads_upos(treebank, tmp_path: Path,
                                                 classifier: str) -> None:
    train, _ = treebank
    lines = train.read_text().split("\n")
    no_xpos = tmp_path / "no-xpos.conllu"
    no_xpos.write_text("\n".join(_with_column(line, 4, "_") for line in lines))
    model = tmp_path / "m.model"
    options = ["--epochs", "1", "--beam", "2"] if classifier == "structured-perceptron" else []
    trained = polyparse("dep", "train", "--train", str(no_xpos), "--model", str(model),
                        "--classifier", classifier, "--quiet", *options)
    assert trained.returncode == 0, trained.stderr
    result = polyparse("dep", "parse", "--model", str(model), str(no_xpos))
    assert result.returncode == 0 and result.stderr == ""
    no_upos = tmp_path / "no-upos.conllu"
    no_upos.write_text("\n".join(_with_column(line, 3, "_") for line in no_xpos.read_text().split("\n")))
    result = polyparse("dep", "parse", "--model", str(model), str(no_upos))
    words = sum(1 for line in lines if line[:1].isdigit())
    assert f"{words} of {words} words have no UPOS" in result.stderr


def _with_column(line: str, column: int, value: str) -> str:
    if not line[:1].isdigit():
        return line
    columns = line.split("\t")
    columns[column] = value
    return "\t".join(columns)


# ----- classifiers --------------------------------------------------------------------------


def test_clf_warnings_and_evaluator_names(tmp_path: Path) -> None:
    X = BinaryMatrix.from_rows([[0, 2], [1, 2], [0, 1], [2]], n_features=3)
    one_class = tmp_path / "one.svm"
    write_svmlight(one_class, X, np.array([1, 1, 1, 1]), id_offset=1)
    result = polyparse("clf", "train", str(one_class), "--model", str(tmp_path / "one.model"),
                       "--classifier", "linear")
    assert result.returncode == 0
    assert result.stderr.splitlines()[0] == (f"polyparse: warning: {one_class} holds one "
                                             "class (1): the model gives it to every example")
    two = tmp_path / "two.svm"
    write_svmlight(two, X, np.array([1, 2, 1, 2]), id_offset=1)
    assert polyparse("clf", "train", str(two), "--model", str(tmp_path / "two.model"),
                     "--classifier", "linear").returncode == 0
    unseen = tmp_path / "unseen.svm"
    write_svmlight(unseen, X, np.array([1, 2, 3, 3]), id_offset=1)
    result = polyparse("clf", "predict", "--model", str(tmp_path / "two.model"), str(unseen),
                       "--json")
    assert result.returncode == 0
    assert json.loads(result.stdout)["eval_mode"] == "explicit-weights"
    assert ("2 of 4 examples have labels the model never saw in training (3)"
            in result.stderr)


def test_dep_train_warns_of_a_dev_file_that_cannot_tell(treebank, tmp_path: Path) -> None:
    """Issue 22, C8: --dev that is the training file, and dev labels that training never has,
    are each one warning line; the model is still written."""
    train, _ = treebank
    same = polyparse("dep", "train", "--train", str(train), "--dev", str(train), "--model",
                     str(tmp_path / "a.model"), "--classifier", "linear", "--quiet")
    assert same.returncode == 0, same.stderr
    assert same.stderr.splitlines() == [
        f"polyparse: warning: --dev {train} is the training file: its scores are not those of "
        "unseen text"]
    blocks = train.read_text().split("\n\n")[:20]
    renamed = [block.replace("\tnsubj\t", "\tnsubj:new\t", 1) for block in blocks]
    dev = tmp_path / "dev.conllu"
    dev.write_text("\n\n".join(renamed) + "\n\n")
    assert "nsubj:new" in dev.read_text()
    unseen = polyparse("dep", "train", "--train", str(train), "--dev", str(dev), "--model",
                       str(tmp_path / "b.model"), "--classifier", "linear", "--quiet")
    assert unseen.returncode == 0, unseen.stderr
    (line,) = unseen.stderr.splitlines()
    assert line.startswith(f"polyparse: warning: {dev}: ") and "nsubj:new (" in line
    assert (tmp_path / "a.model").exists() and (tmp_path / "b.model").exists()


def test_the_python_api_warns_as_the_command_does(treebank) -> None:
    import polyparse

    train, _ = treebank
    with pytest.warns(polyparse.InputWarning, match="is the training file"):
        polyparse.train_parser(train, train, classifier="linear")
