"""Tree-kernel classifiers and SRL argument boundaries as a Python user meets them.

SVM-light-TK files give TreeInstances (labels, a TreeForest, the binary vectors); a tree
classifier is a TreeKernelModel (decision_function(forest, vectors), save, load). Score a file
with the model's interners: read_svmlight_tk(path, model.labels, model.productions).
"""
from __future__ import annotations

import os
from typing import Any

import numpy as np

from polyparse.classifiers.tree_kernels.tree_learners import train_tree_model
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel, TreeKernelSpec
from polyparse.features.svmlight_tk import TreeInstances
from polyparse.parser.formats.gold_conll import read_gold_conll
from polyparse.parser.srl.boundary_model import DEFAULT_EPOCHS, BoundaryModel
from polyparse.parser.srl.evaluate import file_scores


def train_tree_classifier(data: TreeInstances, learner: str = "voted-perceptron",
                          spec: TreeKernelSpec | None = None, epochs: int = 1,
                          C: float | None = None, j: float | None = None,
                          dag: bool = True, **cutting_plane: Any) -> TreeKernelModel:
    """A voted-perceptron, perceptron, kernel-svm or cpa (cutting-plane SVM) over the instances'
    trees (one each, labels +1 / -1) and, with spec.degree, their vectors (default spec: SST,
    lambda 0.4, + poly2). cutting_plane: cpa's keywords of train_tree_model (algorithm usvm,
    sdag or sdag+, sample, iterations, epsilon, sampling, seed, threads)."""
    spec = spec if spec is not None else TreeKernelSpec(degree=2)
    y = np.asarray(data.labels, dtype=np.float64)
    model, _ = train_tree_model(learner, spec, data.forest, y, data.vectors, epochs=epochs,
                                store="dag" if dag else "plain", C=C, j=j, **cutting_plane)
    return model


def load_tree_classifier(path: str | os.PathLike) -> TreeKernelModel:
    """A tree-kernel model file (`polyparse clf train` on a .tk file, or model.save)."""
    return TreeKernelModel.load(path)


def train_boundary_detector(path: str | os.PathLike, learner: str = "voted-perceptron",
                            spec: TreeKernelSpec | None = None, epochs: int = DEFAULT_EPOCHS,
                            C: float | None = None, j: float | None = None,
                            **cutting_plane: Any) -> BoundaryModel:
    """An SRL argument-boundary detector trained on a gold_conll file (PropBank layout);
    cutting_plane: cpa's keywords, as for train_tree_classifier."""
    return BoundaryModel.train(list(read_gold_conll(path)), learner, spec, epochs, C, j,
                               **cutting_plane)


def load_boundary_detector(path: str | os.PathLike) -> BoundaryModel:
    """A detector saved by BoundaryModel.save or `polyparse srl train`."""
    return BoundaryModel.load(path)


def evaluate_boundaries(gold: str | os.PathLike,
                        system: str | os.PathLike) -> dict[str, float | int]:
    """Node-level precision, recall and F1 of a system gold_conll file against the gold one."""
    return file_scores(gold, system)
