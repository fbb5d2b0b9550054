"""Real-valued features: kernel-svm (SMO, naive kernel sum), linear and poly2-linear against
plain NumPy references, libsvm-official and liblinear-official on scikit-learn's bundled data
sets written by dump_svmlight_file (equal accuracy, decision values within 1e-6); model files
keep them; the binary-only backends refuse them in one line naming those that take them."""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.backends import convert_classifier
from polyparse.classifiers.evaluators.real_kernel_sum import RealOneVsOneSumScorer
from polyparse.classifiers.kernel_svm.libsvm_model import format_libsvm_model, read_libsvm_model
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.linear.poly2_linear_svm import LinearSVM, Poly2LinearSVM
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.real_matrix import RealMatrix, as_feature_matrix
from polyparse.features.svmlight import SvmlightFormatError, parse_svmlight, read_svmlight

sklearn_datasets = pytest.importorskip("sklearn.datasets")

# (loader, rows kept): small enough for a quick test, every class present.
DATA_SETS = {"breast_cancer": 300, "digits": 500, "wine": 178}


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, Path]]:
    """Each data set scaled to [0, 1] (as svm-scale does), shuffled, cut 70/30 and written by
    scikit-learn's dump_svmlight_file (1-based ids, as libsvm's tools read them)."""
    folder = tmp_path_factory.mktemp("real")
    out = {}
    for name, rows in DATA_SETS.items():
        X, y = getattr(sklearn_datasets, f"load_{name}")(return_X_y=True)
        order = np.random.default_rng(0).permutation(len(y))[:rows]
        X, y = X[order], y[order]
        X = (X - X.min(0)) / np.maximum(X.max(0) - X.min(0), 1e-12)
        cut = int(0.7 * len(y))
        paths = folder / f"{name}.train", folder / f"{name}.test"
        sklearn_datasets.dump_svmlight_file(X[:cut], y[:cut], str(paths[0]), zero_based=False)
        sklearn_datasets.dump_svmlight_file(X[cut:], y[cut:], str(paths[1]), zero_based=False)
        out[name] = paths
    return out


def read_pair(paths: tuple[Path, Path]) -> tuple[RealMatrix, np.ndarray, RealMatrix, np.ndarray]:
    X, y = read_svmlight(paths[0], real_values=True)
    T, t = read_svmlight(paths[1], n_features=X.n_features, real_values=True)
    assert isinstance(X, RealMatrix) and isinstance(T, RealMatrix)
    return X, y, T, t


def random_real(n: int, n_features: int, seed: int) -> RealMatrix:
    rng = np.random.default_rng(seed)
    dense = np.where(rng.random((n, n_features)) < 0.3, rng.normal(size=(n, n_features)), 0.0)
    X = as_feature_matrix(dense)
    assert isinstance(X, RealMatrix)
    return X


# --- matrices and files ---------------------------------------------------------------------

def test_feature_matrices_of_arrays() -> None:
    sp = pytest.importorskip("scipy.sparse")
    dense = np.array([[0.0, 1.5, 0.0], [1.0, 0.0, -2.0]])
    X = as_feature_matrix(dense)
    assert isinstance(X, RealMatrix)
    np.testing.assert_array_equal(X.to_dense(), dense)
    np.testing.assert_array_equal(as_feature_matrix(sp.csc_matrix(dense)).to_dense(), dense)
    np.testing.assert_array_equal(X.take([1, 1, 0]).to_dense(), dense[[1, 1, 0]])
    assert X.first_non_binary() == (0, 1, 1.5)
    assert isinstance(as_feature_matrix(np.array([[0, 1], [1, 1]])), BinaryMatrix)
    with pytest.raises(ValueError, match=r"^X: row 1, column 0 holds nan; feature values"):
        as_feature_matrix(np.array([[0.0, 1.0], [np.nan, 0.0]]))


