"""Exact evaluators of a polynomial-kernel model, chosen by name (`--eval-mode`).

All four compute the same decision values, the kernel sum over the support vectors:

- `naive`: the sum itself, one kernel value per support vector (libsvm's svm-predict; for a
  one-vs-one model each kernel value is computed once and shared by the pairs, as libsvm does);
- `pki`: the polynomial kernel inverted index (Kudo & Matsumoto 2003);
- `pke`: the full expansion into conjunction weights (Isozaki & Kazawa 2002);
- `split`: common features expanded, rare ones through the index (Goldberg & Elhadad 2008).

A one-vs-one model with many classes is evaluated class by class (classifiers/
one_vs_one_scorer.pyx) by the fast evaluators, with a guided exact vote under `split`; `naive`
keeps libsvm's joint sum.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from polyparse.classifiers.evaluators.choices import (
    DEFAULT_EVAL_MODE,
    DEFAULT_RARE_THRESHOLD,
    EVAL_MODES,
)
from polyparse.classifiers.evaluators.kernel_expansion import KernelExpansion
from polyparse.classifiers.evaluators.kernel_sum import KernelSumScorer
from polyparse.classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion, class_expansion
from polyparse.classifiers.evaluators.one_vs_one_scorer import OneVsOneScorer
from polyparse.classifiers.evaluators.one_vs_one_split import OneVsOneSplitScorer
from polyparse.classifiers.evaluators.one_vs_one_sum import OneVsOneSumScorer
from polyparse.classifiers.evaluators.pke import PKEScorer
from polyparse.classifiers.evaluators.pki import PKIScorer
from polyparse.classifiers.evaluators.real_kernel_sum import RealOneVsOneSumScorer
from polyparse.classifiers.evaluators.split_svm import SplitSVMScorer
from polyparse.classifiers.scorer import BinaryScorer

# One-vs-one models with at least this many classes are evaluated class by class.
PER_CLASS_MIN_CLASSES = 12


def build_evaluator(model: OneVsOneExpansion | KernelExpansion, mode: str = DEFAULT_EVAL_MODE,
                    rare_threshold: Any = DEFAULT_RARE_THRESHOLD) -> BinaryScorer:
    """A compiled scorer of the model's decision values by the named evaluator (a one-class
    one-vs-one model keeps its constant naive scorer: there is nothing to evaluate)."""
    if mode not in EVAL_MODES:
        raise ValueError(f"unknown evaluation mode {mode!r} (available: {', '.join(EVAL_MODES)})")
    if isinstance(model, OneVsOneExpansion) and model.sv_values is not None:
        if mode != "naive" and model.n_classes > 1:
            model.check_binary()
        return real_evaluator(model)
    if isinstance(model, OneVsOneExpansion) and (mode == "naive" or model.n_classes == 1):
        sv = model.support_vectors
        return OneVsOneSumScorer(sv.indptr, sv.indices, model.dual_coef, model.rho,
                                 model.n_support, model.degree, model.gamma, model.coef0)
    if isinstance(model, OneVsOneExpansion) and model.n_classes >= PER_CLASS_MIN_CLASSES:
        if mode == "split" and model.degree <= 3:
            return OneVsOneSplitScorer(model, rare_threshold)
        return OneVsOneScorer([_class_scorer(model, c, mode, rare_threshold)
                               for c in range(model.n_classes)], model.rho)
    expansion = model.as_kernel_expansion()
    return _scorer(expansion, mode, rare_threshold)


def real_evaluator(model: OneVsOneExpansion) -> RealOneVsOneSumScorer:
    """The naive scorer of a one-vs-one model that takes real-valued rows (and real-valued
    support vectors): libsvm's kernel sum of dot products."""
    sv = model.support_vectors
    return RealOneVsOneSumScorer(sv.indptr, sv.indices, model.sv_values, model.dual_coef,
                                 model.rho, model.n_support, model.degree, model.gamma,
                                 model.coef0)


def sum_expansion(model: OneVsOneExpansion) -> KernelExpansion:
    """S_c(x) = sum over the pairs (c, j) of the pair value signed towards c (d_cj for c < j,
    -d_jc for j < c): one output per class, the guide of OneVsOneSplitScorer.vote."""
    coefficients, intercepts = model.output_terms()
    signs = np.zeros((model.n_classes, model.n_pairs))
    for p, (i, j) in enumerate(model.pairs()):
        signs[i, p], signs[j, p] = 1.0, -1.0
    return KernelExpansion(model.support_vectors, signs @ coefficients, signs @ intercepts,
                           model.gamma, model.coef0, model.degree)


def _class_scorer(model: OneVsOneExpansion, c: int, mode: str,
                  rare_threshold: Any) -> BinaryScorer:
    if model.n_support[c] == 0:
        return BinaryScorer(model.n_classes - 1)
    return _scorer(class_expansion(model, c), mode, rare_threshold)


def _scorer(expansion: KernelExpansion, mode: str, rare_threshold: Any) -> BinaryScorer:
    if mode == "naive":
        return KernelSumScorer(expansion)
    if mode == "pki":
        return PKIScorer(expansion)
    if mode == "pke":
        return PKEScorer(expansion)
    return SplitSVMScorer(expansion, rare_threshold)
