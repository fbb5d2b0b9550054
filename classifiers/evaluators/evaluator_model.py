"""A polynomial-kernel classifier kept as one of its exact fast evaluators.

`polyparse clf convert` turns a kernel-svm model (ours or libsvm's) into this form: the arrays of
one evaluator of all its pair values, built by classifiers.evaluators.modes.build_evaluator from the
model's KernelExpansion (one output per pair of classes, in libsvm's order), plus what prediction
needs besides the decision values, namely the labels in libsvm's order for libsvm's one-vs-one
vote (classifiers.evaluators.one_vs_one_expansion.one_vs_one_vote). The evaluators and their papers:

- `pki`  (backend `pki`): the polynomial kernel inverted index, Kudo & Matsumoto 2003;
- `pke`  (backend `pke`): the expansion into conjunction weights, Isozaki & Kazawa 2002,
  Kudo & Matsumoto 2003;
- `split` (backend `split-svm`): common features expanded, rare ones through an inverted index,
  Goldberg & Elhadad 2008.

All give the kernel sum over the support vectors to floating-point rounding. The header keeps
the kernel (degree, gamma, coef0), the support-vector counts (total and per class), the
evaluator's own header under `scorer`, and the source's objective, training and conversion
records; the support vectors themselves are kept only as far as the evaluator needs them, so the
file does not turn back into a kernel model.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polyparse.classifiers.binary_classifier import BinaryClassifier, one_vs_rest_outputs
from polyparse.classifiers.evaluators.choices import (
    CONVERSIONS,
    DEFAULT_RARE_THRESHOLD,
    EVALUATORS,
    check_conversion,
)
from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.evaluators.one_vs_one_expansion import (
    OneVsOneExpansion,
    one_vs_one_vote,
)
from polyparse.classifiers.evaluators.pke import PKEScorer
from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.classifiers.model_file import inconsistent
from polyparse.classifiers.scorer import BinaryScorer

SCORERS: dict[str, Any] = {"split": SplitSVMScorer, "pki": PKIScorer, "pke": PKEScorer}
# How decision values become labels: libsvm's vote over one value per pair of classes, or the
# sign (two classes) / argmax (more) of one value per class.
DECISIONS = ("one-vs-one", "one-vs-rest")
_LAYOUT = frozenset([
    "format", "backend", "evaluator", "scorer", "classes", "n_support", "n_support_vectors",
    "n_outputs", "degree", "gamma", "coef0", "decision",
])


def split_summary(scorer: SplitSVMScorer) -> dict[str, Any]:
    """The split form of a split-svm scorer: the rare threshold asked for and the support-vector
    count s it gave, the numbers of common and rare features, the bytes of each part (the
    scorer's memory_report) and their total."""
    report = {name: int(size) for name, size in scorer.memory_report().items()}
    return {
        "rare_threshold": scorer.settings["rare_threshold"],
        "min_common_count": float(scorer.settings["min_common_count"]),
        "n_common_features": scorer.n_common_features,
        "n_rare_features": scorer.n_rare_features,
        "memory_bytes": report,
        "memory_total_bytes": sum(report.values()),
    }


class KernelEvaluatorModel(BinaryClassifier):
    """Labels, kernel and support-vector counts of a kernel model, and its evaluator.

    decision "one-vs-one" (kernel-svm, libsvm): one value per pair of classes in libsvm's
    order, libsvm's vote, n_support per class; "one-vs-rest" (pa-slicing): one value per class
    (one for two classes, positive meaning the first), n_support the one total.
    """

    def __init__(
        self,
        evaluator: str,
        scorer: BinaryScorer,
        labels: np.ndarray,
        n_support: np.ndarray,
        degree: int,
        gamma: float,
        coef0: float,
        stats: dict[str, Any] | None = None,
        decision: str = "one-vs-one",
    ) -> None:
        """evaluator: pki, pke or split; scorer: an instance of SCORERS[evaluator] giving the
        decision values; labels in the source model's order; n_support: support vectors per
        class (one-vs-one) or their total (one-vs-rest); stats: JSON-ready facts about the
        source model (objective, training, conversion)."""
        check_conversion(evaluator, int(degree))
        if not isinstance(scorer, SCORERS[evaluator]):
            raise TypeError(f"the {evaluator} evaluator is a {SCORERS[evaluator].__name__}")
        if decision not in DECISIONS:
            raise ValueError(f"unknown decision {decision!r} (available: {', '.join(DECISIONS)})")
        labels = np.asarray(labels)
        n_support = np.asarray(n_support, dtype=np.int32).reshape(-1)
        if labels.ndim != 1 or labels.size < 2 or len(set(labels.tolist())) != labels.size:
            raise ValueError("labels must hold two or more distinct classes")
        counts = labels.size if decision == "one-vs-one" else 1
        if n_support.shape != (counts,) or (n_support < 0).any():
            raise ValueError("n_support must hold one count per class (one-vs-one) or one "
                             "total (one-vs-rest)")
        if decision == "one-vs-one":
            expected, what = labels.size * (labels.size - 1) // 2, "pair of"
        else:
            expected, what = one_vs_rest_outputs(labels.size), "one-vs-rest output of"
        if scorer.n_outputs != expected:
            raise ValueError(
                f"the evaluator has {scorer.n_outputs} outputs, not one per {what} the "
                f"{labels.size} classes ({expected})"
            )
        self.evaluator = evaluator
        self.decision = decision
        self._scorer = scorer
        self.classes_ = labels
        self.n_support = n_support
        self.degree, self.gamma, self.coef0 = int(degree), float(gamma), float(coef0)
        self.stats_ = dict(stats or {})

    @property
    def backend(self) -> str:
        return CONVERSIONS[self.evaluator]

    @property
    def n_support_vectors(self) -> int:
        return int(self.n_support.sum())

    @classmethod
    def convert(
        cls,
        expansion: OneVsOneExpansion,
        evaluator: str,
        rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD,
        stats: dict[str, Any] | None = None,
    ) -> "KernelEvaluatorModel":
        """Build the named evaluator of a one-vs-one model of two or more classes
        (rare_threshold: split only, see classifiers/evaluators/split_svm.pyx)."""
        check_conversion(evaluator, expansion.degree)
        if expansion.n_classes < 2:
            raise ValueError(
                f"the model knows one class ({expansion.labels[0].item()!r}) and has no "
                "decision function to convert"
            )
        from polyparse.classifiers.evaluators.modes import build_evaluator

        scorer = build_evaluator(expansion.as_kernel_expansion(), evaluator, rare_threshold)
        return cls(evaluator, scorer, expansion.labels, expansion.n_support, expansion.degree,
                   expansion.gamma, expansion.coef0, stats)

    @classmethod
    def convert_one_vs_rest(
        cls,
        expansion: KernelExpansion,
        labels: np.ndarray,
        evaluator: str,
        rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD,
        stats: dict[str, Any] | None = None,
    ) -> "KernelEvaluatorModel":
        """Build the named evaluator of a one-vs-rest kernel model of two or more classes
        (one output per class, or one for two classes)."""
        check_conversion(evaluator, expansion.degree)
        labels = np.asarray(labels)
        if labels.size < 2:
            raise ValueError(f"the model knows one class ({labels[0].item()!r}) and has no "
                             "decision function to convert")
        from polyparse.classifiers.evaluators.modes import build_evaluator

        scorer = build_evaluator(expansion, evaluator, rare_threshold)
        return cls(evaluator, scorer, labels, [expansion.n_support_vectors], expansion.degree,
                   expansion.gamma, expansion.coef0, stats, decision="one-vs-rest")

    def kernel_expansion(self) -> KernelExpansion:
        """The kernel expansion of the decision values (one output each), read back from a PKI
        index, which keeps every support vector; ValueError for the split and PKE forms, which
        do not."""
        if self.evaluator != "pki":
            raise ValueError(f"the {self.evaluator} form does not keep every support vector; "
                             "only a pki model gives its kernel expansion back")
        return self.scorer.kernel_expansion()

    def reconverted(self, evaluator: str,
                    rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD
                    ) -> KernelEvaluatorModel:
        """The same model kept as another evaluator, built from the support vectors a pki
        model keeps (ValueError for the split and PKE forms, which do not)."""
        check_conversion(evaluator, self.degree)
        from polyparse.classifiers.evaluators.modes import build_evaluator

        scorer = build_evaluator(self.kernel_expansion(), evaluator, rare_threshold)
        return type(self)(evaluator, scorer, self.classes_, self.n_support, self.degree,
                          self.gamma, self.coef0, self.stats_, self.decision)

    def predict_from_decision(self, values: np.ndarray) -> np.ndarray:
        """Labels for decision values: libsvm's vote over the pair values (one-vs-one), or the
        sign / argmax of the class values (one-vs-rest)."""
        if self.decision == "one-vs-rest":
            return super().predict_from_decision(values)
        return one_vs_one_vote(self.classes_, self._check_decision_values(values))

    def memory_bytes(self) -> dict[str, int]:
        """Bytes of each part of the evaluator (its memory_report)."""
        return {name: int(size) for name, size in self.scorer.memory_report().items()}

    def to_arrays(self) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        """Header (JSON-ready) and arrays that from_arrays turns back into this model."""
        scorer_header, arrays = self.scorer.to_arrays()
        header = {
            "backend": self.backend,
            "evaluator": self.evaluator,
            "scorer": scorer_header,
            "classes": self.classes_.tolist(),
            "n_support": self.n_support.tolist(),
            "n_support_vectors": self.n_support_vectors,
            "n_outputs": self.n_outputs,
            "degree": self.degree,
            "gamma": self.gamma,
            "coef0": self.coef0,
            "decision": self.decision,
            **self.stats_,
        }
        return header, arrays

    @classmethod
    def from_arrays(
        cls, header: dict[str, Any], arrays: dict[str, np.ndarray], source: str = "model"
    ) -> "KernelEvaluatorModel":
        """Rebuild from to_arrays() output; ModelFileError (one line naming source) otherwise."""
        with inconsistent(source):
            evaluator = EVALUATORS[header["backend"]]
            if header["evaluator"] != evaluator:
                raise ValueError(
                    f"backend {header['backend']} with evaluator {header['evaluator']!r}"
                )
            scorer_header = dict(header["scorer"])
            labels = np.asarray(header["classes"])
            n_support = np.asarray(header["n_support"], dtype=np.int32)
            degree, gamma, coef0 = header["degree"], header["gamma"], header["coef0"]
            n_outputs = int(header["n_outputs"])
            decision = header.get("decision", "one-vs-one")
        scorer = SCORERS[evaluator].from_arrays(scorer_header, arrays, source)
        stats = {key: value for key, value in header.items() if key not in _LAYOUT}
        with inconsistent(source, "model"):
            model = cls(evaluator, scorer, labels, n_support, degree, gamma, coef0, stats,
                        decision)
        model.check_output_count(source, n_outputs, model.n_outputs)
        return model
