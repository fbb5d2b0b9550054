"""Real-valued features: kernel-svm against libsvm, linear and poly2-linear against liblinear,
on scikit-learn's bundled data sets (breast cancer, digits, wine, iris), each scaled to [0, 1]
as svm-scale does, shuffled (seed 0) and cut 70/30.

    OMP_NUM_THREADS=1 python benchmarks/clf_real_values.py [--results docs/results.md]

(libsvm-official's kernel loop is OpenMP-parallel: on a shared machine its threads wait for
each other's cores and its time swings from milliseconds to seconds; one thread is also what
polyparse's SMO uses for one pair of classes.)

Prints one JSON object per measurement (what, data, figure, unit, machine, settings): test
accuracy of both tools, the largest difference of their test decision values, and the median seconds
of three trainings in this process (libsvm-official's and liblinear-official's train on a problem
already converted to theirs; polyparse's fit on a RealMatrix). poly2-linear is compared with
liblinear on phi(x) written out (LIBLINEAR-POLY2's mapping, x_i^2 apart from x_i), both at eps
1e-9.
"""
from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np
from liblinear import liblinearutil
from libsvm import svmutil
from machine import Records
from sklearn import datasets

from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM, Poly2LinearSVM
from polyparse.features.real_matrix import RealMatrix, as_feature_matrix

DATA_SETS = ("breast_cancer", "digits", "wine", "iris")


def split(name: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    X = (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12)
    order = np.random.default_rng(0).permutation(len(y))
    X, y = np.hstack([np.zeros((len(y), 1)), X[order]]), y[order]  # 1-based ids, as libsvm's
    cut = int(0.7 * len(y))
    return X[:cut], y[:cut], X[cut:], y[cut:]


def rows(X: np.ndarray) -> list[dict[int, float]]:
    return [{j: v for j, v in enumerate(row.tolist()) if v} for row in X]


def timed(call: Callable[..., Any], *args: Any, runs: int = 3) -> tuple[Any, float]:
    """call(*args) and the median seconds of `runs` calls (the arguments made before)."""
    seconds = []
    for _ in range(runs):
        started = time.perf_counter()
        result = call(*args)
        seconds.append(time.perf_counter() - started)
    return result, float(np.median(seconds))


def phi_rows(X: np.ndarray, gamma: float, coef0: float, columns: dict, grow: bool) -> list:
    out = []
    for row in X:
        items = [(j, v) for j, v in enumerate(row.tolist()) if v]
        mapped = {1: coef0}
        for a, (f, u) in enumerate(items):
            terms = [(("l", f), math.sqrt(2 * gamma * coef0) * u), (("s", f), gamma * u * u)]
            terms += [(("p", f, g), math.sqrt(2) * gamma * u * v) for g, v in items[a + 1:]]
            for key, value in terms:
                if key not in columns and grow:
                    columns[key] = len(columns) + 2
                if key in columns:
                    mapped[columns[key]] = value
        out.append(mapped)
    return out


def compare(records: Records, name: str, tool: str, ours_values: np.ndarray,
            their_values: np.ndarray, ours_accuracy: float, their_accuracy: float,
            ours_seconds: float, their_seconds: float, backend: str) -> None:
    records.emit("test accuracy", round(ours_accuracy, 2), "%", data=name, backend=backend)
    records.emit("test accuracy", round(their_accuracy, 2), "%", data=name, backend=tool)
    records.emit("largest difference of test decision values",
                 float(np.abs(ours_values - their_values).max()), "", data=name,
                 backend=backend, against=tool)
    records.emit("training seconds", round(ours_seconds, 4), "s", data=name, backend=backend)
    records.emit("training seconds", round(their_seconds, 4), "s", data=name, backend=tool)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    records = Records("scikit-learn bundled data, [0, 1], 70/30")
    for name in DATA_SETS:
        X, y, T, t = split(name)
        train, test = as_feature_matrix(X), as_feature_matrix(T)
        assert isinstance(train, RealMatrix)
        model, their_seconds = timed(svmutil.svm_train, svmutil.svm_problem(y.tolist(), rows(X)),
                                     svmutil.svm_parameter("-t 1 -d 2 -g 0.5 -r 1 -c 1 -q"))
        _, accuracy, values = svmutil.svm_predict(t.tolist(), rows(T), model, "-q")
        clf, seconds = timed(KernelSVM(degree=2, gamma=0.5).fit, train, y)
        compare(records, name, "libsvm", clf.decision_function(test), np.asarray(values),
                100 * np.mean(clf.predict(test) == t), accuracy[0], seconds, their_seconds,
                "kernel-svm")
        model, their_seconds = timed(liblinearutil.train,
                                     liblinearutil.problem(y.tolist(), rows(X), 1.0),
                                     liblinearutil.parameter("-s 1 -c 1 -e 1e-9 -B 1 -q"))
        _, accuracy, values = liblinearutil.predict(t.tolist(), rows(T), model, "-q")
        linear, seconds = timed(LinearSVM(eps=1e-9, max_iter=100000, dtype="float64").fit,
                                train, y)
        compare(records, name, "liblinear", linear.decision_function(test),
                np.asarray(values), 100 * np.mean(linear.predict(test) == t), accuracy[0],
                seconds, their_seconds, "linear")
        columns: dict = {}
        phi_train = phi_rows(X, 0.5, 1.0, columns, True)
        phi_test = phi_rows(T, 0.5, 1.0, columns, False)
        model, their_seconds = timed(liblinearutil.train,
                                     liblinearutil.problem(y.tolist(), phi_train),
                                     liblinearutil.parameter("-s 1 -c 1 -e 1e-9 -q"))
        _, accuracy, values = liblinearutil.predict(t.tolist(), phi_test, model, "-q")
        poly2, seconds = timed(Poly2LinearSVM(gamma=0.5, eps=1e-9, max_iter=100000,
                                              dtype="float64").fit, train, y)
        compare(records, name, "liblinear on phi(x)", poly2.decision_function(test),
                np.asarray(values), 100 * np.mean(poly2.predict(test) == t), accuracy[0],
                seconds, their_seconds, "poly2-linear")
    records.finish(args.results, "clf_real_values",
                   "Real-valued features against libsvm and liblinear",
                   lambda: ["Each record of the run (the script's notes say how each is "
                            "measured).", "", *records.markdown_table()])


if __name__ == "__main__":
    main()
