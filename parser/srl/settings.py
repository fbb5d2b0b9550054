"""The SRL boundary detector's choices and defaults (plain Python: the command line knows them
without importing the tree kernels)."""
from __future__ import annotations

# Chosen on dev.tk for the voted perceptron with SST + poly2 (README, SRL results).
DEFAULT_EPOCHS = 3
# --learner NAME -> the tree learner's name in classifiers/tree_kernels/tree_learners.py.
LEARNERS = {"voted-perceptron": "voted-perceptron", "perceptron": "perceptron",
            "svm": "kernel-svm", "cpa": "cpa"}
DEFAULT_LEARNER = "voted-perceptron"
