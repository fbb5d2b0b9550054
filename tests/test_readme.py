"""The README is true: one screen, the two set-up commands (CI runs the second), every command
of its tour runs (on slices of the real corpora, named as the tour names them), the Python tour
prints what it says, and its links point to files."""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.doc_blocks import ROOT, blocks, read_doc, run_commands, run_python

README = read_doc("README.md")
SHELL = blocks(README, "sh")


def setup_commands() -> tuple[str, str]:
    main_job, tests = (block.strip() for block in SHELL[:2])
    return main_job, tests


def test_the_readme_fits_on_one_screen() -> None:
    assert len(README.splitlines()) <= 200


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, tests = setup_commands()
    assert tests in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def test_every_link_points_to_a_file() -> None:
    links = re.findall(r"\]\(([^)#]+)\)", README)
    assert links
    for link in links:
        assert (ROOT / link).is_file(), link


def test_main_job_runs_on_what_the_package_ships(tmp_path: Path) -> None:
    """The first command parses the bundled example and scores the bundled gold sample with
    nothing but the checkout: no POLYPARSE_CORPORA (it failed in a fresh clone, reading
    ../shared/corpora), nothing beside the checkout."""
    main_job, _ = setup_commands()
    assert "POLYPARSE_CORPORA" not in main_job and "shared" not in main_job
    environment = {key: value for key, value in os.environ.items()
                   if key != "POLYPARSE_CORPORA"}
    result = subprocess.run(
        ["bash", "-c", "set -o pipefail; " + main_job.split("pip install . && ", 1)[1]],
        cwd=ROOT, env={**environment, "PATH": f"{Path(sys.executable).parent}:"
                                              f"{os.environ['PATH']}", "HOME": str(tmp_path)},
        capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0] == "# sent_id = example-1" and "\troot\t" in result.stdout
    scores = json.loads(lines[-1])
    assert scores["words"] == 2202 and scores["sentences"] == 100
    assert scores["UAS"] >= 85.0 and scores["LAS"] >= 82.0


def first_sentences(source: Path, target: Path, n: int, end: bytes = b"\n\n") -> Path:
    """The first n sentences (blocks ending in `end`) of a file."""
    data = source.read_bytes()
    cut = 0
    for _ in range(n):
        cut = data.index(end, cut) + len(end)
    target.write_bytes(data[:cut])
    return target


def first_lines(source: Path, target: Path, n: int) -> Path:
    with open(source, "rb") as lines:
        target.write_bytes(b"".join(line for line, _ in zip(lines, range(n))))
    return target


@pytest.fixture(scope="module")
def tour(tmp_path_factory: pytest.TempPathFactory, corpora: Path, kwdlc: Path,
         srl_boundary: Path) -> Path:
    """A folder holding the files the tour names, made of slices of the real data."""
    folder = tmp_path_factory.mktemp("tour")
    ewt = corpora / "en_ewt"
    first_sentences(ewt / "en_ewt-ud-train.conllu", folder / "train.conllu", 1500)
    first_sentences(ewt / "en_ewt-ud-dev.conllu", folder / "dev.conllu", 200)
    first_sentences(ewt / "en_ewt-ud-test.conllu", folder / "test.conllu", 300)
    (folder / "kwdlc" / "id").mkdir(parents=True)
    ids = (corpora / "kwdlc" / "id" / "train.id").read_text(encoding="utf-8").splitlines()
    (folder / "kwdlc" / "id" / "train.id").write_text("\n".join(ids[:300]) + "\n",
                                                       encoding="utf-8")
    (folder / "kwdlc" / "knp").symlink_to(corpora / "kwdlc" / "knp")
    import polyparse

    tests = polyparse.knp_documents(corpora / "kwdlc" / "id" / "test.id",
                                    corpora / "kwdlc" / "knp")[:40]
    (folder / "test.knp").write_bytes(b"".join(path.read_bytes() for path in tests))
    first_lines(kwdlc / "train.5k.svm", folder / "train.svm", 800)
    first_lines(kwdlc / "test.svm", folder / "test.svm", 1000)
    first_lines(srl_boundary / "train.5k.tk", folder / "train.tk", 1000)
    good = ROOT / "tests" / "data" / "gold_conll" / "good.gold_conll"
    for name in ("train.gold_conll", "test.gold_conll"):
        (folder / name).symlink_to(good)
    return folder


@pytest.mark.parametrize("index", range(2, 6))
def test_every_tour_command_runs(index: int, tour: Path, corpora: Path) -> None:
    commands = SHELL[index].strip().replace("parser/models/", f"{ROOT}/parser/models/")
    result = run_commands(" && ".join(commands.splitlines()), tour, corpora)
    assert result.returncode == 0, result.stderr[-2000:]


def test_the_tour_has_these_blocks() -> None:
    assert len(SHELL) == 6
    assert "polyparse dep train" in SHELL[3] and "polyparse ja train" in SHELL[4]
    assert "polyparse srl train" in SHELL[5] and "polyparse clf train" in SHELL[5]


def test_the_python_tour_prints_what_the_readme_says(tmp_path: Path) -> None:
    (code,) = blocks(README, "python")
    result = run_python(code, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    shown = re.search(r"This prints `([^`]*)`", README).group(1)
    assert shown in result.stdout.splitlines()
