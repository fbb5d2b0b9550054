"""kernel-svm (our SMO) against libsvm-official on kwdlc_dep subsets, train -> test.

    python benchmarks/kernel_svm_kwdlc.py [--datasets DIR] [--train train.5k.svm,...]
                                          [--degree 2 --gamma 1 --coef0 1 -C 1] [--repeats N]
                                          [--markdown FILE] [--results docs/results.md]

For each training file, in one run on this machine: `polyparse clf train --classifier
kernel-svm` (one thread) and libsvm-official's svm_train (the PyPI `libsvm-official` binding of
libsvm's C code, options -s 0 -t 1 -d D -g G -r R -c C, defaults eps 1e-3, cache 100 MB,
shrinking) each run in a child process; training time is the fit / svm_train call alone (the
least of --repeats runs), CPU time and peak memory come from the child's rusage. The PyPI build
of libsvm is compiled with OpenMP (kernel columns computed by all cores), so it is timed twice:
as installed, and with OMP_NUM_THREADS=1. Its OpenMP threads spin while they wait, so on a busy
machine its times swing widely; use --repeats to keep the least. Then both models are
applied to test.svm: libsvm's svm_predict with its own model, polyparse with its model and with
libsvm's saved model file. Printed, one JSON object per measurement (what, data, figure, unit,
machine, settings): training seconds of each and their ratio, libsvm's obj and ours (per pair)
and their relative difference, support vectors of each, test accuracy of each, the share of
identical predictions, the largest difference between libsvm's decision values and polyparse's
on libsvm's model file, and microseconds per decision of both naive evaluators. Reference
figures: datasets/README.md (libsvm 3.24: obj -2.019947, 2,715 SV, 89.80 %, 6.4 s on
train.5k.svm). With --results, the run's section of docs/results.md is written.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path

import numpy as np
from machine import publish, record
from tables import grouped, markdown_table, seconds_text, significant

REPO = Path(__file__).resolve().parents[1]

LIBSVM_CHILD = r"""
import json, sys, time
import numpy as np
from libsvm import svmutil
train, test, model_path, values_path, options = sys.argv[1:6]
y, x = svmutil.svm_read_problem(train)
started = time.perf_counter()
model = svmutil.svm_train(y, x, options)
seconds = time.perf_counter() - started
sys.stdout.flush()
svmutil.svm_save_model(model_path, model)
yt, xt = svmutil.svm_read_problem(test)
started = time.perf_counter()
labels, (accuracy, _, _), values = svmutil.svm_predict(yt, xt, model, "-q")
predict_seconds = time.perf_counter() - started
np.save(values_path, np.asarray(values, dtype=np.float64))
np.save(values_path + ".labels.npy", np.asarray(labels))
print("RESULT " + json.dumps({"seconds": seconds, "predict_seconds": predict_seconds,
                              "accuracy": accuracy, "n_sv": model.l, "n_test": len(yt)}))
