"""Progress and quiet: the commands that can run long draw a tqdm bar on stderr when stderr is a
terminal (a pseudo-terminal here), none when it is not, and none with --quiet."""
from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from polyparse.parser.models.bundled import bundled_example, bundled_model
from tests.parser.bunsetsu.samples import synthetic_sentences
from tests.parser.cli.test_ja import write_knp

GOOD = Path(__file__).resolve().parents[2] / "data" / "gold_conll" / "good.gold_conll"


def stderr_on_a_terminal(argv: list[str]) -> tuple[int, str]:
    """Exit code and everything written on stderr, which is a pseudo-terminal."""
    controller, terminal = pty.openpty()
    # A terminal of 24 rows and 100 columns (a new pseudo-terminal has none).
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    child = subprocess.Popen([sys.executable, "-m", "polyparse.parser.cli.main", *argv],
                             stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                             stderr=terminal)
    os.close(terminal)
    chunks = []
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(controller)
    return child.wait(), b"".join(chunks).decode("utf-8", "replace")


def stderr_on_a_pipe(argv: list[str]) -> tuple[int, str]:
    result = subprocess.run([sys.executable, "-m", "polyparse.parser.cli.main", *argv],
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    return result.returncode, result.stderr


@pytest.fixture(scope="module")
def knp(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("progress")
    return write_knp(folder / "train.knp", synthetic_sentences(5, 60))


def commands(knp: Path, out: Path) -> dict[str, list[str]]:
    return {
        "dep parse": ["dep", "parse", str(bundled_example()), "-o", str(out / "p.conllu")],
        "ja train": ["ja", "train", "--train", str(knp), "--model", str(out / "ja.model"),
                     "--iterations", "2"],
        "srl train": ["srl", "train", "--train", str(GOOD), "--model", str(out / "srl.model"),
                      "--epochs", "1"],
        "srl train cpa": ["srl", "train", "--train", str(GOOD), "--model",
                          str(out / "cpa.model"), "--learner", "cpa", "--iterations", "3"],
    }


@pytest.mark.parametrize("name", ["dep parse", "ja train", "srl train", "srl train cpa"])
def test_a_bar_on_a_terminal_none_elsewhere_and_none_when_quiet(name: str, knp: Path,
                                                                 tmp_path: Path) -> None:
    argv = commands(knp, tmp_path)[name]
    code, text = stderr_on_a_terminal(argv)
    assert code == 0, text
    assert "%|" in text or "it/s" in text or "/s]" in text, text
    code, text = stderr_on_a_terminal([*argv, "--quiet"])
    assert code == 0 and "/s]" not in text and "%|" not in text, text
    code, text = stderr_on_a_pipe(argv)
    assert code == 0 and "/s]" not in text and "%|" not in text, text


def test_the_bar_names_the_work(tmp_path: Path) -> None:
    text_file = tmp_path / "text.txt"
    text_file.write_text("The dog barked. It was late.\n", encoding="utf-8")
    for argv, desc in ((["tag", "tag", str(bundled_example())], "tagging"),
                       (["tokenize", "tokenize", str(text_file)], "tokenizing"),
                       (["dep", "parse", str(bundled_example())], "parsing")):
        code, text = stderr_on_a_terminal([*argv, "-o", str(tmp_path / "out")])
        assert code == 0 and f"{desc}:" in text, text


def test_quiet_keeps_warnings(tmp_path: Path) -> None:
    """--quiet silences progress, not what the user must know."""
    blank = tmp_path / "no-upos.conllu"
    blank.write_text("".join(
        "\t".join(columns[:3] + ["_", "_"] + columns[5:]) if len(columns) == 10 else line
        for line in bundled_example().read_text(encoding="utf-8").splitlines(keepends=True)
        for columns in [line.split("\t")]), encoding="utf-8")
    # A parser model given by path has no tagger: words without tags are warned about (the
    # bundled pipeline's parser layer as a file of its own).
    from polyparse.classifiers.pipeline_file import pipeline_layers

    parser = tmp_path / "parser.model"
    parser.write_bytes(pipeline_layers(bundled_model().read_bytes(), "bundled")["parser"])
    code, text = stderr_on_a_pipe(["dep", "parse", "--model", str(parser), str(blank),
                                   "--quiet"])
    assert code == 0 and "warning:" in text and "have no XPOS" in text
