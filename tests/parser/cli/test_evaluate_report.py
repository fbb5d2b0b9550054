"""`dep evaluate --html` and `ja evaluate --html` run as a user runs them: the scores printed
as without the report (a JSON object a system), the report holding the same, a second system
only with a report, options checked before the data, one-line errors, nothing left on a
signal."""
from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest

from tests.child_processes import HANG_GUARD_SECONDS
from tests.parser.cli.test_show import KNP
from tests.parser.cli.user_runs import (
    POLYPARSE,
    check_a_signal_while_the_input_waits,
    one_line,
    polyparse,
)
from tests.parser.views.pages import (
    page_json_lines,
    page_score_cells,
    page_sentences,
    score_cells,
)
from tests.parser.views.test_bunsetsu_report import WRONG
from tests.parser.views.test_dependency_report import GOLD, SYSTEM_A, SYSTEM_B


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    found = {}
    for name, text in (("gold.conllu", GOLD), ("a.conllu", SYSTEM_A), ("b.conllu", SYSTEM_B),
                       ("gold.knp", KNP), ("a.knp", WRONG)):
        found[name] = tmp_path / name
        found[name].write_text(text, encoding="utf-8")
    return found


def test_the_report_holds_the_scores_the_command_prints(files: dict[str, Path],
                                                        tmp_path: Path) -> None:
    plain = polyparse("dep", "evaluate", str(files["gold.conllu"]), str(files["a.conllu"]),
                      "--json")
    report = tmp_path / "report.html"
    with_report = polyparse("dep", "evaluate", str(files["gold.conllu"]), "-", "--json",
                            "--html", str(report), input=SYSTEM_A)
    assert with_report.returncode == 0, with_report.stderr
    assert with_report.stdout == plain.stdout
    assert with_report.stderr == f"polyparse: report written to {report}\n"
    page = report.read_text(encoding="utf-8")
    assert page_json_lines(page) == [plain.stdout.strip()]
    scores = json.loads(plain.stdout)
    assert page_score_cells(page) == score_cells(scores)
    assert "system: <code>&lt;stdin&gt;</code>" in page
    assert [s["id"] for s in page_sentences(page)] == ["crossing-1", "dogs"]
    text = polyparse("dep", "evaluate", str(files["gold.conllu"]), str(files["a.conllu"]),
                     "--html", str(report), "-q")
    assert text.stdout == polyparse("dep", "evaluate", str(files["gold.conllu"]),
                                    str(files["a.conllu"])).stdout and text.stderr == ""


def test_two_systems_print_a_line_each(files: dict[str, Path], tmp_path: Path) -> None:
    report = tmp_path / "two.html"
    result = polyparse("dep", "evaluate", str(files["gold.conllu"]), str(files["a.conllu"]),
                       str(files["b.conllu"]), "--html", str(report), "--json")
    assert result.returncode == 0, result.stderr
    first, second = (json.loads(line) for line in result.stdout.splitlines())
    assert (first["LAS"], second["LAS"]) == (75.0, 75.0)
    assert len(page_json_lines(report.read_text(encoding="utf-8"))) == 2
    lines = polyparse("dep", "evaluate", str(files["gold.conllu"]), str(files["a.conllu"]),
                      str(files["b.conllu"]), "--html", str(report)).stdout.splitlines()
    assert lines[0].startswith(f"{files['a.conllu']}: UAS ")
    assert lines[1].startswith(f"{files['b.conllu']}: UAS ")


@pytest.mark.parametrize("group", ["dep", "ja"])
def test_options_are_checked_before_the_data(files: dict[str, Path], tmp_path: Path,
                                             group: str) -> None:
    """The system is a FIFO nobody writes: a command that read it before finding its options
    wrong would hang."""
    fifo = tmp_path / "never-written"
    os.mkfifo(fifo)
    gold = str(files["gold.conllu" if group == "dep" else "gold.knp"])
    command = f"{group} evaluate"
    cases = [
        ([gold, str(fifo), str(fifo)], f"{command}: a second system file is compared in a "
                                       "report: add --html REPORT"),
        ([gold, "-", "-", "--html", str(tmp_path / "r.html")],
         f"{command}: only one system output may come from stdin"),
        ([gold, str(fifo), "--html", str(tmp_path / "no" / "r.html")], "no such folder"),
        ([gold, str(fifo), "--html", gold], "the report would overwrite an input"),
    ]
    for argv, message in cases:
        one_line(polyparse(group, "evaluate", *argv, timeout=HANG_GUARD_SECONDS), message)
    assert sorted(os.listdir(tmp_path)) == sorted([*(p.name for p in files.values()),
                                                   "never-written"])


def test_ja_report_and_its_limits(files: dict[str, Path], tmp_path: Path) -> None:
    report = tmp_path / "ja.html"
    plain = polyparse("ja", "evaluate", str(files["gold.knp"]), str(files["a.knp"]), "--json")
    result = polyparse("ja", "evaluate", str(files["gold.knp"]), str(files["a.knp"]), "--json",
                       "--html", str(report))
    assert result.returncode == 0, result.stderr
    assert result.stdout == plain.stdout
    page = report.read_text(encoding="utf-8")
    assert page_json_lines(page) == [plain.stdout.strip()]
    assert [s["id"] for s in page_sentences(page)] == ["ja-1"]
    one_line(polyparse("ja", "evaluate", str(files["gold.knp"]), str(files["a.knp"]), "--html",
                       str(report), "--by-characters"), "does not go with --by-characters")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_reading_leaves_nothing(files: dict[str, Path], tmp_path: Path,
                                               signum: int) -> None:
    """The system output comes from stdin, a pipe held open here: once far more than a pipe
    holds has been written into it, the run is reading it (its signal handlers set), and it
    waits for the rest; the signal ends it with no report and no temporary file."""
    folder = tmp_path / "out"
    folder.mkdir()
    argv = [POLYPARSE, "dep", "evaluate", str(files["gold.conllu"]), "-", "--html",
            str(folder / "r.html")]
    # Three times what a Linux pipe holds.
    check_a_signal_while_the_input_waits(argv, SYSTEM_A.encode() * 400, folder, signum)
