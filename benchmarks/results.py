"""Regenerate docs/results.md: every benchmark in turn, in its own process, writes its section.

    nice -n 19 python benchmarks/results.py [--only NAME,...] [--quick | --full]
                                            [--page docs/results.md] [--corpora DIR]
                                            [--datasets DIR] [--log-dir DIR] [--list]
                                            [--dry-run]

Each benchmark runs as `python benchmarks/NAME.py SETTING --results PAGE` from the checkout
root, where SETTING is the page's setting of that script (BENCHMARKS below): its complete run,
except for the scripts whose complete run takes far longer than 20 minutes, whose page setting
leaves the slowest repeats or runs out (the section says what) and whose complete run is
--full. --quick takes the quick setting of the scripts that have one (smoke-sized: to try the
pipeline, not to publish). --only runs some of them; their sections are replaced in place and
the others kept. A run without --only also drops sections of benchmarks that no longer exist and
puts the sections in the order below. The page's introduction is written by this script.

It prints each command as it starts it and how long it took; each benchmark's JSON records and
its messages go to --log-dir (default: a new temporary folder, printed). A benchmark that fails
is reported with the end of its messages and the others still run; the exit status is then 1.
"""
from __future__ import annotations

import argparse
import datetime
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from machine import machine, read_page, replace_section, section_markers, write_page
from tables import seconds_text

REPO = Path(__file__).resolve().parents[1]
BENCHMARK_FOLDER = Path(__file__).resolve().parent
DEFAULT_PAGE = REPO / "docs" / "results.md"
INTRO = "intro"


@dataclass(frozen=True)
class Benchmark:
    """One script of benchmarks/: the arguments of its section on the page, of its quick
    setting (None: it has none) and of its complete run where the page's setting leaves
    something out (None: the page's setting is complete)."""
    name: str
    page: tuple[str, ...] = ()
    quick: tuple[str, ...] | None = None
    full: tuple[str, ...] | None = None


