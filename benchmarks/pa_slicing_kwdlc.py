"""pa-slicing on kwdlc_dep: the kernel-slicing paper's Table 2 and Figures 1 and 3.

    python benchmarks/pa_slicing_kwdlc.py [--datasets DIR] [--experiments table2,figure1,figure3]
                                          [--degrees 1,2,3] [--strategies kernel,expand,split,slice]
                                          [--iterations 20] [--seed 1] [--repeats 1]
                                          [--markdown FILE] [--results docs/results.md]

Yoshinaga & Kitsuregawa 2010 (COLING), Table 2: training time and memory of PA-I with the
polynomial kernel of degree d = 1, 2, 3, 20 iterations, averaged, for each way of computing the
margins (here the strategies `kernel` (PKI), `expand` (N = |F|), `split` (kernel splitting) and
`slice` (kernel slicing), with N as in datasets/README.md: split 1000, slice 4000 at d = 2 and
250 at d = 3), and test accuracy. Figure 1: training time as a function of N (split and slice,
d = 2 and 3). Figure 3: training time as a function of the number of training examples
(train.5k/20k/50k/full).

Every training run is `polyparse clf train --classifier pa-slicing ... --json` in a child
process, alone on the machine as far as this script goes (one run at a time): training seconds
are the fit alone (the child's JSON; the least of --repeats runs; the kernel strategy and runs
over a minute are not repeated),
peak memory the child's maximum resident set (it includes
Python, NumPy and reading train.svm, whose floor is measured once by a child that only reads
the file; the learner's own table, partial-margin table and inverted index sizes are reported
beside it). Test accuracy comes from the saved model on test.svm. Each measurement is printed as
one JSON object (benchmarks/machine.py); a run of the same settings is measured once and reused
across experiments. The closing records check the figures pa-slicing is held to against opal's
reference times (datasets/README.md): d=2 accuracy >= 92.5 % with time <= 1.5 x 4.7 s and
<= 1/50 of our own kernel strategy; d=3 accuracy >= 92.8 % with slice memory <= 1/3 of expand.

The whole run (the three experiments at d = 1, 2, 3, every strategy) takes about 50 minutes of
training on an idle 2-core machine, most of it the kernel strategy and Figure 1 at d = 3, with
--repeats 1; --repeats 2 (the least of two runs of each setting under a minute) adds about ten.
The child's CPU time (user + system) is kept beside the fit's wall time, since on a shared
machine the wall time also counts the waits. With --results, the run's section of
docs/results.md is written.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

from kernel_svm_kwdlc import child
from machine import publish, record
from tables import grouped, markdown_table, seconds_text, significant

REPO = Path(__file__).resolve().parents[1]

N_TABLE2 = {("split", 1): None, ("split", 2): 1000, ("split", 3): 250,
            ("slice", 1): None, ("slice", 2): 4000, ("slice", 3): 250}
# N = 0 is the kernel strategy's cost with more bookkeeping (every feature rare): left out.
N_FIGURE1 = {2: [125, 250, 500, 1000, 2000, 4000, 8000, 16000, 32000],
             3: [31, 62, 125, 250, 500, 1000]}
SIZES = ["train.5k.svm", "train.20k.svm", "train.50k.svm", "train.svm"]
OPAL_D2_BEST_SECONDS = 4.7
# opal (PA-I, 20 iterations, averaged) on the same files, quoted from datasets/README.md:
# training time, peak memory, test accuracy, by (d, strategy).
OPAL_QUOTED = {(1, "expand"): "0.7 s, 26 MB, 88.86 %", (2, "kernel"): "360 s, 45 MB, 92.53 %",
               (2, "expand"): "10.4 s, 134 MB, 92.55 %", (2, "split"): "4.7 s, 31 MB, 92.49 %",
               (2, "slice"): "7.5 s, 80 MB, 92.82 %", (3, "kernel"): "292 s, 49 MB, 92.96 %",
               (3, "expand"): "151.6 s, 991 MB, 92.88 %", (3, "slice"): "10.6 s, 77 MB, 92.90 %"}
# Runs slower than this are not repeated.
SLOW_SECONDS = 60.0
READ_ONLY = ("import sys; from polyparse.features.svmlight import read_svmlight; "
             "read_svmlight(sys.argv[1])")
# Test accuracy of a saved model, in its own process: the parent stays small, since a child's
# peak RSS also counts the parent's pages it was forked from.
EVALUATE = r"""
import json, sys
import numpy as np
from polyparse.classifiers.online.pa_slicing import PASlicing
from polyparse.features.svmlight import read_svmlight
clf = PASlicing.load(sys.argv[1])
X, y = read_svmlight(sys.argv[2])
print(json.dumps({"accuracy": 100.0 * float(np.mean(clf.predict(X) == y)),
                  "n_sv": clf.n_support_vectors, "stats": clf.stats_["outputs"][0],
                  "n_common": clf.stats_["n_common"]}))
