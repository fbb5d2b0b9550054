"""`pa-slicing` backend: passive-aggressive training of polynomial-kernel models by kernel slicing.

PASlicing trains one binary learner of classifiers/online/kernel_slicing.pyx per output (the paper,
Yoshinaga & Kitsuregawa 2010, and the equations are in the notes of that module and of the
modules it names, one per margin strategy and structure): PA-I by default
(also PA, PA-II and the perceptron), kernel (x.z + 1)^degree, degree 1..3, `iterations` passes
over the rows in an order shuffled by `seed` at each pass, averaged parameters (Daume III) by
default. The margin strategy (`kernel`, `expand`, `split`, `slice`) changes the speed and the
memory of training, never the model: the same data, seed and settings give the same support
vectors and coefficients under every strategy, to floating-point rounding.

Labels: classes_ in order of first appearance, except that two classes -1 and +1 put +1 first
(libsvm's convention). Two classes give one output whose positive sign means classes_[0];
k >= 3 classes give k one-vs-rest outputs (column c scores classes_[c], argmax wins), trained
`threads` at a time; a single class gives a constant model (one output, +1).

The result is a KernelExpansion (`expansion_`: the distinct training vectors with a nonzero
coefficient in some output, coefficients (n_outputs, n_sv), zero intercepts, gamma = coef0 = 1),
so every exact evaluator of classifiers/evaluators/modes.py scores it; `scorer` is its split-svm
evaluator (a BinaryScorer for the parsers' Cython loops), built when first used.
"""
from __future__ import annotations

import time
from typing import Any

import numpy as np

from polyparse.classifiers.backend_settings import DEFAULTS
from polyparse.classifiers.binary_classifier import (
    ExpansionClassifier,
    one_vs_rest_outputs,
    training_inputs,
)
from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.model_file import ModelFileError, inconsistent
from polyparse.classifiers.online.choices import STRATEGIES, VARIANTS
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.classifiers.settings import (
    check_choice,
    check_integer,
    check_positive,
    check_seed,
)
from polyparse.features.binary_matrix import BinaryMatrix, BinaryMatrixLike

BACKEND = "pa-slicing"
DEGREES = (1, 2, 3)
# N, the number of most frequent features whose conjunctions the table holds, by strategy and
# degree (None: every feature). The paper's and opal's settings on dependency-parsing data.
DEFAULT_N_COMMON = {
    "split": {1: None, 2: 1000, 3: 250},
    "slice": {1: None, 2: 4000, 3: 250},
}
_PARAMETERS = ("degree", "C", "variant", "iterations", "average", "strategy", "n_common",
               "max_table_mb", "seed", "threads", "early_termination")
# Settings that decide the model (threads only decides how fast it is trained).
_MODEL_PARAMETERS = tuple(name for name in _PARAMETERS if name != "threads")


_DEFAULTS = DEFAULTS["pa-slicing"]


