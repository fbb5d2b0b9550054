"""linear and poly2-linear on kwdlc_dep (J.DepP's bunsetsu dependency decisions), train -> test.

    python benchmarks/clf_kwdlc.py [--datasets DIR] [--runs linear-l2,poly2-linear-l2,...]
                                   [--markdown FILE] [--results docs/results.md]

Prints one JSON object per measurement (what, data, figure, unit, machine, settings) and, with
--results, writes its section of docs/results.md. Each
training and each prediction runs `polyparse clf ...` in a child process; its wall time is
measured here, its CPU time and peak memory come from the child's own rusage (os.wait4:
ru_maxrss, the child's maximum resident set size, which includes the Python interpreter and
NumPy; a child that only imports the modules and reads train.svm is measured as the baseline).
Training time is reported twice: the whole command (read, train, write the model) and the
`fit` call alone (as the CLI reports it). Compare with the LIBLINEAR-POLY2 and liblinear rows of
datasets/README.md (REF_POLY2_ACC=92.23).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import Records, publish
from tables import grouped, markdown_table, seconds_text, significant

REPO = Path(__file__).resolve().parents[1]

DATA = "kwdlc_dep train.svm -> test.svm"
RUNS = ("linear-l2", "linear-l1", "poly2-linear-l2", "poly2-linear-l1")
# datasets/kwdlc_dep's README: other tools on the same files (quoted, not measured here).
QUOTED = [
    ("LIBLINEAR-POLY2 2.01, L2 loss (features seen >= 3 times, remapped)", "92.23 %",
     "30 min 51 s", "4.1 GB"),
    ("LIBLINEAR-POLY2 2.01, L1 loss (the same files)", "92.18 %", "281 s CPU", "4.1 GB"),
    ("liblinear 2.3, L2 loss, C=1", "87.81 %", "9.8 s", "51 MB"),
]


def child(argv: list[str]) -> tuple[str, float, float, float]:
    """Run a child process: (stdout, wall seconds, CPU seconds, peak RSS in MiB)."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=errors)
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        if process.returncode != 0:
            errors.seek(0)
            message = errors.read().decode(errors="replace")
            raise RuntimeError(f"{' '.join(argv)} failed: {message}")
    return out.decode(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def polyparse(*args: str) -> list[str]:
    return [sys.executable, "-m", "polyparse.parser.cli.main", *args]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding kwdlc_dep/")
    ap.add_argument("--runs", default=",".join(RUNS), help=f"comma-separated, from {RUNS}")
    ap.add_argument("--markdown", help="also write a markdown table to this file")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    folder = Path(args.datasets) / "kwdlc_dep"
    train, test = folder / "train.svm", folder / "test.svm"
    if not train.is_file() or not test.is_file():
        print(f"clf_kwdlc: {folder} has no train.svm/test.svm", file=sys.stderr)
        return 2
    records = Records(DATA)
    emit = records.emit

    baseline = (
        "import numpy, features.svmlight as s, classifiers.linear.poly2_linear_svm, parser.cli.clf;"
        f"s.read_svmlight({str(train)!r})"
    )
    _, _, _, rss = child([sys.executable, "-c", baseline])
    emit("peak memory, baseline (import modules, read train.svm)", round(rss, 1), "MiB")

    with tempfile.TemporaryDirectory() as scratch:
        for run in args.runs.split(","):
            classifier, loss = run.rsplit("-", 1)
            model = Path(scratch) / f"{run}.model"
            settings = {"classifier": classifier, "loss": loss, "C": 1.0}
            out, wall, cpu, rss = child(polyparse(
                "clf", "train", str(train), "--model", str(model), "--classifier", classifier,
                "--loss", loss, "--json",
            ))
            summary = json.loads(out)
            settings.update(iterations=max(summary["iterations"]),
                            converged=all(summary["converged"]))
            emit("training time (read, fit, write model)", round(wall, 2), "s", **settings)
            emit("training time (fit only)", summary["seconds"], "s", **settings)
            emit("training CPU time (child user+system)", round(cpu, 2), "s", **settings)
            emit("training peak memory (child ru_maxrss)", round(rss, 1), "MiB", **settings)
            emit("dual objective", summary["objective"][0], "", **settings)
            emit("model file size", round(model.stat().st_size / 2**20, 2), "MiB", **settings)
            out, _, _, rss = child(polyparse(
                "clf", "predict", "--model", str(model), str(test), "--json"))
            result = json.loads(out)
            emit("test accuracy", round(result["accuracy"], 2), "%", **settings)
            emit("prediction time per example (scoring only)",
                 round(result["microseconds_per_example"], 2), "us", **settings)
            emit("prediction peak memory (child ru_maxrss)", round(rss, 1), "MiB", **settings)
    if args.markdown:
        lines = records.markdown_table()
        lines.append(f"\n{DATA}; {records.host}\n")
        Path(args.markdown).write_text("\n".join(lines), encoding="utf-8")
    if args.results:
        publish(args.results, "clf_kwdlc", "linear and poly2-linear on kwdlc_dep",
                section(args.runs.split(","), records))
    return 0


def section(runs: list[str], records: Records) -> list[str]:
    rows = []
    for run in runs:
        classifier, loss = run.rsplit("-", 1)

        def figure(what: str, classifier: str = classifier, loss: str = loss) -> object:
            return records.figure(what, classifier=classifier, loss=loss)

        fit = records.find("training time (fit only)", classifier=classifier, loss=loss)
        rows.append([f"polyparse `{classifier}`, {loss.upper()} loss, C=1",
                     f"{figure('test accuracy'):.2f} %",
                     (f"{seconds_text(figure('training time (read, fit, write model)'))} "
                     f"({seconds_text(figure('training CPU time (child user+system)'))} CPU)"),
                     f"{seconds_text(fit['figure'])}, {fit['iterations']} iterations"
                     + ("" if fit["converged"] else ", not converged"),
                     f"{grouped(figure('training peak memory (child ru_maxrss)'))} MiB",
                     f"{significant(figure('prediction time per example (scoring only)'))} us",
                     f"{significant(figure('model file size'))} MiB"])
    baseline = records.figure("peak memory, baseline (import modules, read train.svm)")
    lines = [("kwdlc_dep `train.svm` (77,428 examples) -> `test.svm` (12,509). Each training and "
             "prediction is a `polyparse clf` command in a child process: training is the "
             "whole command's wall time (its CPU time: user + system of all threads) and the "
             "fit alone as the command reports it; peak memory is the child's maximum RSS, "
             f"including Python and NumPy ({grouped(baseline)} MiB for importing and reading "
             "`train.svm` alone); per decision: scoring only, as `clf predict` reports it."), ""]
    lines += markdown_table(["system", "accuracy", "training command: wall (CPU)", "fit",
                             "peak memory", "per decision", "model file"], rows)
    lines += ["", ("Other tools on the same files, **quoted from `datasets/README.md`** (not "
              "measured here; times of single runs on a busy machine of this kind):"), ""]
    lines += markdown_table(["system", "accuracy", "training", "peak memory"], QUOTED)
    return lines


if __name__ == "__main__":
    sys.exit(main())
