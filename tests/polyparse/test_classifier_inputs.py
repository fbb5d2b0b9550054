"""The Python face of the classifiers takes NumPy arrays and scipy sparse matrices as it takes a
BinaryMatrix (train_classifier, a loaded classifier's predict, a tree model's vectors); values
other than 0 and 1 are features of kernel-svm, linear and poly2-linear and refused in one line
by the others; importing polyparse still loads no scipy."""
from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import polyparse


def test_train_and_predict_on_arrays_and_sparse_matrices(tmp_path) -> None:
    rng = np.random.default_rng(11)
    dense = (rng.random((50, 8)) < 0.4).astype(np.int8)
    y = np.where(dense[:, 0] | (dense[:, 1] & dense[:, 2]), 1, -1)
    X = polyparse.BinaryMatrix.from_rows([np.flatnonzero(row) for row in dense], 8)
    clf = polyparse.train_classifier(sp.csr_matrix(dense), y, "kernel-svm")
    reference = polyparse.train_classifier(X, y, "kernel-svm")
    assert np.array_equal(clf.decision_function(X), reference.decision_function(X))
    clf.save(tmp_path / "k.model")
    loaded = polyparse.load_classifier(tmp_path / "k.model")
    assert np.array_equal(loaded.predict(dense), reference.predict(X))
    assert np.array_equal(loaded.predict(sp.coo_matrix(dense)), reference.predict(X))
    odd = dense.astype(np.float64)
    odd[7, 3] = -7.5
    assert np.array_equal(loaded.predict(sp.csr_matrix(odd)), loaded.predict(odd))
    assert polyparse.train_classifier(odd, y, "poly2-linear").predict(odd).shape == (50,)
    with pytest.raises(ValueError, match=r"^X: row 7, column 3 holds -7.5; a binary feature is "
                       r"1 \(present\) or 0 \(absent\); pa-slicing takes binary features"):
        polyparse.train_classifier(odd, y, "pa-slicing")


def test_tree_models_take_sparse_vectors(tmp_path) -> None:
    path = tmp_path / "train.tk"
    path.write_text("+1 |BT| (S (NP (DT a)) (VP (V b))) |ET| 1:1 3:1\n"
                    "-1 |BT| (S (NP (DT c)) (VP (V d))) |ET| 2:1\n"
                    "+1 |BT| (S (NP (DT a)) (VP (V d))) |ET| 1:1\n")
    data = polyparse.read_svmlight_tk(path)
    model = polyparse.train_tree_classifier(data, "perceptron", epochs=2)
    expected = model.decision_function(data.forest, data.vectors)
    dense = data.vectors.to_dense()
    assert np.array_equal(model.decision_function(data.forest, dense), expected)
    assert np.array_equal(model.decision_function(data.forest, sp.csc_matrix(dense)), expected)


def test_import_polyparse_loads_no_scipy() -> None:
    code = ("import sys, polyparse; polyparse.BinaryMatrix; "
            "print('scipy' in sys.modules or 'scipy.sparse' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "False"