class PASlicing(ExpansionClassifier[KernelExpansion]):
    """Online PA-I (or PA, PA-II, perceptron) with the kernel (x.z + 1)^degree."""

    backend = BACKEND
    gamma = 1.0
    coef0 = 1.0

    def __init__(
        self,
        degree: int = _DEFAULTS["degree"],
        C: float = _DEFAULTS["C"],
        variant: str = _DEFAULTS["variant"],
        iterations: int = _DEFAULTS["iterations"],
        average: bool = _DEFAULTS["average"],
        strategy: str = _DEFAULTS["strategy"],
        n_common: int | None = _DEFAULTS["n_common"],
        max_table_mb: float | None = _DEFAULTS["max_table_mb"],
        seed: int = _DEFAULTS["seed"],
        threads: int = _DEFAULTS["threads"],
        early_termination: bool = _DEFAULTS["early_termination"],
    ) -> None:
        """degree: 1, 2 or 3; C: PA-I/PA-II aggressiveness; variant: perceptron, pa, pa1 or
        pa2; iterations: passes over the data; average: averaged coefficients; strategy: how
        margins are computed (kernel, expand, split, slice; the model does not depend on it);
        n_common: N, the most frequent features whose conjunctions split and slice hold in a
        table (None: DEFAULT_N_COMMON); max_table_mb: cap on that table per output (None: no
        cap), N is halved whenever it is exceeded; seed: shuffling; threads: outputs trained at
        once; early_termination: slice ends margin computations whose loss is surely zero."""
        self.degree = degree
        self.C = C
        self.variant = variant
        self.iterations = iterations
        self.average = average
        self.strategy = strategy
        self.n_common = n_common
        self.max_table_mb = max_table_mb
        self.seed = seed
        self.threads = threads
        self.early_termination = early_termination
        self._check_parameters()
        self.classes_: np.ndarray | None = None
        self.expansion_: KernelExpansion | None = None
        self._scorer: BinaryScorer | None = None
        self.stats_: dict[str, Any] = {}

    def _check_parameters(self) -> None:
        self.degree = int(check_choice("degree", self.degree, DEGREES))
        self.C = check_positive("C", self.C)
        check_choice("variant", self.variant, VARIANTS)
        check_choice("strategy", self.strategy, STRATEGIES)
        self.iterations = check_integer("iterations", self.iterations, 1)
        self.seed = check_seed(self.seed)
        self.threads = check_integer("threads", self.threads, 1)
        if self.n_common is not None:
            self.n_common = check_integer("n_common", self.n_common, 0)
            if self.strategy not in ("split", "slice"):
                raise ValueError(
                    f"n_common applies to the split and slice strategies; {self.strategy} "
                    + ("expands every feature" if self.strategy == "expand"
                       else "expands none"))
        if self.max_table_mb is not None:
            if self.strategy == "kernel":
                raise ValueError("max_table_mb applies to the strategies with a table "
                                 "(expand, split, slice), not kernel")
            self.max_table_mb = check_positive("max_table_mb", self.max_table_mb)
        self.average = bool(self.average)
        self.early_termination = bool(self.early_termination)

    def resolved_n_common(self, n_features: int) -> int:
        """N for data with n_features distinct features (the table's features)."""
        if self.strategy == "kernel":
            return 0
        if self.strategy == "expand":
            return n_features
        n = self.n_common
        if n is None:
            n = DEFAULT_N_COMMON[self.strategy][self.degree]
        return n_features if n is None else min(n, n_features)

    @property
    def scorer(self) -> BinaryScorer | None:
        """The split-svm evaluator of expansion_ (built on first use; None before fit)."""
        if self._scorer is None and self.expansion_ is not None:
            from polyparse.classifiers.evaluators.modes import build_evaluator

            self._scorer = build_evaluator(self.expansion_, "split")
        return self._scorer

    def fit(self, X: BinaryMatrixLike, y: np.ndarray) -> "PASlicing":
        """Train on the rows of X (a BinaryMatrix, a 2-D 0/1 NumPy array or a scipy sparse matrix)
        with labels y (numbers or strings)."""
        self._check_parameters()
        X, labels, class_index = training_inputs(X, y, libsvm_order=True, backend=self.backend)
        started = time.perf_counter()
        if labels.size == 1:
            empty = BinaryMatrix(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
                                 X.n_features)
            self.stats_ = {"n_training_rows": len(X), "outputs": [], "seconds": 0.0}
            self._set_model(labels, KernelExpansion(empty, np.zeros((1, 0)), [1.0], 1.0, 1.0,
                                                    self.degree))
            return self
        from polyparse.classifiers.online.kernel_slicing import BinaryLearner, SlicingData

        data = SlicingData(X)
        n_common = self.resolved_n_common(data.n_ranked)
        n_outputs = 1 if labels.size == 2 else labels.size
        max_bytes = 0 if self.max_table_mb is None else int(self.max_table_mb * 2**20)
        if self.strategy == "slice":
            data.build_prefix_nodes()
        prepare_seconds = time.perf_counter() - started

        def train(output: int) -> tuple[np.ndarray, dict[str, Any]]:
            signs = np.where(class_index == output, 1, -1).astype(np.int8)
            learner = BinaryLearner(
                data, signs, degree=self.degree, variant=self.variant, C=self.C,
                iterations=self.iterations, average=self.average, strategy=self.strategy,
                n_common=n_common, max_table_bytes=max_bytes,
                early_termination=self.early_termination, seed=self.seed,
            )
            begun = time.perf_counter()
            learner.train()
            seconds = time.perf_counter() - begun
            stats = learner.stats()
            stats["seconds"] = seconds
            return learner.coefficients(), stats

        if self.threads > 1 and n_outputs > 1:
            from polyparse.features.worker_threads import interruptible_pool

            with interruptible_pool(self.threads) as pool:
                results = list(pool.map(train, range(n_outputs)))
        else:
            results = [train(output) for output in range(n_outputs)]
        coefficients = np.stack([coef for coef, _ in results])
        support = np.flatnonzero(np.any(coefficients != 0.0, axis=0))
        sv_indptr, sv_indices = data.vectors(support)
        expansion = KernelExpansion(BinaryMatrix(sv_indptr, sv_indices, X.n_features),
                                    coefficients[:, support], np.zeros(n_outputs), 1.0, 1.0,
                                    self.degree)
        self.stats_ = {
            "n_training_rows": len(X),
            "n_distinct_vectors": int(data.n_vectors),
            "n_features": int(data.n_ranked),
            "n_common": n_common,
            "outputs": [stats for _, stats in results],
            "prepare_seconds": prepare_seconds,
            "seconds": time.perf_counter() - started,
        }
        self._set_model(labels, expansion)
        return self

    def _set_model(self, labels: np.ndarray, expansion: KernelExpansion) -> None:
        self.classes_ = labels
        self.expansion_ = expansion
        self._scorer = None

    def parameters(self) -> dict[str, Any]:
        """The constructor's settings, JSON-ready."""
        return {name: getattr(self, name) for name in _PARAMETERS}

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this classifier.
        The header holds no timings nor thread counts, so equal runs give byte-identical
        files."""
        header, arrays = self._expansion().to_arrays()
        header.update({name: getattr(self, name) for name in _MODEL_PARAMETERS})
        header.update(backend=BACKEND, classes=self.classes_.tolist(),
                      stats=_without_timings(self.stats_))
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> "PASlicing":
        """Rebuild a classifier from to_arrays() output; ModelFileError names `source`."""
        cls.check_backend(header, source)
        with inconsistent(source):
            params = {name: header[name] for name in _MODEL_PARAMETERS}
            classes = np.asarray(header["classes"])
            stats = dict(header.get("stats") or {})
            clf = cls(**params)
        expansion = KernelExpansion.from_arrays(header, arrays, source)
        if classes.ndim != 1 or classes.size < 1:
            raise ModelFileError(f"{source}: inconsistent model header (classes {classes})")
        if expansion.degree != clf.degree or expansion.gamma != 1.0 or expansion.coef0 != 1.0:
            raise ModelFileError(f"{source}: inconsistent model header (the kernel is not "
                                 f"(x.z + 1)^{clf.degree})")
        clf.stats_ = stats
        clf._set_model(classes, expansion)
        clf.check_output_count(source, expansion.n_outputs, one_vs_rest_outputs(classes.size))
        return clf

    def memory_bytes(self) -> dict[str, int]:
        """Bytes of the support vectors and coefficients, and of the split-svm scorer."""
        expansion = self._expansion()
        sv = expansion.support_vectors
        return {
            "support_vectors": int(sv.indptr.nbytes + sv.indices.nbytes),
            "coefficients": int(expansion.coefficients.nbytes),
            "scorer": int(sum(self._fitted().memory_report().values())),
        }


def _without_timings(stats: dict[str, Any]) -> dict[str, Any]:
    """stats without the entries that depend on the machine (seconds)."""
    out = {}
    for key, value in stats.items():
        if key.endswith("seconds"):
            continue
        if isinstance(value, list):
            value = [_without_timings(item) if isinstance(item, dict) else item
                     for item in value]
        out[key] = value
    return out
