"""Issue 3's central equality on a real model: our kernel-svm trained on kwdlc_dep/train.20k.svm,
evaluated on every test.svm row by PKI, PKE and split-svm (by name, as --eval-mode does),
against the plain NumPy kernel sum."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from classifiers.evaluators.modes import EVAL_MODES, build_evaluator
from classifiers.kernel_svm.svc import KernelSVM
from features.svmlight import read_svmlight
from tests.classifiers.evaluators.test_kernel_expansion import assert_close


@pytest.fixture(scope="module")
def model_20k(kwdlc: Path) -> KernelSVM:
    path = kwdlc / "train.20k.svm"
    if not path.is_file():
        pytest.skip(f"{path} not found")
    X, y = read_svmlight(path)
    return KernelSVM(degree=2, gamma=1.0, coef0=1.0, C=1.0).fit(X, y)


@pytest.mark.parametrize("mode", EVAL_MODES)
def test_every_mode_equals_the_kernel_sum_on_every_test_row(kwdlc: Path, model_20k: KernelSVM,
                                                           mode: str) -> None:
    X, y = read_svmlight(kwdlc / "test.svm")
    expansion = model_20k.expansion_.as_kernel_expansion()
    assert 8_500 < expansion.n_support_vectors < 9_700  # libsvm 3.24: 9,099
    reference = expansion.naive_decision_function(X)
    assert_close(build_evaluator(model_20k.expansion_, mode).decision_function(X), reference)
    accuracy = np.mean(model_20k.predict_from_decision(reference) == y)
    assert accuracy > 0.91
