"""kernel-svm: SMO against libsvm-official (objective, support vectors, decision values, votes),
the compiled scorer against NumPy, model files, cache/shrinking/threads invariance."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.evaluators.one_vs_one_expansion import OneVsOneExpansion
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.classifiers.model_file import ModelFileError, read_model_file, write_model_file
from polyparse.classifiers.scorer import BinaryScorer
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import read_svmlight

svmutil = pytest.importorskip("libsvm.svmutil")


def random_problem(
    n: int, n_features: int, labels: list[int], seed: int, max_active: int = 10
) -> tuple[BinaryMatrix, np.ndarray]:
    """Rows of 1..max_active random ids (1-based, as libsvm's), labels from a noisy rule."""
    rng = np.random.default_rng(seed)
    rows = [
        np.sort(rng.choice(np.arange(1, n_features), size=rng.integers(1, max_active + 1),
                           replace=False))
        for _ in range(n)
    ]
    X = BinaryMatrix.from_rows(rows, n_features=n_features)
    hidden = rng.normal(size=(n_features, len(labels)))
    scores = np.stack([hidden[row].sum(0) + hidden[row[0]] * hidden[row[-1]] for row in rows])
    scores += rng.normal(scale=0.7, size=scores.shape)
    return X, np.asarray(labels)[np.argmax(scores, axis=1)]


def libsvm_nodes(X: BinaryMatrix) -> list[dict[int, float]]:
    return [{int(i): 1.0 for i in X.row(r)} for r in range(len(X))]


def libsvm_train(X, y, options: str, capfd) -> tuple[object, list[float]]:
    """libsvm-official's model and the obj it prints for each pair of classes."""
    capfd.readouterr()
    model = svmutil.svm_train(y.tolist(), libsvm_nodes(X), options)
    printed = capfd.readouterr().out
    return model, [float(v) for v in re.findall(r"obj = (-?[\d.]+)", printed)]


def libsvm_options(clf: KernelSVM) -> str:
    weights = " ".join(f"-w{label} {weight!r}" for label, weight in clf.class_weight.items())
    return (
        f"-s 0 -t 1 -d {clf.degree} -g {clf.gamma!r} -r {clf.coef0!r} -c {clf.C!r} "
        f"-e {clf.eps!r} -h {int(clf.shrinking)} {weights}"
    )


def assert_same_as_libsvm(clf: KernelSVM, X: BinaryMatrix, y: np.ndarray, capfd) -> None:
    """Objective, support vectors, labels, decision values and votes equal libsvm's."""
    model, objectives = libsvm_train(X, y, libsvm_options(clf), capfd)
    clf.fit(X, y)
    assert clf.classes_.tolist() == model.get_labels()
    assert clf.expansion_.n_support.tolist() == model.nSV[: model.nr_class]
    assert (clf.support_ + 1).tolist() == model.get_sv_indices()
    np.testing.assert_allclose(clf.objective_, objectives, rtol=1e-5, atol=1e-6)
    labels, _, values = svmutil.svm_predict(y.tolist(), libsvm_nodes(X), model, "-q")
    ours = clf.decision_function(X)
    np.testing.assert_allclose(ours, np.asarray(values), rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(clf.predict(X), np.asarray(labels).astype(y.dtype))


@pytest.mark.parametrize(
    "degree, gamma, coef0, C",
    [(2, 1.0, 1.0, 1.0), (1, 1.0, 0.0, 0.5), (3, 0.5, 0.25, 10.0), (4, 0.2, 1.0, 3.0)],
)
def test_binary_matches_libsvm(capfd, degree: int, gamma: float, coef0: float, C: float) -> None:
    X, y = random_problem(300, 60, [1, -1], seed=degree)
    clf = KernelSVM(degree=degree, gamma=gamma, coef0=coef0, C=C)
    assert_same_as_libsvm(clf, X, y, capfd)


def test_minus_one_first_is_swapped_like_libsvm(capfd) -> None:
    X, y = random_problem(200, 40, [-1, 1], seed=5)
    y[0] = -1
    clf = KernelSVM()
    assert_same_as_libsvm(clf, X, y, capfd)
    assert clf.classes_.tolist() == [1, -1]


@pytest.mark.parametrize("labels", [[2, 0, 7], [5, -2, 9, 0]])
def test_multiclass_votes_match_libsvm(capfd, labels: list[int]) -> None:
    X, y = random_problem(400, 50, labels, seed=len(labels))
    clf = KernelSVM(degree=2, gamma=0.5, coef0=1.0, C=2.0)
    assert_same_as_libsvm(clf, X, y, capfd)
    assert clf.n_outputs == len(labels) * (len(labels) - 1) // 2


def test_class_weights_match_libsvm(capfd) -> None:
    X, y = random_problem(300, 50, [3, 1, 2], seed=11)
    clf = KernelSVM(degree=3, gamma=0.5, coef0=0.5, C=1.5, class_weight={3: 2.0, 2: 0.25})
    assert_same_as_libsvm(clf, X, y, capfd)


def test_without_shrinking_and_other_eps_match_libsvm(capfd) -> None:
    X, y = random_problem(250, 40, [1, -1], seed=13)
    clf = KernelSVM(degree=2, eps=1e-5, shrinking=False)
    assert_same_as_libsvm(clf, X, y, capfd)


def test_kwdlc_subset_matches_libsvm(kwdlc: Path, capfd) -> None:
    X, y = read_svmlight(kwdlc / "train.5k.svm")
    keep = np.arange(1500)
    X, y = X.take(keep), y[keep]
    assert_same_as_libsvm(KernelSVM(degree=2, gamma=1.0, coef0=1.0, C=1.0), X, y, capfd)


def test_tiny_cache_shrinking_and_threads_do_not_change_the_model() -> None:
    X, y = random_problem(300, 40, [0, 1, 2], seed=17)
    reference = KernelSVM(degree=2, C=5.0).fit(X, y)
    for clf in (
        KernelSVM(degree=2, C=5.0, cache_mb=1e-6),
        KernelSVM(degree=2, C=5.0, threads=3),
    ):
        clf.fit(X, y)
        np.testing.assert_array_equal(clf.expansion_.dual_coef, reference.expansion_.dual_coef)
        np.testing.assert_array_equal(clf.expansion_.rho, reference.expansion_.rho)
        assert clf.expansion_.support_vectors == reference.expansion_.support_vectors
    tiny = KernelSVM(degree=2, C=5.0, cache_mb=1e-6).fit(X, y)
    assert sum(tiny.stats_["kernel_columns"]) > sum(reference.stats_["kernel_columns"])
    unshrunk = KernelSVM(degree=2, C=5.0, shrinking=False).fit(X, y)
    np.testing.assert_allclose(unshrunk.objective_, reference.objective_, rtol=1e-4)


def test_compiled_scorer_equals_numpy_reference() -> None:
    X, y = random_problem(300, 80, [4, 1, 3], seed=19)
    clf = KernelSVM(degree=3, gamma=0.3, coef0=0.7, C=3.0).fit(X, y)
    test, _ = random_problem(200, 120, [0, 1], seed=20, max_active=25)
    reference = clf.expansion_.naive_decision_function(test)
    bulk = clf.decision_function(test)
    one_by_one = BinaryScorer.decision_function(clf.scorer, test)  # the per-row `scores`
    np.testing.assert_allclose(bulk, reference, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(one_by_one, bulk)
    np.testing.assert_array_equal(clf.predict(test), clf.expansion_.vote(reference))


def test_pair_outputs_and_terms() -> None:
    X, y = random_problem(200, 40, [0, 1, 2], seed=23)
    expansion = KernelSVM().fit(X, y).expansion_
    coefficients, intercepts = expansion.output_terms()
    assert coefficients.shape == (3, expansion.n_support_vectors)
    start = expansion.class_start()
    for p, (i, j) in enumerate(expansion.pairs()):
        rows, coef = expansion.pair_terms(p)
        assert rows.tolist() == list(range(start[i], start[i + 1])) + list(
            range(start[j], start[j + 1])
        )
        np.testing.assert_array_equal(coefficients[p, rows], coef)
        assert np.count_nonzero(coefficients[p]) == np.count_nonzero(coef)
        assert intercepts[p] == -expansion.rho[p]
        # Coefficients of class i's support vectors are positive, class j's negative (y a).
        assert (coef[: start[i + 1] - start[i]] >= 0).all()
        assert (coef[start[i + 1] - start[i] :] <= 0).all()


def test_step_limit() -> None:
    X, y = random_problem(200, 30, [0, 1], seed=43)
    clf = KernelSVM(max_iter=7).fit(X, y)
    assert clf.stats_["iterations"] == [7] and clf.stats_["converged"] == [False]
    full = KernelSVM().fit(X, y)
    assert full.stats_["converged"] == [True] and full.stats_["iterations"][0] > 7
    assert full.objective_[0] < clf.objective_[0]


def test_single_class_is_constant() -> None:
    X, _ = random_problem(20, 12, [0], seed=29)
    clf = KernelSVM().fit(X, np.full(20, 4))
    assert clf.n_outputs == 1 and clf.n_support_vectors == 0
    np.testing.assert_array_equal(clf.decision_function(X), np.ones((20, 1)))
    assert clf.predict(X).tolist() == [4] * 20


def test_string_labels() -> None:
    X, y = random_problem(150, 30, [0, 1, 2], seed=31)
    names = np.array(["NN", "VB", "JJ"])[y]
    clf = KernelSVM().fit(X, names)
    assert clf.classes_.tolist() == list(dict.fromkeys(names.tolist()))
    assert (clf.predict(X) == names).mean() > 0.6


def test_save_load_round_trip(tmp_path: Path) -> None:
    X, y = random_problem(200, 40, [0, 1, 2], seed=37)
    clf = KernelSVM(degree=3, gamma=0.5, coef0=2.0, C=4.0, class_weight={1: 2.0}).fit(X, y)
    path = tmp_path / "k.model"
    clf.save(path)
    again = KernelSVM.load(path)
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))
    np.testing.assert_array_equal(again.support_, clf.support_)
    assert again.parameters() == clf.parameters()
    assert again.objective_ == clf.objective_
    clf.save(tmp_path / "k2.model")
    assert (tmp_path / "k2.model").read_bytes() == path.read_bytes()


def test_inconsistent_model_files(tmp_path: Path) -> None:
    X, y = random_problem(100, 30, [0, 1], seed=41)
    KernelSVM().fit(X, y).save(tmp_path / "k.model")
    header, arrays = read_model_file(tmp_path / "k.model")
    broken = dict(arrays)
    del broken["rho"]
    write_model_file(tmp_path / "missing.model", header, broken)
    with pytest.raises(ModelFileError, match=r"missing.model: incomplete model file .*'rho'"):
        KernelSVM.load(tmp_path / "missing.model")
    write_model_file(tmp_path / "counts.model", header,
                     dict(arrays, n_support=np.array([1, 1], dtype=np.int32)))
    with pytest.raises(ModelFileError, match=r"counts.model: inconsistent model"):
        KernelSVM.load(tmp_path / "counts.model")


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(degree=0), "degree must be at least 1"),
        (dict(gamma=0.0), "gamma must be positive"),
        (dict(C=-1.0), "C must be positive"),
        (dict(eps=0.0), "eps must be positive"),
        (dict(cache_mb=0.0), "cache_mb must be positive"),
        (dict(class_weight={1: 0.0}), "weight of class 1 must be positive"),
    ],
)
def test_invalid_parameters(params: dict, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        KernelSVM(**params)


def test_expansion_checks_shapes() -> None:
    sv = BinaryMatrix.from_rows([[1, 2], [3]], n_features=4)
    with pytest.raises(ValueError, match="n_support sums to 3"):
        OneVsOneExpansion(sv, [[1.0, -1.0]], [0.0], 1.0, 1.0, 2, np.array([1, -1]),
                          np.array([2, 1]))
    with pytest.raises(ValueError, match="dual_coef must have shape"):
        OneVsOneExpansion(sv, [[1.0, -1.0, 0.0]], [0.0], 1.0, 1.0, 2, np.array([1, -1]),
                          np.array([1, 1]))
    with pytest.raises(ValueError, match="rho must hold 1 values"):
        OneVsOneExpansion(sv, [[1.0, -1.0]], [0.0, 1.0], 1.0, 1.0, 2, np.array([1, -1]),
                          np.array([1, 1]))


def test_kwdlc_5k_reaches_libsvm_figures(kwdlc: Path) -> None:
    """datasets/README.md: libsvm 3.24, (x.y+1)^2, C=1 on train.5k.svm gives obj -2.019947,
    2,715 support vectors and 89.80 % on test.svm."""
    X, y = read_svmlight(kwdlc / "train.5k.svm")
    clf = KernelSVM(degree=2, gamma=1.0, coef0=1.0, C=1.0).fit(X, y)
    assert clf.objective_[0] == pytest.approx(-2.019947, rel=1e-3)
    assert abs(clf.n_support_vectors - 2715) <= 27
    test, test_y = read_svmlight(kwdlc / "test.svm")
    assert 100 * np.mean(clf.predict(test) == test_y) == pytest.approx(89.80, abs=0.01)


def test_degree_5_matches_libsvm(capfd) -> None:
    """Degrees past 4 train as libsvm's `-t 1 -d 5` does (the SMO takes any degree)."""
    X, y = random_problem(250, 40, [1, -1], seed=19)
    assert_same_as_libsvm(KernelSVM(degree=5, gamma=0.2, coef0=1.0, C=2.0), X, y, capfd)


def test_balanced_class_weights_are_n_over_k_n_c(capfd) -> None:
    """class_weight="balanced" is scikit-learn's n / (k n_c): the model libsvm trains with
    those weights given one by one."""
    X, y = random_problem(300, 50, [3, 1, 2], seed=23)
    y[:150] = 3
    labels, counts = np.unique(y, return_counts=True)
    explicit = {int(label): len(y) / (labels.size * int(n)) for label, n in zip(labels, counts)}
    balanced = KernelSVM(degree=2, gamma=0.5, class_weight="balanced").fit(X, y)
    reference = KernelSVM(degree=2, gamma=0.5, class_weight=explicit)
    assert_same_as_libsvm(reference, X, y, capfd)
    np.testing.assert_array_equal(balanced.expansion_.dual_coef, reference.expansion_.dual_coef)
    np.testing.assert_array_equal(balanced.expansion_.rho, reference.expansion_.rho)
    assert balanced.parameters()["class_weight"] == "balanced"


def test_an_absent_weighted_class_warns_as_libsvm_does(capfd) -> None:
    """libsvm prints "WARNING: class label 7 specified in weight is not found" and ignores the
    weight; so does kernel-svm, with one InputWarning."""
    from polyparse.features.errors import InputWarning

    X, y = random_problem(200, 40, [1, -1], seed=29)
    clf = KernelSVM(degree=2, class_weight={7: 2.0, 1: 0.5})
    model, _ = libsvm_train(X, y, libsvm_options(clf), capfd)
    with pytest.warns(InputWarning, match=r"^class label 7 specified in the class weights is "
                                          r"not found in the training labels; its weight is "
                                          r"ignored") as caught:
        clf.fit(X, y)
    assert len(caught) == 1
    capfd.readouterr()
    svmutil.svm_train(y.tolist(), libsvm_nodes(X), libsvm_options(clf))
    assert "WARNING: class label 7 specified in weight is not found" in capfd.readouterr().err
    _, _, values = svmutil.svm_predict(y.tolist(), libsvm_nodes(X), model, "-q")
    np.testing.assert_allclose(clf.decision_function(X), np.asarray(values), rtol=1e-9,
                               atol=1e-9)


@pytest.mark.parametrize("class_weight, problem", [
    ("heavy", "class_weight takes a dict label -> weight or 'balanced', not 'heavy'"),
    (2.0, "class_weight takes a dict label -> weight or 'balanced', not float"),
    ([(1, 2.0)], "class_weight takes a dict label -> weight or 'balanced', not list"),
    ({1: -1.0}, "the weight of class 1 must be positive and finite, not -1.0"),
])
def test_class_weight_names_what_it_takes(class_weight: object, problem: str) -> None:
    with pytest.raises(ValueError, match=f"^{re.escape(problem)}$"):
        KernelSVM(class_weight=class_weight)


def test_balanced_weights_survive_the_model_file(tmp_path: Path) -> None:
    X, y = random_problem(120, 30, [1, 2, 3], seed=31)
    clf = KernelSVM(class_weight="balanced").fit(X, y)
    clf.save(tmp_path / "k.model")
    again = KernelSVM.load(tmp_path / "k.model")
    assert again.class_weight == "balanced"
    np.testing.assert_array_equal(again.decision_function(X), clf.decision_function(X))


def test_a_kernel_that_overflows_is_refused_before_training() -> None:
    X, y = random_problem(50, 30, [1, -1], seed=37)
    with pytest.raises(ValueError, match=r"^the kernel \(gamma c \+ coef0\)\^90 overflows for "
                                         r"rows of \d+ features"):
        KernelSVM(degree=90, gamma=2.0).fit(X, y)
    with pytest.raises(ValueError, match="degree must be at least 1, not 0"):
        KernelSVM(degree=0)
    with pytest.raises(ValueError, match="degree must be an integer, not 2.5"):
        KernelSVM(degree=2.5)