"""


# libsvm 3.24 on these files, quoted from datasets/README.md: dual objective, support vectors,
# test accuracy, training time.
LIBSVM_QUOTED = {
    "train.5k.svm": ("-2.019947", "2,715", "89.80 %", "6.4 s"),
    "train.20k.svm": ("-10.138893", "9,099", "91.65 %", "9 min 4 s"),
    "train.50k.svm": ("-28.024323", "19,114", "92.24 %", "39 min 8 s"),
    "train.svm": ("", "27,487", "92.70 %", "64 min"),
}


def child(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, float, float, float]:
    """Run a child process: (stdout, wall seconds, CPU seconds, peak RSS in MiB)."""
    with tempfile.TemporaryFile() as errors:
        started = time.perf_counter()
        process = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=errors,
                                   env=None if env is None else {**os.environ, **env})
        out = process.stdout.read()
        _, status, usage = os.wait4(process.pid, 0)
        wall = time.perf_counter() - started
        if os.waitstatus_to_exitcode(status) != 0:
            errors.seek(0)
            message = errors.read().decode(errors="replace")
            raise RuntimeError(f"{' '.join(argv)} failed: {message}")
    return out.decode(), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding kwdlc_dep/")
    ap.add_argument("--train", default="train.5k.svm", help="comma-separated training files")
    ap.add_argument("--degree", type=int, default=2)
    ap.add_argument("--gamma", type=float, default=1.0)
    ap.add_argument("--coef0", type=float, default=1.0)
    ap.add_argument("-C", dest="C", type=float, default=1.0)
    ap.add_argument("--repeats", type=int, default=1, help="training runs of each (least time)")
    ap.add_argument("--markdown", help="also write a markdown table to this file")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    folder = Path(args.datasets) / "kwdlc_dep"
    test = folder / "test.svm"
    if not test.is_file():
        print(f"kernel_svm_kwdlc: {folder} has no test.svm", file=sys.stderr)
        return 2
    settings = {"degree": args.degree, "gamma": args.gamma, "coef0": args.coef0, "C": args.C}
    rows: list[dict] = []
    with tempfile.TemporaryDirectory() as scratch:
        for name in args.train.split(","):
            rows += compare(folder / name, test, Path(scratch), args, settings)
    if args.markdown:
        write_markdown(args.markdown, rows)
    if args.results:
        publish(args.results, "kernel_svm_kwdlc", "kernel-svm against libsvm on kwdlc_dep",
                section(args, rows))
    return 0


def section(args: argparse.Namespace, rows: list[dict]) -> list[str]:
    version = metadata.version("libsvm-official")
    kernel = (f"(gamma x.y + coef0)^{args.degree}, gamma {args.gamma:g}, coef0 {args.coef0:g}, "
              f"C {args.C:g}")
    lines = [(f"C-SVC with {kernel}, trained on each file and applied to `test.svm` (12,509 "
             f"examples). polyparse `kernel-svm` (`clf train`, one thread) against libsvm "
             f"{version} (the PyPI `libsvm-official` binding of libsvm's C code, OpenMP build), "
             "in child processes one after the other; training is the fit / svm_train call "
             f"alone, the least of {max(1, args.repeats)} run(s) of each (wall time)."), ""]
    for name in args.train.split(","):
        data = f"kwdlc_dep {name} -> test.svm"

        def find(what: str, data: str = data) -> dict:
            return next(row for row in rows if row["what"] == what and row["data"] == data)

        def figure(what: str) -> object:
            return find(what)["figure"]

        objective = find("dual objective, polyparse")
        ours_seconds = figure("training seconds, polyparse kernel-svm (fit, one thread)")
        libsvm_one = figure("training seconds, libsvm-official svm_train (OMP_NUM_THREADS=1)")
        libsvm_all = figure("training seconds, libsvm-official svm_train (OpenMP, all cores)")
        table = [
            ["polyparse `kernel-svm`", f"{objective['figure']:.7f}",
             grouped(figure("support vectors, polyparse")),
             f"{figure('test accuracy, polyparse'):.2f} %", seconds_text(ours_seconds)],
            [f"libsvm {version} (PyPI), same run",
             f"{figure('dual objective, libsvm-official'):.6f}",
             grouped(figure("support vectors, libsvm-official")),
             f"{figure('test accuracy, libsvm-official'):.2f} %",
             f"{seconds_text(libsvm_one)} one thread, {seconds_text(libsvm_all)} OpenMP"]]
        if name in LIBSVM_QUOTED and args.degree == 2 and args.gamma == args.coef0 == args.C == 1:
            table.append(["libsvm 3.24, **quoted from `datasets/README.md`**",
                          *LIBSVM_QUOTED[name]])
        lines += [f"**`{name}`**", ""]
        lines += markdown_table(["system", "dual objective", "support vectors", "accuracy",
                                 "training"], table)
        identical = figure("identical test predictions, polyparse vs libsvm-official")
        loaded = figure("largest decision value difference, libsvm model file in polyparse vs "
                        "svm_predict")
        ours_us = figure("naive decision, polyparse (bulk decision_function)")
        libsvm_one_us = figure("naive decision, libsvm-official svm_predict (OMP_NUM_THREADS=1)")
        libsvm_all_us = figure("naive decision, libsvm-official svm_predict")
        lines += ["", (f"{significant(identical, 4)} % of the test predictions are identical; "
                  "libsvm's model file loaded into polyparse gives decision values whose largest "
                  f"difference from svm_predict's is {loaded:.1g}; the objectives' largest "
                  f"relative difference (per pair) is {figure('objective relative difference'):.1g}"
                  f". Naive decision per test example: polyparse {significant(ours_us)} us, "
                  f"libsvm's svm_predict {significant(libsvm_one_us)} us with one thread and "
                  f"{significant(libsvm_all_us)} us with OpenMP."), ""]
    return lines[:-1]


def compare(train: Path, test: Path, scratch: Path, args, settings: dict) -> list[dict]:
    from polyparse.classifiers.kernel_svm.svc import KernelSVM
    from polyparse.features.svmlight import read_svmlight

    data = f"kwdlc_dep {train.name} -> {test.name}"
    out: list[dict] = []

    def emit(what: str, figure: float, unit: str, **extra: object) -> None:
        item = record(what, data, figure, unit, **settings, **extra)
        out.append(item)
        print(json.dumps(item), flush=True)

    ours_model = scratch / f"{train.stem}.polyparse.model"
    libsvm_model = scratch / f"{train.stem}.libsvm.model"
    libsvm_values = scratch / f"{train.stem}.values.npy"
    polyparse = [
        sys.executable, "-m", "polyparse.parser.cli.main", "clf", "train", str(train), "--model",
        str(ours_model), "--classifier", "kernel-svm", "--degree", str(args.degree),
        "--gamma", repr(args.gamma), "--coef0", repr(args.coef0), "-C", repr(args.C), "--json",
    ]
    options = f"-s 0 -t 1 -d {args.degree} -g {args.gamma!r} -r {args.coef0!r} -c {args.C!r}"
    libsvm = [sys.executable, "-c", LIBSVM_CHILD, str(train), str(test), str(libsvm_model),
              str(libsvm_values), options]
    ours_runs, libsvm_runs, single_runs = [], [], []
    for _ in range(max(1, args.repeats)):
        text, wall, cpu, rss = child(polyparse)
        ours_runs.append((json.loads(text.strip().splitlines()[-1]), wall, cpu, rss))
        for runs, env in ((libsvm_runs, None), (single_runs, {"OMP_NUM_THREADS": "1"})):
            text, wall, cpu, rss = child(libsvm, env)
            result = json.loads(text.split("RESULT ", 1)[1])
            objectives = [float(v) for v in re.findall(r"obj = (-?[\d.]+)", text)]
            iterations = [int(v) for v in re.findall(r"#iter = (\d+)", text)]
            runs.append((result, objectives, iterations, wall, cpu, rss))
    ours = min(ours_runs, key=lambda run: run[0]["seconds"])
    theirs = min(libsvm_runs, key=lambda run: run[0]["seconds"])
    single = min(single_runs, key=lambda run: run[0]["seconds"])
    summary, wall, cpu, rss = ours
    result, objectives, iterations, lib_wall, lib_cpu, lib_rss = theirs

    emit("training seconds, polyparse kernel-svm (fit, one thread)", summary["seconds"], "s",
         runs=[run[0]["seconds"] for run in ours_runs])
    emit("training seconds, libsvm-official svm_train (OpenMP, all cores)",
         round(result["seconds"], 3), "s",
         runs=[round(run[0]["seconds"], 3) for run in libsvm_runs])
    emit("training seconds, libsvm-official svm_train (OMP_NUM_THREADS=1)",
         round(single[0]["seconds"], 3), "s",
         runs=[round(run[0]["seconds"], 3) for run in single_runs])
    emit("training time ratio polyparse / libsvm-official (all cores)",
         round(summary["seconds"] / result["seconds"], 4), "x")
    emit("training time ratio polyparse / libsvm-official (one thread)",
         round(summary["seconds"] / single[0]["seconds"], 4), "x")
    emit("training command, polyparse (read, train, write; child process)", round(wall, 3), "s",
         cpu_seconds=round(cpu, 3), peak_rss_mib=round(rss, 1))
    emit("training child process, libsvm-official (read, train, predict)", round(lib_wall, 3),
         "s", cpu_seconds=round(lib_cpu, 3), peak_rss_mib=round(lib_rss, 1))
    emit("dual objective, polyparse", summary["objective"][0], "obj",
         per_pair=summary["objective"], iterations=summary["iterations"])
    emit("dual objective, libsvm-official", objectives[0], "obj", per_pair=objectives,
         iterations=iterations)
    relative = max(abs(a - b) / abs(b) for a, b in zip(summary["objective"], objectives))
    emit("objective relative difference", relative, "relative")
    emit("support vectors, polyparse", summary["n_support_vectors"], "SV")
    emit("support vectors, libsvm-official", result["n_sv"], "SV")
    emit("support vector count difference",
         round(100 * abs(summary["n_support_vectors"] - result["n_sv"]) / result["n_sv"], 4),
         "%")

    X, y = read_svmlight(test)
    clf = KernelSVM.load(ours_model)
    started = time.perf_counter()
    values = clf.decision_function(X)
    seconds = time.perf_counter() - started
    predicted = clf.predict_from_decision(values)
    lib_values = np.load(libsvm_values)
    lib_labels = np.load(str(libsvm_values) + ".labels.npy")
    emit("test accuracy, polyparse", round(100 * float(np.mean(predicted == y)), 2), "%")
    emit("test accuracy, libsvm-official", round(result["accuracy"], 2), "%")
    emit("identical test predictions, polyparse vs libsvm-official",
         round(100 * float(np.mean(predicted == lib_labels.astype(predicted.dtype))), 3), "%")
    emit("largest decision value difference, polyparse model vs libsvm model",
         float(np.abs(values - lib_values).max()), "abs")
    loaded = KernelSVM.load(libsvm_model)
    emit("largest decision value difference, libsvm model file in polyparse vs svm_predict",
         float(np.abs(loaded.decision_function(X) - lib_values).max()), "abs")
    emit("naive decision, polyparse (bulk decision_function)",
         round(1e6 * seconds / len(X), 2), "us/example", n_sv=clf.n_support_vectors)
    emit("naive decision, libsvm-official svm_predict",
         round(1e6 * result["predict_seconds"] / result["n_test"], 2), "us/example")
    emit("naive decision, libsvm-official svm_predict (OMP_NUM_THREADS=1)",
         round(1e6 * single[0]["predict_seconds"] / single[0]["n_test"], 2), "us/example")
    return out


def write_markdown(path: str, rows: list[dict]) -> None:
    lines = ["| data | measurement | figure | unit |", "|---|---|---|---|"]
    for row in rows:
        lines.append(f"| {row['data']} | {row['what']} | {row['figure']} | {row['unit']} |")
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