PA_SLICING_ALL = ("--experiments", "table2,figure1,figure3", "--degrees", "1,2,3")
CPA_PARTS = ("--parts", "training,classification,imbalance,threads,all")
# In the order of the page.
BENCHMARKS = (
    Benchmark("startup", quick=("--runs", "1", "--copies", "2")),
    Benchmark("bundled_model", quick=("--runs", "2")),
    Benchmark("long_sentences", quick=("--sizes", "2000,4000", "--repeat", "1")),
    Benchmark("dep_ewt", quick=("--configs", "linear-rich", "--repeat", "1")),
    Benchmark("dep_beam", quick=("--widths", "4", "--repeat", "1", "--no-blanked")),
    Benchmark("en_raw", quick=("--runs", "1")),
    Benchmark("en_tagger", quick=("--repeat", "1")),
    Benchmark("segmentation_ud", quick=("--treebanks", "en_ewt", "--runs", "1")),
    Benchmark("tagger_ud", quick=("--treebanks", "en_ewt", "--repeat", "1")),
    Benchmark("pipeline_ud", quick=("--treebanks", "hu_szeged")),
    Benchmark("dep_ewt_eval_modes",
              quick=("--modes", "pki,split", "--repeat", "1", "--decision-rows", "200")),
    Benchmark("ja_kwdlc",
              quick=("--configs", "shift-reduce:2", "--copies", "2", "--runs", "1", "--no-wac")),
    Benchmark("ja_raw", quick=("--runs", "1", "--no-gold-morphemes")),
    Benchmark("ja_cabocha", quick=("--runs", "1", "--sentences", "1000")),
    Benchmark("scale_out", quick=("--copies", "2", "--runs", "1", "--parts",
                                  "acceptance,costs")),
    Benchmark("clf_kwdlc", quick=("--runs", "linear-l2,linear-l1")),
    Benchmark("poly2_linear_solvers", quick=("--trains", "train.5k")),
    Benchmark("clf_real_values"),
    Benchmark("kernel_svm_kwdlc", page=("--repeats", "3"), quick=("--repeats", "1")),
    Benchmark("kernel_evaluators", page=("--with-20k",), quick=("--degrees", "2", "--rounds", "1")),
    Benchmark("pa_slicing_kwdlc", page=(*PA_SLICING_ALL, "--repeats", "1"),
              quick=("--experiments", "table2", "--degrees", "1,2",
                     "--strategies", "expand,split,slice"),
              full=(*PA_SLICING_ALL, "--repeats", "2")),
    Benchmark("srl_boundary",
              quick=("--sizes", "5k", "--plain-sizes", "5k", "--kernels", "sst+poly2",
                     "--plain-test-rows", "500", "--voted-sizes", "", "--speed-size", "5k",
                     "--no-headline")),
    Benchmark("tree_svm_srl", page=("--train", "train.5k.tk,train.20k.tk,train.50k.tk", "-j", "1,5",
                                    "--vector", "poly2,none", "--with-all"),
              quick=("--smoke",)),
    Benchmark("cpa_srl", page=(*CPA_PARTS, "--usvm-max-sample", "1000"),
              quick=("--smoke", "--parts", "training,classification,imbalance,threads"),
              full=CPA_PARTS),
)
BY_NAME = {benchmark.name: benchmark for benchmark in BENCHMARKS}
SECTION = re.compile(r"<!-- (\w+): begin -->.*?<!-- \1: end -->\n?", re.DOTALL)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help=f"comma-separated, from {', '.join(BY_NAME)}")
    setting = ap.add_mutually_exclusive_group()
    setting.add_argument("--quick", action="store_true",
                         help="the quick setting of the scripts that have one")
    setting.add_argument("--full", action="store_true",
                         help="the complete run of the scripts whose page setting leaves "
                              "something out")
    ap.add_argument("--page", default=str(DEFAULT_PAGE), help="the results page to write")
    ap.add_argument("--corpora", help="POLYPARSE_CORPORA for the benchmarks")
    ap.add_argument("--datasets", help="POLYPARSE_DATASETS for the benchmarks")
    ap.add_argument("--log-dir", help="where each benchmark's records and messages go")
    ap.add_argument("--list", action="store_true", help="print the benchmarks' names and stop")
    ap.add_argument("--dry-run", action="store_true", help="print the commands and stop")
    args = ap.parse_args()
    if args.list:
        print("\n".join(BY_NAME))
        return 0
    chosen = list(BENCHMARKS)
    if args.only:
        names = [name for name in args.only.split(",") if name]
        unknown = [name for name in names if name not in BY_NAME]
        if unknown:
            ap.error(f"unknown benchmark {unknown[0]!r} (expected one of {', '.join(BY_NAME)})")
        chosen = [benchmark for benchmark in BENCHMARKS if benchmark.name in names]
    page = Path(args.page).resolve()
    shown_page = display_path(page)
    commands = {benchmark.name: command(benchmark, args, shown_page) for benchmark in chosen}
    if args.dry_run:
        for line in commands.values():
            print(shlex.join(line))
        return 0
    env = dict(os.environ)
    for option, variable in (("corpora", "POLYPARSE_CORPORA"), ("datasets", "POLYPARSE_DATASETS")):
        if getattr(args, option):
            env[variable] = str(Path(getattr(args, option)).resolve())
    log_dir = Path(args.log_dir or tempfile.mkdtemp(prefix="polyparse-results-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"results page {shown_page}; records and messages in {log_dir}", flush=True)
    write_intro(page)
    started = time.monotonic()
    failed = []
    for number, benchmark in enumerate(chosen, 1):
        line = commands[benchmark.name]
        print(f"[{number}/{len(chosen)}] {shlex.join(line)}", flush=True)
        seconds, status = run(line, env, log_dir / f"{benchmark.name}.jsonl",
                              log_dir / f"{benchmark.name}.log")
        if status == 0:
            print(f"    done in {seconds_text(seconds)}", flush=True)
        else:
            failed.append(benchmark.name)
            print(f"    FAILED (exit status {status}) after {seconds_text(seconds)}; the end of "
                  f"its messages ({log_dir / benchmark.name}.log):", flush=True)
            print(tail(log_dir / f"{benchmark.name}.log"), flush=True)
    if not args.only:
        tidy(page)
    write_intro(page)
    print(f"{len(chosen) - len(failed)} of {len(chosen)} benchmarks written to {shown_page} in "
          f"{seconds_text(time.monotonic() - started)}"
          + (f"; failed: {', '.join(failed)}" if failed else ""), flush=True)
    return 1 if failed else 0


def display_path(path: Path) -> str:
    """path relative to the checkout root when it is inside it."""
    try:
        return str(path.relative_to(REPO))
    except ValueError:
        return str(path)


def command(benchmark: Benchmark, args: argparse.Namespace, page: str) -> list[str]:
    arguments = benchmark.page
    if args.quick and benchmark.quick is not None:
        arguments = benchmark.quick
    elif args.full and benchmark.full is not None:
        arguments = benchmark.full
    script = display_path(BENCHMARK_FOLDER / f"{benchmark.name}.py")
    return [sys.executable, script, *arguments, "--results", page]


def run(line: list[str], env: dict[str, str], records: Path, messages: Path) -> tuple[float, int]:
    """Run one benchmark from the checkout root: (wall seconds, exit status)."""
    started = time.monotonic()
    with open(records, "w", encoding="utf-8") as out, open(messages, "w",
                                                           encoding="utf-8") as err:
        status = subprocess.run(line, cwd=REPO, env=env, stdout=out, stderr=err,
                                stdin=subprocess.DEVNULL, check=False).returncode
    return time.monotonic() - started, status


def tail(path: Path, lines: int = 15) -> str:
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    return "\n".join(f"    {line}" for line in text[-lines:])


def sections(text: str) -> dict[str, str]:
    """The page's sections by name, each with its markers."""
    return {match.group(1): match.group(0).rstrip("\n") for match in SECTION.finditer(text)}


def tidy(page: Path) -> None:
    """Drop the sections of benchmarks that no longer exist and put the others in the order of
    BENCHMARKS, after the introduction."""
    text = read_page(page)
    found = sections(text)
    title = text.partition("\n")[0]
    kept = [found[name] for name in [INTRO, *BY_NAME] if name in found]
    write_page(page, title + "\n\n" + "\n\n".join(kept) + "\n")


def write_intro(page: Path) -> None:
    """The introduction at the top of the page: what it is, how to regenerate it, the machine,
    and the sections it holds."""
    text = read_page(page)
    found = sections(text)
    contents = []
    for name in BY_NAME:
        if name in found:
            heading = re.search(r"^## (.+)$", found[name], re.MULTILINE)
            title = heading.group(1) if heading else name
            contents.append(f"- [{title}](#{anchor(title)}) (`benchmarks/{name}.py`)")
    begin, end = section_markers(INTRO)
    page_setting = [f"`{b.name}.py {shlex.join(b.page)}`" for b in BENCHMARKS if b.full]
    lines = [
        begin,
        ("Every figure on this page was measured by a script of `benchmarks/` and written here "
        "by it; nothing is pasted by hand. Each section states the exact command that wrote "
        "it, the date, the machine, the commit measured, the niceness and load of the machine "
        "and how long the run took. Figures of other tools appear only where quoted, marked "
        "as quoted, with their source."),
        "",
        ("To regenerate the page from the checkout root, with the corpora and datasets beside "
        "it (`../shared`):"),
        "",
        "    nice -n 19 python benchmarks/results.py                  # every benchmark",
        "    nice -n 19 python benchmarks/results.py --only dep_ewt,ja_kwdlc",
        "    nice -n 19 python benchmarks/results.py --quick          # smoke-sized settings",
        "    nice -n 19 python benchmarks/results.py --full           # nothing left out",
        "",
        "Without --full, " + " and ".join(page_setting) + " leave their slowest runs out (their "
        "sections say what). On a shared machine, timings made inside a benchmark's process "
        "are shown by CPU time where the work runs on one thread; whole processes and "
        "multi-threaded work by wall time, which also counts the waits for other jobs.",
        "",
        (f"Last written by `benchmarks/results.py` on {datetime.date.today().isoformat()}, on "
        f"{machine()}."),
    ]
    if contents:
        lines += ["", *contents]
    lines.append(end)
    write_page(page, replace_section(text, INTRO, "\n".join(lines), at_start=True))


def anchor(title: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation but - and _ dropped, spaces
    as -."""
    kept = re.sub(r"[^\w\- ]", "", title.lower())
    return kept.replace(" ", "-")


if __name__ == "__main__":
    sys.exit(main())
