"""Exact evaluators of a polynomial-kernel model, chosen by name (`--eval-mode`).

All four compute the same decision values, the kernel sum over the support vectors:

- `naive`: the sum itself, one kernel value per support vector (libsvm's svm-predict; for a
  one-vs-one model each kernel value is computed once and shared by the pairs, as libsvm does);
- `pki`: the polynomial kernel inverted index (Kudo & Matsumoto 2003);
- `pke`: the full expansion into conjunction weights (Isozaki & Kazawa 2002);
- `split`: common features expanded, rare ones through the index (Goldberg & Elhadad 2008).
"""
from __future__ import annotations

from typing import Any

from classifiers.kernel_expansion import KernelExpansion
from classifiers.kernel_sum import KernelSumScorer
from classifiers.kernel_svm_expansion import OneVsOneExpansion
from classifiers.kernel_svm_scorer import KernelSVMScorer
from classifiers.pke import PKEScorer
from classifiers.pki import PKIScorer
from classifiers.scorer import BinaryScorer
from classifiers.split_svm import DEFAULT_RARE_THRESHOLD, SplitSVMScorer

EVAL_MODES = ("naive", "pki", "pke", "split")
DEFAULT_EVAL_MODE = "split"


def as_kernel_expansion(model: OneVsOneExpansion | KernelExpansion) -> KernelExpansion:
    """The KernelExpansion of a model: one output per pair of classes for one-vs-one."""
    if isinstance(model, KernelExpansion):
        return model
    coefficients, intercepts = model.pair_outputs()
    return KernelExpansion(model.support_vectors, coefficients, intercepts, model.gamma,
                           model.coef0, model.degree)


def build_evaluator(model: OneVsOneExpansion | KernelExpansion, mode: str = DEFAULT_EVAL_MODE,
                    rare_threshold: Any = DEFAULT_RARE_THRESHOLD) -> BinaryScorer:
    """A compiled scorer of the model's decision values by the named evaluator (a one-class
    one-vs-one model keeps its constant naive scorer: there is nothing to evaluate)."""
    if mode not in EVAL_MODES:
        raise ValueError(f"unknown evaluation mode {mode!r} (available: {', '.join(EVAL_MODES)})")
    if isinstance(model, OneVsOneExpansion) and (mode == "naive" or model.n_classes == 1):
        sv = model.support_vectors
        return KernelSVMScorer(sv.indptr, sv.indices, model.dual_coef, model.rho,
                               model.n_support, model.degree, model.gamma, model.coef0)
    expansion = as_kernel_expansion(model)
    if mode == "naive":
        return KernelSumScorer(expansion)
    if mode == "pki":
        return PKIScorer(expansion)
    if mode == "pke":
        return PKEScorer(expansion)
    return SplitSVMScorer(expansion, rare_threshold)
