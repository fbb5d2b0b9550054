"""Issue 3's central equality on a real model: our kernel-svm trained on kwdlc_dep/train.5k.svm
(2,715 support vectors), evaluated on the first 2,000 test.svm rows by PKI, PKE and split-svm
(by name, as --eval-mode does), against the plain NumPy kernel sum.

The same on the train.20k.svm model (about 9,100 support vectors) and every test.svm row:
benchmarks/kernel_evaluators.py --with-20k (each evaluator's largest difference from the kernel
sum); its support vectors and accuracy against libsvm's (9,099, 91.65 %):
benchmarks/kernel_svm_kwdlc.py --train train.20k.svm."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.modes import EVAL_MODES, build_evaluator
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import read_svmlight
from tests.classifiers.evaluators.test_kernel_expansion import assert_close

TEST_ROWS = 2000


@pytest.fixture(scope="module")
def model_5k(kwdlc: Path) -> KernelSVM:
    X, y = read_svmlight(kwdlc / "train.5k.svm")
    return KernelSVM(degree=2, gamma=1.0, coef0=1.0, C=1.0).fit(X, y)


@pytest.fixture(scope="module")
def test_rows(kwdlc: Path, model_5k: KernelSVM) -> tuple[BinaryMatrix, np.ndarray, np.ndarray]:
    """The first TEST_ROWS rows of test.svm, their labels and the NumPy kernel sum on them."""
    X, y = read_svmlight(kwdlc / "test.svm")
    X, y = X.take(np.arange(TEST_ROWS)), y[:TEST_ROWS]
    return X, y, model_5k.expansion_.as_kernel_expansion().naive_decision_function(X)


@pytest.mark.parametrize("mode", EVAL_MODES)
def test_every_mode_equals_the_kernel_sum_on_test_rows(model_5k: KernelSVM, test_rows,
                                                      mode: str) -> None:
    X, y, reference = test_rows
    assert_close(build_evaluator(model_5k.expansion_, mode).decision_function(X), reference)
    accuracy = np.mean(model_5k.predict_from_decision(reference) == y)
    assert accuracy > 0.88