"""


class Runner:
    """Train once per distinct setting (child process), keep the results."""

    def __init__(self, folder: Path, scratch: Path, iterations: int, seed: int,
                 repeats: int) -> None:
        self.folder, self.scratch = folder, scratch
        self.iterations, self.seed, self.repeats = iterations, seed, repeats
        self.results: dict[tuple, dict] = {}

    def train(self, train: str, degree: int, strategy: str, n_common: int | None) -> dict:
        key = (train, degree, strategy, n_common)
        if key in self.results:
            return self.results[key]
        model = self.scratch / f"{Path(train).stem}.d{degree}.{strategy}.{n_common}.model"
        argv = [sys.executable, "-m", "polyparse.parser.cli.main", "clf", "train",
                str(self.folder / train),
                "--model", str(model), "--classifier", "pa-slicing", "--degree", str(degree),
                "--strategy", strategy, "--iterations", str(self.iterations), "--average",
                "--seed", str(self.seed), "--json"]
        if n_common is not None:
            argv += ["--n-common", str(n_common)]
        print(f"# training {' '.join(argv[3:])}", file=sys.stderr, flush=True)
        runs = []
        for _ in range(self.repeats if strategy != "kernel" else 1):
            text, wall, cpu, rss = child(argv)
            runs.append((json.loads(text.strip().splitlines()[-1]), wall, cpu, rss))
            if runs[-1][0]["seconds"] > SLOW_SECONDS:
                break
        summary, wall, cpu, rss = min(runs, key=lambda run: run[0]["seconds"])
        evaluated, *_ = child([sys.executable, "-c", EVALUATE, str(model),
                               str(self.folder / "test.svm")])
        result = json.loads(evaluated.strip().splitlines()[-1])
        result.update(seconds=summary["seconds"], wall=wall, cpu=cpu, rss=rss, model=str(model),
                      runs=[round(run[0]["seconds"], 3) for run in runs])
        self.results[key] = result
        return result


def emit(rows: list[dict], what: str, data: str, figure: float, unit: str, **extra) -> None:
    item = record(what, data, figure, unit, **extra)
    rows.append(item)
    print(json.dumps(item), flush=True)


def run_record(rows: list[dict], experiment: str, train: str, degree: int, strategy: str,
               n_common: int | None, result: dict, floor: float) -> None:
    stats = result["stats"]
    data = f"kwdlc_dep {train} -> test.svm"
    settings = dict(experiment=experiment, degree=degree, strategy=strategy,
                    n_asked=n_common, n_common=result["n_common"], steps=stats["steps"],
                    accuracy=round(result["accuracy"], 2), n_support_vectors=result["n_sv"],
                    peak_rss_mib=round(result["rss"], 1),
                    peak_rss_above_floor_mib=round(result["rss"] - floor, 1),
                    table_mib=round(stats.get("peak_table_bytes", 0) / 2**20, 2),
                    partial_margin_mib=round(stats.get("partial_margin_bytes", 0) / 2**20, 2),
                    inverted_index_mib=round(stats.get("inverted_index_bytes", 0) / 2**20, 2),
                    updates=stats["updates"], halvings=stats["halvings"], runs=result["runs"],
                    cpu_seconds_child=round(result["cpu"], 3))
    if strategy == "slice":
        settings.update(margins_ended_early=stats["margins_ended_early"],
                        slices=stats["slices"], slices_reused=stats["slices_reused"],
                        slices_refreshed=stats["slices_refreshed"],
                        slices_skipped=stats["slices_skipped"])
    emit(rows, f"training seconds, pa-slicing d={degree} {strategy}", data,
         round(result["seconds"], 3), "s", **settings)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding kwdlc_dep/")
    ap.add_argument("--experiments", default="table2,figure1,figure3")
    ap.add_argument("--degrees", default="1,2,3")
    ap.add_argument("--strategies", default="kernel,expand,split,slice")
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeats", type=int, default=1,
                    help="training runs of each setting but kernel's (the least time is kept)")
    ap.add_argument("--markdown", help="also write markdown tables to this file")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    folder = Path(args.datasets) / "kwdlc_dep"
    if not (folder / "train.svm").is_file() or not (folder / "test.svm").is_file():
        print(f"pa_slicing_kwdlc: {folder} lacks train.svm or test.svm", file=sys.stderr)
        return 2
    experiments = args.experiments.split(",")
    degrees = [int(d) for d in args.degrees.split(",")]
    strategies = args.strategies.split(",")
    rows: list[dict] = []
    _, _, floor_cpu, floor = child([sys.executable, "-c", READ_ONLY, str(folder / "train.svm")])
    emit(rows, "peak RSS of a child that only reads train.svm (the floor of every run)",
         "kwdlc_dep train.svm", round(floor, 1), "MiB", cpu_seconds=round(floor_cpu, 2))
    with tempfile.TemporaryDirectory() as scratch:
        runner = Runner(folder, Path(scratch), args.iterations, args.seed, max(1, args.repeats))
        if "table2" in experiments:
            for degree in degrees:
                for strategy in strategies:
                    n = N_TABLE2.get((strategy, degree))
                    result = runner.train("train.svm", degree, strategy, n)
                    run_record(rows, "table2", "train.svm", degree, strategy, n, result, floor)
        if "figure1" in experiments:
            for degree in (d for d in degrees if d in N_FIGURE1):
                for strategy in (s for s in ("split", "slice") if s in strategies):
                    for n in N_FIGURE1[degree]:
                        result = runner.train("train.svm", degree, strategy, n)
                        run_record(rows, "figure1", "train.svm", degree, strategy, n, result,
                                   floor)
        if "figure3" in experiments:
            for degree in (d for d in degrees if d > 1):
                for strategy in strategies:
                    n = N_TABLE2.get((strategy, degree))
                    for train in SIZES:
                        result = runner.train(train, degree, strategy, n)
                        run_record(rows, "figure3", train, degree, strategy, n, result, floor)
        exactness(rows, runner.results)
        acceptance(rows, runner.results)
    if args.markdown:
        write_markdown(args.markdown, rows)
    if args.results:
        publish(args.results, "pa_slicing_kwdlc", "pa-slicing on kwdlc_dep (kernel slicing)",
                section(args, rows))
    return 0


def runs_of(rows: list[dict], experiment: str) -> list[dict]:
    return [row for row in rows if row.get("experiment") == experiment]


def training_cell(row: dict) -> str:
    return f"{seconds_text(row['figure'])} ({seconds_text(row['cpu_seconds_child'])})"


def section(args: argparse.Namespace, rows: list[dict]) -> list[str]:
    floor = next(row for row in rows if row["what"].startswith("peak RSS of a child"))
    repeats = max(1, args.repeats)
    lines = [f"PA-I, {args.iterations} passes, averaged, seed {args.seed}, `train.svm` -> "
             "`test.svm` (Yoshinaga & Kitsuregawa 2010). Every training run is `polyparse clf "
             "train --classifier pa-slicing` in a child process, one at a time: training is the "
             "fit's wall time as the command reports it, with the whole command's CPU time in "
             f"brackets (starting Python and reading `train.svm` alone take "
             f"{seconds_text(floor['cpu_seconds'])} CPU); peak memory is the child's maximum "
             f"RSS ({grouped(floor['figure'])} MiB of it for reading `train.svm`). "
             + ("Each setting ran once (`--repeats 1`): **left out** are the repeated runs "
                "(`--repeats 2` keeps the least of two runs of each setting under a minute)."
                if repeats == 1 else
                f"The least of {repeats} runs of each setting under a minute; longer ones ran "
                "once.")]
    table2 = runs_of(rows, "table2")
    if table2:
        lines += ["", ("**Table 2 of the paper**; opal's figures **quoted from "
                  "`datasets/README.md`** (single runs on a busy machine of this kind):"), ""]
        lines += markdown_table(
            ["d", "strategy (N)", "training: fit wall (command CPU)", "peak memory", "accuracy",
             "opal (quoted)"],
            ([row["degree"], row["strategy"] + (f" (N = {row['n_asked']:,})"
                                                 if row["n_asked"] else ""),
              training_cell(row), f"{grouped(row['peak_rss_mib'])} MiB",
              f"{row['accuracy']:.2f} %", OPAL_QUOTED.get((row["degree"], row["strategy"]), "")]
             for row in table2))
        same = [row for row in rows if row["what"].startswith("exactness")]
        if same:
            all_same = all(row["same_support_set"] for row in same)
            largest = max((row["figure"] for row in same if row["figure"] is not None),
                          default=0.0)
            lines += ["", ("Every strategy gives the same model: each run has the support "
                           "vectors of the reference run of its degree and data (the kernel "
                           "strategy's where it ran), with coefficients within "
                           f"{largest:.1e} (relative) of its." if all_same else
                           "**The strategies' support sets differ** (see the JSON records).")]
        checks = [row for row in rows if row["what"].startswith("acceptance")]
        if checks:
            lines += ["", "The figures pa-slicing is held to (targets from opal's times):", ""]
            lines += markdown_table(
                ["check", "measured", "target", "met"],
                ([row["what"].removeprefix("acceptance "), (f"{significant(row['figure'])} "
                  f"{row['unit']}"), significant(row.get("target", row.get("target_seconds"))),
                  "yes" if row["met"] else "**no**"] for row in checks))
    figure1 = runs_of(rows, "figure1")
    if figure1:
        sizes = sorted({row["n_asked"] for row in figure1})
        cells = {(row["degree"], row["strategy"], row["n_asked"]): row for row in figure1}
        lines += ["", ("**Figure 1 of the paper**: training time (fit, wall) against N, the number "
                  "of common features whose conjunctions sit in the table; table memory in "
                  "brackets where it is 10 MiB or more:"), ""]
        table = []
        for degree, strategy in dict.fromkeys((row["degree"], row["strategy"])
                                              for row in figure1):
            line = [degree, strategy]
            for n in sizes:
                row = cells.get((degree, strategy, n))
                line.append("" if row is None else seconds_text(row["figure"]) + (
                    f" ({significant(row['table_mib'])} MiB)" if row["table_mib"] >= 10 else ""))
            table.append(line)
        lines += markdown_table(["d", "N"] + [f"{n:,}" for n in sizes], table)
    figure3 = runs_of(rows, "figure3")
    if figure3:
        files = [name for name in SIZES if any(row["data"].split()[1] == name
                                               for row in figure3)]
        cells = {(row["degree"], row["strategy"], row["data"].split()[1]): row
                 for row in figure3}
        lines += ["", ("**Figure 3 of the paper**: training time (fit, wall; command CPU in "
                  "brackets) against the number of training examples, N as in Table 2:"), ""]
        table = []
        for degree, strategy in dict.fromkeys((row["degree"], row["strategy"])
                                              for row in figure3):
            table.append([degree, strategy] + [
                "" if (degree, strategy, name) not in cells
                else training_cell(cells[(degree, strategy, name)]) for name in files])
        lines += markdown_table(["d", "strategy"] + [name.removesuffix(".svm").replace(
            "train.", "") if name != "train.svm" else "all (77,428)" for name in files], table)
    return lines


COMPARE = r"""
import json, sys
import numpy as np
from polyparse.classifiers.online.pa_slicing import PASlicing
reference = PASlicing.load(sys.argv[1]).expansion_
for path in sys.argv[2:]:
    other = PASlicing.load(path).expansion_
    same_set = other.support_vectors == reference.support_vectors
    a, b = reference.coefficients, other.coefficients
    relative = (float(np.max(np.abs(a - b) / np.maximum(np.abs(a), 1e-300)))
                if same_set and a.shape == b.shape else None)
    absolute = float(np.max(np.abs(a - b))) if relative is not None else None
    print(json.dumps({"path": path, "same_support_set": bool(same_set),
                      "largest_relative_difference": relative,
                      "largest_absolute_difference": absolute}))
