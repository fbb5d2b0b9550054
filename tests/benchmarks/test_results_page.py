"""docs/results.md is written by the benchmarks: machine.publish replaces one section in place
and keeps the rest of the page, and benchmarks/results.py runs every benchmark script (none
forgotten), each with a --results option."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
# Modules the scripts import, and results.py itself: not benchmarks.
NOT_BENCHMARKS = {"machine.py", "tables.py", "child_process.py", "conllu_columns.py", "results.py",
                  "knp_corpora.py", "ud_treebanks.py", "__init__.py"}


def load(name: str) -> ModuleType:
    """A module of benchmarks/ by its file; the modules it imports come from its folder, as
    when the script runs."""
    spec = importlib.util.spec_from_file_location(f"benchmarks_{name}", BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    with pytest.MonkeyPatch.context() as patch:
        patch.syspath_prepend(str(BENCHMARKS))
        patch.setitem(sys.modules, spec.name, module)
        spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def machine() -> ModuleType:
    return load("machine")


def test_publish_replaces_its_section_in_place_and_keeps_the_others(
        machine: ModuleType, tmp_path: Path) -> None:
    page = tmp_path / "docs" / "results.md"
    machine.publish(page, "first", "First", ["| a |", "|---|", "| 1 |"], command="python one.py")
    machine.publish(page, "second", "Second", ["second's table"], command="python two.py")
    text = page.read_text(encoding="utf-8")
    page.write_text(text.replace("# Results\n", "# Results\n\nwritten by hand\n"),
                    encoding="utf-8")
    machine.publish(page, "first", "First, again", ["| a |", "|---|", "| 2 |"],
                    command="python one.py --again")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# Results\n\nwritten by hand\n")
    assert text.index("## First, again") < text.index("## Second")
    assert text.count("<!-- first: begin -->") == text.count("<!-- first: end -->") == 1
    assert "| 2 |" in text and "| 1 |" not in text and "## First\n" not in text
    assert "second's table" in text and "`python two.py`" in text
    assert "`python one.py --again`: " in text
    assert [path.name for path in page.parent.iterdir()] == ["results.md"]


def test_a_section_states_its_command_and_the_machine(machine: ModuleType,
                                                      tmp_path: Path) -> None:
    page = tmp_path / "results.md"
    machine.publish(page, "some", "Some", ["body"])
    header = page.read_text(encoding="utf-8").split("\n")[5]
    assert header.startswith("`python ") and machine.machine() in header
    assert "load average" in header and "the run took" in header


@pytest.fixture(scope="module")
def results() -> ModuleType:
    return load("results")


def test_results_lists_every_benchmark_script(results: ModuleType) -> None:
    scripts = {path.stem for path in BENCHMARKS.glob("*.py") if path.name not in NOT_BENCHMARKS}
    listed = subprocess.run([sys.executable, "benchmarks/results.py", "--list"], cwd=ROOT,
                            capture_output=True, text=True, check=True).stdout.split()
    assert sorted(listed) == sorted(scripts)
    assert len(listed) == len(set(listed)) == len(results.BENCHMARKS)


def test_every_benchmark_takes_results(results: ModuleType) -> None:
    for benchmark in results.BENCHMARKS:
        source = (BENCHMARKS / f"{benchmark.name}.py").read_text(encoding="utf-8")
        # Directly, or through ud_treebanks.run_per_treebank (records.finish(args.results, ...)).
        writes = any(call in source for call in ("publish(", "records.finish(args.results",
                                                 "run_per_treebank("))
        assert '"--results"' in source and writes, benchmark.name


def test_results_help_and_dry_run() -> None:
    done = subprocess.run([sys.executable, "benchmarks/results.py", "--help"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout.startswith("usage:")
    assert "--only" in done.stdout and "--quick" in done.stdout
    done = subprocess.run([sys.executable, "benchmarks/results.py", "--dry-run", "--quick",
                           "--only", "cpa_srl,dep_ewt"], cwd=ROOT, capture_output=True,
                          text=True, check=True)
    assert [line.split()[1:] for line in done.stdout.splitlines()] == [
        ["benchmarks/dep_ewt.py", "--configs", "linear-rich", "--repeat", "1", "--results",
         "docs/results.md"],
        ["benchmarks/cpa_srl.py", "--smoke", "--parts", ("training,classification,imbalance,"
         "threads"), "--results", "docs/results.md"]]


def test_an_unknown_benchmark_is_one_line() -> None:
    done = subprocess.run([sys.executable, "benchmarks/results.py", "--only", "speed"],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and "unknown benchmark 'speed'" in done.stderr


def test_tidy_orders_the_sections_and_drops_stale_ones(machine: ModuleType, results: ModuleType,
                                                      tmp_path: Path) -> None:
    page = tmp_path / "results.md"
    for name in ("cpa_srl", "retired_benchmark", "startup"):
        machine.publish(page, name, name, [f"{name} body"], command=f"python {name}.py")
    results.write_intro(page)
    results.tidy(page)
    text = page.read_text(encoding="utf-8")
    assert "retired_benchmark" not in text
    assert text.index("<!-- intro: begin -->") < text.index("## startup") < text.index(
        "## cpa_srl")
    assert "[startup](#startup)" in text


def test_the_committed_pages_have_one_section_each_and_no_merge_leftovers() -> None:
    """docs/*.md and the README as committed: every results section begins and ends once, and no
    line is a merge-conflict marker (a merge once left both sides of docs/results.md)."""
    import re

    for page in [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]:
        text = page.read_text(encoding="utf-8")
        markers = re.findall(r"^(?:<{7} |={7}$|>{7} )", text, flags=re.M)
        assert not markers, f"{page.name}: merge-conflict markers"
        for name in re.findall(r"<!-- ([\w-]+): begin -->", text):
            assert text.count(f"<!-- {name}: begin -->") == 1, f"{page.name}: {name} twice"
            assert text.count(f"<!-- {name}: end -->") == 1, f"{page.name}: {name} unended"