def test_svmlight_real_values() -> None:
    data = b"1 1:0.5 3:1\n-1 2:2e0 4:0 # comment\n2 1:1\n"
    X, y = parse_svmlight(data, real_values=True)
    assert isinstance(X, RealMatrix)
    np.testing.assert_array_equal(X.to_dense(), [[0, 0.5, 0, 1], [0, 0, 2, 0], [0, 1, 0, 0]])
    assert isinstance(parse_svmlight(b"1 1:1 3:1.0\n-1 2:0\n", real_values=True)[0],
                      BinaryMatrix)
    with pytest.raises(SvmlightFormatError, match=r"^r.svm:1: feature 1 has value 0.5; only "):
        parse_svmlight(b"1 1:0.5\n", "r.svm")
    with pytest.raises(SvmlightFormatError, match=r"^r.svm:2: value '1e999' of feature 3 is not"):
        parse_svmlight(b"1 1:0.5\n2 3:1e999\n", "r.svm", real_values=True)


# --- kernel-svm -----------------------------------------------------------------------------

def reference_pair_values(sv: np.ndarray, dual_coef: np.ndarray, rho: np.ndarray,
                          n_support: np.ndarray, X: np.ndarray, degree: int, gamma: float,
                          coef0: float) -> np.ndarray:
    """libsvm's one-vs-one decision values in plain NumPy (dense rows)."""
    kernel = (gamma * X @ sv.T + coef0) ** degree
    start = np.concatenate([[0], np.cumsum(n_support)])
    k = n_support.size
    out = []
    pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
    for p, (i, j) in enumerate(pairs):
        si, sj = slice(start[i], start[i + 1]), slice(start[j], start[j + 1])
        out.append(kernel[:, si] @ dual_coef[j - 1, si] + kernel[:, sj] @ dual_coef[i, sj]
                   - rho[p])
    return np.stack(out, axis=1)