"""


def exactness(rows: list[dict], results: dict) -> None:
    """Support sets and coefficients of the strategies' models against the kernel strategy's
    (or the first trained) on the same data and degree."""
    groups: dict[tuple, list] = {}
    for (train, degree, strategy, n_common), result in results.items():
        groups.setdefault((train, degree), []).append((strategy, n_common, result))
    for (train, degree), runs in groups.items():
        runs.sort(key=lambda run: run[0] != "kernel")
        if len(runs) < 2:
            continue
        text, *_ = child([sys.executable, "-c", COMPARE, runs[0][2]["model"]]
                         + [run[2]["model"] for run in runs[1:]])
        for (strategy, n_common, _), line in zip(runs[1:], text.strip().splitlines()):
            compared = json.loads(line)
            emit(rows, f"exactness d={degree}: {strategy} (N={n_common}) against {runs[0][0]}",
                 f"kwdlc_dep {train}", compared["largest_relative_difference"], "relative",
                 same_support_set=compared["same_support_set"],
                 largest_absolute_difference=compared["largest_absolute_difference"])


def acceptance(rows: list[dict], results: dict) -> None:
    """The figures pa-slicing is held to, from the runs on the full train.svm."""
    data = "kwdlc_dep train.svm -> test.svm"
    full = {(d, s): r for (train, d, s, n), r in results.items()
            if train == "train.svm" and n == N_TABLE2.get((s, d))}
    d2 = [(r["seconds"], s, r) for (d, s), r in full.items() if d == 2 and s in ("split",
                                                                               "slice")]
    if d2:
        seconds, strategy, best = min(d2, key=lambda item: item[0])
        emit(rows, "acceptance d=2: best of split/slice, training seconds", data,
             round(seconds, 3), "s", strategy=strategy, accuracy=round(best["accuracy"], 2),
             target_seconds=round(1.5 * OPAL_D2_BEST_SECONDS, 2),
             met=seconds <= 1.5 * OPAL_D2_BEST_SECONDS,
             accuracy_target=92.5, accuracy_met=best["accuracy"] >= 92.5)
        if (2, "kernel") in full:
            ratio = full[(2, "kernel")]["seconds"] / seconds
            emit(rows, "acceptance d=2: kernel strategy time / best split-slice time", data,
                 round(ratio, 1), "x", target=50, met=ratio >= 50)
    if (3, "slice") in full:
        slice3 = full[(3, "slice")]
        emit(rows, "acceptance d=3: slice test accuracy", data, round(slice3["accuracy"], 2),
             "%", target=92.8, met=slice3["accuracy"] >= 92.8)
        if (3, "expand") in full:
            expand3 = full[(3, "expand")]
            ratio = slice3["rss"] / expand3["rss"]
            emit(rows, "acceptance d=3: slice peak RSS / expand peak RSS", data,
                 round(ratio, 3), "ratio", slice_mib=round(slice3["rss"], 1),
                 expand_mib=round(expand3["rss"], 1), target=1 / 3, met=ratio <= 1 / 3)


def write_markdown(path: str, rows: list[dict]) -> None:
    lines = [("| experiment | data | d | strategy | N | seconds | peak RSS MiB | table MiB | "
             "accuracy % | SVs |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        if "experiment" not in row:
            continue
        lines.append(
            f"| {row['experiment']} | {row['data'].split()[1]} | {row['degree']} | "
            f"{row['strategy']} | {row['n_common']} | {row['figure']} | {row['peak_rss_mib']} | "
            f"{row['table_mib']} | {row['accuracy']} | {row['n_support_vectors']} |")
    lines += ["", "| measurement | figure | unit | target | met |", "|---|---|---|---|---|"]
    for row in rows:
        if row["what"].startswith("acceptance"):
            target = row.get("target", row.get("target_seconds"))
            lines.append(f"| {row['what']} | {row['figure']} | {row['unit']} | {target} | "
                         f"{row.get('met')} |")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    started = time.perf_counter()
    code = main()
    print(f"# {time.perf_counter() - started:.0f} s", file=sys.stderr)
    raise SystemExit(code)
