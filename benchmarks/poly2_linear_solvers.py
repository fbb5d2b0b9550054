"""poly2-linear's two solvers on kwdlc_dep: dual coordinate descent (the default) at eps 0.1
(the default) and 0.01 against the primal trust-region Newton method (`--solver primal`,
liblinear's `-s 2`) at several tolerances, train.20k.svm and train.svm -> test.svm, C = 1, L2
loss.

    python benchmarks/poly2_linear_solvers.py [--datasets DIR] [--trains train.20k,train]
                                              [--results docs/results.md]

Prints one JSON object per measurement (what, data, figure, unit, machine, settings). Every
solution is judged by the same yardsticks, computed here in float64 from the solver's own
weights (before they are stored as float32): the primal objective
P(w) = 0.5 w.w + C sum_i max(0, 1 - y_i w.phi(x_i))^2, the relative gradient norm
||grad P(w)|| / ||grad P(0)|| (what liblinear's primal solvers stop on), and the relative
duality gap (P(w) - D) / P(w), an upper bound on how far P(w) is from the optimum: D is the
dual value of the dual solver's own alpha, and for a primal solution the best dual value known
on that data (the dual runs come first; alpha_i = 2C max(0, 1 - y_i w.phi(x_i)), the dual
point of w's own optimality conditions, is far from optimal until w is very close). Time:
CPU seconds of the fit in this process (one thread: both solvers are sequential), the
expansion of the rows included; accuracy on test.svm.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from machine import Records
from tables import markdown_table, significant

from polyparse.classifiers.linear.poly2_linear_svm import Poly2LinearSVM
from polyparse.classifiers.linear.trust_region import L2LossObjective
from polyparse.features.svmlight import parse_svmlight

REPO = Path(__file__).resolve().parents[1]
TRAINS = ("train.20k", "train")
# (solver, eps, max_iter): the dual at the default eps and tighter; the primal method at the
# default eps, at liblinear -s 2's default (0.01) and tighter.
RUNS = (("dual", 0.1, 1000), ("dual", 0.01, 1000), ("primal", 0.1, 1000),
        ("primal", 0.01, 1000), ("primal", 0.001, 1000), ("primal", 0.0001, 1000))


class Measured(Poly2LinearSVM):
    """poly2-linear that keeps, for its (single) output, the yardsticks of its solution."""

    measures: dict[str, float]
    best_dual: float | None = None

    def _solve_dual(self, phi: Any, class_index: np.ndarray, first: int, width: int,
                    inverse_sq: np.ndarray, stats: dict[str, list]) -> np.ndarray:
        weights = super()._solve_dual(phi, class_index, first, width, inverse_sq, stats)
        w = weights[:, 0] * np.sqrt(inverse_sq)
        self.measures = yardsticks(phi, signs(class_index, first), self.C, w,
                                   -stats["objective"][-1])
        self.measures["dual"] = -stats["objective"][-1]
        return weights

    def _solve_primal(self, phi: Any, class_index: np.ndarray, first: int, width: int,
                      stats: dict[str, list]) -> np.ndarray:
        weights = super()._solve_primal(phi, class_index, first, width, stats)
        self.measures = yardsticks(phi, signs(class_index, first), self.C, weights[:, 0],
                                   self.best_dual)
        return weights


def signs(class_index: np.ndarray, first: int) -> np.ndarray:
    return np.where(class_index == first, 1.0, -1.0)


def yardsticks(phi: Any, y: np.ndarray, C: float, w: np.ndarray,
               dual: float | None) -> dict[str, float]:
    """P(w), ||g(w)|| / ||g(0)||, and the relative duality gap against the larger of dual and
    the dual value of alpha_i = 2C max(0, 1 - y_i w.phi(x_i))."""
    objective = L2LossObjective(phi, y, C)
    objective.value(np.zeros_like(w))
    start = float(np.linalg.norm(objective.gradient(np.zeros_like(w))))
    primal = objective.value(w)
    ratio = float(np.linalg.norm(objective.gradient(w))) / start
    alpha = 2.0 * C * np.maximum(0.0, 1.0 - y * objective.z)
    rows = np.flatnonzero(alpha > 0).astype(np.int64)
    u = np.zeros_like(w)
    phi.transpose_add(rows, alpha[rows] * y[rows], u)
    own = float(alpha.sum() - 0.5 * u @ u - alpha @ alpha / (4.0 * C))
    dual = own if dual is None else max(dual, own)
    return {"primal": primal, "gradient": ratio, "gap": (primal - dual) / primal}


def measure(records: Records, train: str, X: Any, y: np.ndarray, T: Any, t: np.ndarray,
            solver: str, eps: float, max_iter: int, best_dual: float | None) -> float | None:
    """One fit and its records; the best dual value known on this data after it."""
    clf = Measured(solver=solver, eps=eps, max_iter=max_iter)
    clf.best_dual = best_dual
    started = time.process_time()
    clf.fit(X, y)
    seconds = time.process_time() - started
    accuracy = 100.0 * float(np.mean(clf.predict(T) == t))
    stats, measures = clf.stats_, clf.measures
    settings = {"data": f"kwdlc_dep {train}.svm", "solver": solver, "eps": eps,
                "max_iter": max_iter}
    steps = "passes" if solver == "dual" else "Newton iterations"
    records.emit(steps, stats["iterations"][0], "", **settings)
    if solver == "primal":
        records.emit("CG iterations", stats["cg_iterations"][0], "", **settings)
    records.emit("converged", bool(stats["converged"][0]), "", **settings)
    records.emit("primal objective", measures["primal"], "", **settings)
    records.emit("relative gradient norm", measures["gradient"], "", **settings)
    records.emit("relative duality gap", measures["gap"], "", **settings)
    records.emit("fit CPU seconds", round(seconds, 1), "s", **settings)
    records.emit("test accuracy", round(accuracy, 2), "%", **settings)
    if "dual" in measures:
        return measures["dual"] if best_dual is None else max(best_dual, measures["dual"])
    return best_dual


def section(records: Records, trains: list[str], sizes: dict[str, int]) -> list[str]:
    rows = []
    for train in trains:
        for solver, eps, max_iter in RUNS:
            where = {"data": f"kwdlc_dep {train}.svm", "solver": solver, "eps": eps,
                     "max_iter": max_iter}
            steps = records.figure("passes" if solver == "dual" else "Newton iterations",
                                   **where)
            if steps is None:
                continue
            cg = records.figure("CG iterations", **where)
            rows.append([
                f"`{train}.svm` ({sizes[train]:,} rows)",
                f"{solver}, eps {eps:g}, at most {max_iter:,}",
                f"{steps:,}" + ("" if cg is None else f" ({cg:,} CG)")
                + ("" if records.figure("converged", **where) else ", not converged"),
                significant(records.figure("primal objective", **where), 6),
                significant(records.figure("relative duality gap", **where), 3),
                significant(records.figure("relative gradient norm", **where), 3),
                f"{records.figure('fit CPU seconds', **where):g} s",
                f"{records.figure('test accuracy', **where):.2f} %"])
    return [
        "kwdlc_dep training files -> `test.svm` (12,509 rows), poly2-linear's defaults (C 1, "
        "L2 loss, (x.y + 1)^2). Steps: the dual solver's passes over the rows, or the primal "
        "solver's Newton iterations (with their conjugate-gradient iterations, each a "
        "Hessian-vector product over the active rows' pairs). The yardsticks are computed "
        "in float64 from each solver's weights (the script's notes): P(w), the relative "
        "duality gap and ||grad P(w)|| / ||grad P(0)||; time is the fit's CPU time.", "",
        *markdown_table(["data", "solver", "steps", "P(w)", "duality gap",
                         "gradient norm", "fit CPU", "test accuracy"], rows)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = os.environ.get("POLYPARSE_DATASETS", str(REPO.parent / "shared" / "datasets"))
    ap.add_argument("--datasets", default=default, help="folder holding kwdlc_dep/")
    ap.add_argument("--trains", default=",".join(TRAINS), help="training files (no .svm)")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    folder = Path(args.datasets) / "kwdlc_dep"
    trains = args.trains.split(",")
    if not all((folder / f"{name}.svm").is_file() for name in [*trains, "test"]):
        print(f"poly2_linear_solvers: {folder} lacks one of {trains} or test", file=sys.stderr)
        return 2
    records = Records("kwdlc_dep")
    T, t = parse_svmlight((folder / "test.svm").read_bytes())
    sizes = {}
    for train in trains:
        X, y = parse_svmlight((folder / f"{train}.svm").read_bytes())
        sizes[train] = len(y)
        best_dual = None
        for solver, eps, max_iter in RUNS:
            best_dual = measure(records, train, X, y, T, t, solver, eps, max_iter, best_dual)
        del X, y
    records.finish(args.results, "poly2_linear_solvers",
                   "poly2-linear's dual and primal solvers on kwdlc_dep",
                   lambda: section(records, trains, sizes))
    return 0


if __name__ == "__main__":
    sys.exit(main())