@pytest.mark.parametrize("degree", [1, 2, 3])
def test_real_kernel_sum_equals_numpy(degree: int) -> None:
    rng = np.random.default_rng(degree)
    sv = random_real(40, 12, seed=1)
    n_support = np.array([10, 20, 10])
    dual_coef, rho = rng.normal(size=(2, 40)), rng.normal(size=3)
    scorer = RealOneVsOneSumScorer(sv.indptr, sv.indices, sv.values, dual_coef, rho, n_support,
                                   degree, 0.5, 0.75)
    X = random_real(30, 12, seed=2)
    expected = reference_pair_values(sv.to_dense(), dual_coef, rho, n_support, X.to_dense(),
                                     degree, 0.5, 0.75)
    np.testing.assert_allclose(scorer.decision_function(X), expected, rtol=1e-12, atol=1e-12)
    # Binary rows: the compiled `scores` of the BinaryScorer contract (the base class's loop).
    B = BinaryMatrix.from_rows([np.flatnonzero(row) for row in X.to_dense()], n_features=12)
    binary = reference_pair_values(sv.to_dense(), dual_coef, rho, n_support, B.to_dense(),
                                   degree, 0.5, 0.75)
    np.testing.assert_allclose(BinaryScorer.decision_function(scorer, B), binary, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(scorer.decision_function(B), binary, rtol=1e-12, atol=1e-12)


def libsvm_rows(X: RealMatrix) -> list[dict[int, float]]:
    return [dict(zip(X.row(i).tolist(), X.row_values(i).tolist())) for i in range(len(X))]


@pytest.mark.parametrize("name", list(DATA_SETS))
@pytest.mark.parametrize("degree, gamma, coef0, C", [(2, 0.5, 1.0, 1.0), (3, 1.0, 0.5, 10.0)])
def test_kernel_svm_equals_libsvm(files, name: str, degree: int, gamma: float, coef0: float,
                                  C: float) -> None:
    svmutil = pytest.importorskip("libsvm.svmutil")
    X, y, T, t = read_pair(files[name])
    model = svmutil.svm_train(y.tolist(), libsvm_rows(X),
                              f"-t 1 -d {degree} -g {gamma} -r {coef0} -c {C} -q")
    labels, accuracy, values = svmutil.svm_predict(t.tolist(), libsvm_rows(T), model, "-q")
    clf = KernelSVM(degree=degree, gamma=gamma, coef0=coef0, C=C).fit(X, y)
    assert (clf.support_ + 1).tolist() == model.get_sv_indices()
    np.testing.assert_allclose(clf.decision_function(T), np.asarray(values), rtol=0, atol=1e-6)
    assert 100 * np.mean(clf.predict(T) == t) == pytest.approx(accuracy[0])
    np.testing.assert_array_equal(clf.predict(T), np.asarray(labels).astype(t.dtype))


def test_real_kernel_models_round_trip(files, tmp_path: Path) -> None:
    svmutil = pytest.importorskip("libsvm.svmutil")
    X, y, T, t = read_pair(files["wine"])
    clf = KernelSVM(degree=2, gamma=0.5).fit(X, y)
    expected = clf.decision_function(T)
    assert clf.expansion_.sv_values is not None
    again = KernelSVM.from_bytes(clf.to_bytes())
    np.testing.assert_array_equal(again.decision_function(T), expected)
    # libsvm model files, both ways: svm-predict reads ours, we read svm-train's.
    path = tmp_path / "wine.libsvm"
    path.write_text(format_libsvm_model(clf.expansion_))
    _, _, values = svmutil.svm_predict(t.tolist(), libsvm_rows(T), svmutil.svm_load_model(
        str(path)), "-q")
    np.testing.assert_allclose(values, expected, rtol=0, atol=1e-9)
    model = svmutil.svm_train(y.tolist(), libsvm_rows(X), "-t 1 -d 2 -g 0.5 -r 1 -q")
    svmutil.svm_save_model(str(path), model)
    loaded = KernelSVM.from_expansion(read_libsvm_model(path).expansion)
    _, _, values = svmutil.svm_predict(t.tolist(), libsvm_rows(T), model, "-q")
    # svm_save_model writes the support vectors' values as %.8g.
    np.testing.assert_allclose(loaded.decision_function(T), values, rtol=0, atol=1e-6)


def test_real_support_vectors_refuse_the_fast_evaluators(files) -> None:
    X, y, T, _ = read_pair(files["wine"])
    clf = KernelSVM().fit(X, y)
    for to in ("split", "pki", "pke"):
        with pytest.raises(ValueError, match="support vectors hold real values, which only the "
                           "naive evaluator scores"):
            convert_classifier(clf, to)
    binary = KernelSVM().fit(BinaryMatrix(X.indptr, X.indices, X.n_features), y)
    pki = convert_classifier(binary, "pki")
    with pytest.raises(ValueError, match=r"^X: row 0, column \d+ holds .*; pki takes binary "
                       r"features \(0/1\) only; real values are taken by kernel-svm "):
        pki.decision_function(T)


# --- linear and poly2-linear ----------------------------------------------------------------

@pytest.mark.parametrize("name", list(DATA_SETS))
def test_linear_equals_liblinear(files, name: str) -> None:
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y, T, t = read_pair(files[name])
    model = liblinear.train(y.tolist(), libsvm_rows(X), "-s 1 -c 1 -e 1e-9 -B 1 -q")
    _, accuracy, values = liblinear.predict(t.tolist(), libsvm_rows(T), model, "-q")
    clf = LinearSVM(eps=1e-9, max_iter=100000, dtype="float64").fit(X, y)
    np.testing.assert_allclose(clf.decision_function(T), np.asarray(values), rtol=0, atol=1e-6)
    assert 100 * np.mean(clf.predict(T) == t) == pytest.approx(accuracy[0])


def test_l1_loss_equals_liblinear_where_it_converges(files) -> None:
    """liblinear -s 3 (L1 loss, dual) meets its stopping rule on breast-cancer at C 0.1 and
    0.03: the decision values agree within 1e-6."""
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y, T, t = read_pair(files["breast_cancer"])
    for C in (0.1, 0.03):
        model = liblinear.train(y.tolist(), libsvm_rows(X), f"-s 3 -c {C} -e 1e-9 -B 1 -q")
        _, accuracy, values = liblinear.predict(t.tolist(), libsvm_rows(T), model, "-q")
        clf = LinearSVM(loss="l1", C=C, eps=1e-9, max_iter=100000, dtype="float64").fit(X, y)
        np.testing.assert_allclose(clf.decision_function(T), np.asarray(values), rtol=0,
                                   atol=1e-6)
        assert 100 * np.mean(clf.predict(T) == t) == pytest.approx(accuracy[0])


def hinge_objective(w: np.ndarray, b: float, X: np.ndarray, signs: np.ndarray,
                    C: float) -> float:
    """The L1-loss primal with liblinear's -B 1 bias (regularized as a weight):
    (||w||^2 + b^2) / 2 + C sum_i max(0, 1 - y_i (w . x_i + b))."""
    return 0.5 * (w @ w + b * b) + C * np.maximum(0.0, 1.0 - signs * (X @ w + b)).sum()


@pytest.mark.parametrize("name", list(DATA_SETS))
def test_l1_loss_reaches_liblinears_objective_or_lower(files, name: str) -> None:
    """Where liblinear -s 3 stops at its iteration cap (digits, wine at C 1: it warns), its
    weights are not the optimum, so decision values cannot agree to 1e-6; each one-vs-rest
    output of ours has a primal objective at most liblinear's (within 1e-9 relative), and
    both predict the same labels on nearly every test row."""
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y, T, t = read_pair(files[name])
    model = liblinear.train(y.tolist(), libsvm_rows(X), "-s 3 -c 1 -e 1e-9 -B 1 -q")
    clf = LinearSVM(loss="l1", eps=1e-9, max_iter=100000, dtype="float64").fit(X, y)
    dense = X.to_dense()
    probes = as_feature_matrix(np.vstack([np.eye(X.n_features), np.zeros(X.n_features)]))
    ours = clf.decision_function(probes).reshape(X.n_features + 1, -1)
    labels = model.get_labels()
    outputs = range(1) if len(labels) == 2 else range(len(labels))
    for k in outputs:
        w, b = model.get_decfun(k)
        positive = labels[k]
        signs = np.where(y == positive, 1.0, -1.0)
        # liblinear's weights are of features 1..n (the ids are 1-based; column 0 is empty).
        theirs = hinge_objective(np.asarray(w), b, dense[:, 1:len(w) + 1], signs, 1.0)
        column = k if ours.shape[1] > 1 else 0
        ours_b = ours[-1, column]
        ours_w = ours[:-1, column] - ours_b
        if clf.classes_[0] != positive and ours.shape[1] == 1:
            ours_w, ours_b = -ours_w, -ours_b
        mine = hinge_objective(ours_w, ours_b, dense, signs, 1.0)
        assert mine <= theirs * (1 + 1e-9), (k, mine, theirs)
    _, accuracy, _ = liblinear.predict(t.tolist(), libsvm_rows(T), model, "-q")
    assert abs(100 * np.mean(clf.predict(T) == t) - accuracy[0]) <= 100 / len(t) + 1e-9


def explicit_phi(X: RealMatrix, gamma: float, coef0: float,
                 columns: dict[tuple, int]) -> list[dict[int, float]]:
    """Rows of phi(x) = [coef0, sqrt(2 gamma coef0) x_i, gamma x_i^2, sqrt(2) gamma x_i x_j] as
    liblinear reads them (plain Python; new coordinates numbered as they come)."""
    rows = []
    for i in range(len(X)):
        items = list(zip(X.row(i).tolist(), X.row_values(i).tolist()))
        row = {1: coef0}
        for a, (f, u) in enumerate(items):
            terms = [(("l", f), math.sqrt(2 * gamma * coef0) * u), (("s", f), gamma * u * u)]
            terms += [(("p", f, g), math.sqrt(2) * gamma * u * v) for g, v in items[a + 1:]]
            for key, value in terms:
                row[columns.setdefault(key, len(columns) + 2)] = value
        rows.append(row)
    return rows


@pytest.mark.parametrize("name", ["wine", "breast_cancer"])
def test_poly2_linear_equals_liblinear_on_explicit_phi(files, name: str) -> None:
    liblinear = pytest.importorskip("liblinear.liblinearutil")
    X, y, T, t = read_pair(files[name])
    columns: dict[tuple, int] = {}
    train_rows = explicit_phi(X, 0.5, 1.0, columns)
    model = liblinear.train(y.tolist(), train_rows, "-s 1 -c 1 -e 1e-9 -q")
    test_rows = [{j: v for j, v in row.items() if j < len(columns) + 2}
                 for row in explicit_phi(T, 0.5, 1.0, dict(columns))]
    _, accuracy, values = liblinear.predict(t.tolist(), test_rows, model, "-q")
    clf = Poly2LinearSVM(gamma=0.5, eps=1e-9, max_iter=100000, dtype="float64").fit(X, y)
    np.testing.assert_allclose(clf.decision_function(T), np.asarray(values), rtol=0, atol=1e-6)
    assert 100 * np.mean(clf.predict(T) == t) == pytest.approx(accuracy[0])


@pytest.mark.parametrize("degree", [1, 2])
def test_real_linear_models_score_like_numpy(degree: int, tmp_path: Path) -> None:
    X = random_real(120, 9, seed=3)
    dense = X.to_dense()
    y = np.where(dense[:, 0] + dense[:, 1] * dense[:, 2] > 0, 1, -1)
    clf = Poly2LinearSVM(degree=degree, gamma=0.5, coef0=1.0, dtype="float64",
                         min_pair_count=1).fit(X, y)
    T = random_real(50, 9, seed=4)
    keys = clf.scorer.index.keys()
    weights, square = clf._dense_weights()[:, 0], clf.square_
    expected = np.full(len(T), clf.scorer.arrays["intercept"][0])
    for i, row in enumerate(T.to_dense()):
        for key, w in zip(keys.tolist(), weights.tolist()):
            a, b = key >> 32, key & 0xFFFFFFFF
            if a == b:
                sq = 0.0 if square is None else float(square[keys.tolist().index(key), 0])
                expected[i] += (w - sq) * row[a] + sq * row[a] ** 2
            else:
                expected[i] += w * row[a] * row[b]
    np.testing.assert_allclose(clf.decision_function(T)[:, 0], expected, rtol=1e-10, atol=1e-10)
    # Binary rows: the compiled scorer (single slots hold linear + square) equals the real sum.
    B = BinaryMatrix(T.indptr, T.indices, T.n_features)
    ones = RealMatrix(T.indptr, T.indices, np.full(T.nnz, 1.0 + 2**-40), T.n_features)
    np.testing.assert_allclose(clf.decision_function(B), clf.decision_function(ones),
                               rtol=1e-9, atol=1e-9)
    again = Poly2LinearSVM.from_bytes(clf.to_bytes())
    np.testing.assert_array_equal(again.decision_function(T), clf.decision_function(T))


def test_a_binary_poly2_model_refuses_real_rows() -> None:
    B = BinaryMatrix.from_rows([[0, 1], [1, 2], [0, 2], [2]], n_features=3)
    clf = Poly2LinearSVM().fit(B, [1, -1, 1, -1])
    with pytest.raises(ValueError, match="^a poly2-linear model trained on binary features "):
        clf.decision_function(np.array([[0.5, 1.0, 0.0]]))
    linear = LinearSVM().fit(B, [1, -1, 1, -1])
    (first,) = linear.scorer.index.lookup(np.zeros(1, dtype=np.uint64))  # feature 0's single
    expected = linear.decision_function(B.take([0]))[0, 0] - linear._dense_weights()[first, 0] / 2
    assert linear.decision_function(np.array([[0.5, 1.0, 0.0]]))[0, 0] == pytest.approx(expected)
