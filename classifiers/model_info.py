"""What a classifier model file holds, as `polyparse clf info` prints it: the backend, classes
and kernel, the backend's own settings and training statistics, the memory of its scorer, and
for a kernel model what its split-svm form keeps at a rare threshold beside PKE's memory."""
from __future__ import annotations

from typing import Any

from polyparse.classifiers.backends import Classifier, KernelModel
from polyparse.classifiers.evaluators.choices import DEFAULT_RARE_THRESHOLD, EXPANDED_DEGREES
from polyparse.classifiers.evaluators.evaluator_model import KernelEvaluatorModel, split_summary
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.linear.poly2_linear_svm import Poly2LinearSVM
from polyparse.classifiers.online.pa_slicing import PASlicing


def classifier_info(clf: Classifier, header: dict[str, Any],
                    rare_threshold: int | float | str | None = None) -> dict[str, Any]:
    """The description of a loaded classifier and its file header (load_classifier's pair);
    rare_threshold: the split form of a kernel model at that threshold (default: the split
    evaluator's). ValueError when a kernel model has no split form at the threshold asked for
    (one class, a degree split does not expand, a threshold it refuses)."""
    if isinstance(clf, (KernelSVM, PASlicing)):
        forms = _kernel_forms(clf, rare_threshold)
    else:
        forms = _converted_forms(clf, header) if isinstance(clf, KernelEvaluatorModel) else {}
    if isinstance(clf, KernelSVM):
        details = _kernel_svm_info(clf, header)
    elif isinstance(clf, PASlicing):
        details = _pa_slicing_info(clf)
    elif isinstance(clf, KernelEvaluatorModel):
        details = _converted_info(clf, header)
    else:
        details = _linear_info(clf, header)
    memory = clf.memory_bytes()
    return {
        "backend": clf.backend,
        "format": header.get("format"),
        "objective": clf.stats_.get("objective"),
        "classes": clf.classes_.tolist(),
        "n_outputs": clf.n_outputs,
        "degree": clf.degree,
        "gamma": clf.gamma,
        "coef0": clf.coef0,
        **details,
        "memory_bytes": memory,
        "memory_total_bytes": sum(memory.values()),
        **forms,
        "training": header.get("training"),
    }


def _kernel_svm_info(clf: KernelSVM, header: dict[str, Any]) -> dict[str, Any]:
    expansion = clf.expansion_
    assert expansion is not None
    trained = {} if header.get("format") == "libsvm" else clf.parameters()
    return {
        "n_support_vectors": clf.n_support_vectors,
        "n_support": expansion.n_support.tolist(),
        "rho": expansion.rho.tolist(),
        **{key: trained.get(key) for key in ("C", "eps", "class_weight", "shrinking")},
        "iterations": clf.stats_.get("iterations"),
        "converged": clf.stats_.get("converged"),
        "n_bounded": clf.stats_.get("n_bounded"),
    }


def _pa_slicing_info(clf: PASlicing) -> dict[str, Any]:
    parameters = clf.parameters()
    del parameters["degree"]
    return {"n_support_vectors": clf.n_support_vectors, **parameters,
            "training_stats": clf.stats_}


def _kernel_forms(
    clf: KernelModel, rare_threshold: int | float | str | None
) -> dict[str, dict[str, Any] | None]:
    """What the split evaluator keeps at the rare threshold (what `clf convert --to split`
    stores), beside PKE's memory; None when the model has no pair of classes to evaluate, real
    support vectors or a degree these evaluators do not expand."""
    expansion = clf.expansion_
    assert expansion is not None
    one_class = isinstance(clf, KernelSVM) and expansion.n_classes < 2
    real = getattr(expansion, "sv_values", None) is not None
    if one_class or real or clf.degree not in EXPANDED_DEGREES:
        if rare_threshold is not None:
            reason = ("one class" if one_class else
                      "real-valued support vectors, which split does not expand" if real else
                      f"degree {clf.degree}; split expands degree "
                      f"{EXPANDED_DEGREES[0]}..{EXPANDED_DEGREES[-1]}")
            raise ValueError(f"the model has no split form ({reason})")
        return {"split": None, "pke": None}
    from polyparse.classifiers.evaluators.modes import build_evaluator

    dense = expansion.as_kernel_expansion()
    threshold = DEFAULT_RARE_THRESHOLD if rare_threshold is None else rare_threshold
    split = build_evaluator(dense, "split", threshold)
    pke_memory = build_evaluator(dense, "pke").memory_report()
    return {
        "split": split_summary(split),
        "pke": {"memory_bytes": pke_memory, "memory_total_bytes": sum(pke_memory.values())},
    }


def _converted_info(clf: KernelEvaluatorModel, header: dict[str, Any]) -> dict[str, Any]:
    return {
        "evaluator": clf.evaluator,
        "n_support_vectors": clf.n_support_vectors,
        "n_support": clf.n_support.tolist(),
        "conversion": header.get("conversion"),
    }


def _converted_forms(
    clf: KernelEvaluatorModel, header: dict[str, Any]
) -> dict[str, dict[str, Any] | None]:
    """A split-svm model's split form beside the PKE memory measured when it was converted."""
    if clf.evaluator != "split":
        return {}
    pke_total = (header.get("conversion") or {}).get("pke_memory_total_bytes")
    return {"split": split_summary(clf.scorer), "pke": {"memory_total_bytes": pke_total}}


def _linear_info(clf: Poly2LinearSVM, header: dict[str, Any]) -> dict[str, Any]:
    return {
        "dims": len(clf.scorer.index),
        "layout": header.get("layout"),
        "C": clf.C,
        "loss": clf.loss,
        "eps": clf.eps,
        "max_iter": clf.max_iter,
        "min_pair_count": clf.min_pair_count,
        "seed": clf.seed,
        "dtype": clf.dtype,
        "iterations": clf.stats_.get("iterations"),
        "converged": clf.stats_.get("converged"),
        "solver": clf.solver,
        "projected_gradient_gap": clf.stats_.get("projected_gradient_gap"),
        "gradient_ratio": clf.stats_.get("gradient_ratio"),
        "cg_iterations": clf.stats_.get("cg_iterations"),
        "n_support": clf.stats_.get("n_support"),
        "weight_sparsity": clf.stats_.get("weight_sparsity"),
    }
