"""`polyparse clf train|predict|info` on SVM-light-TK files: the three tree learners, JSON keys,
identical models, the plain and DAG stores agreeing, and bad input or options in one line."""
from __future__ import annotations

import json
import random
from pathlib import Path

import numpy as np
import pytest

from polyparse.parser.cli.main import main
from tests.parser.cli.user_runs import leftovers

NOUNS = ["dog", "cat", "board", "man", "price"]
VERBS = ["ran", "joined", "saw", "rose"]


def _line(rng: random.Random) -> str:
    """A small PAF-like tree: positive when the marked node is an NP (with a feature saying
    so most of the time), negative when it is a PP or a word's POS."""
    noun, verb = rng.choice(NOUNS), rng.choice(VERBS)
    positive = rng.random() < 0.4
    if positive:
        tree = f"(VP (VBD-P {verb}) (NP-B (DT the) (NN {noun})))"
    elif rng.random() < 0.5:
        tree = f"(VP (VBD-P {verb}) (PP-B (IN of) (NP (NN {noun}))))"
    else:
        tree = f"(VP (VBD-P {verb}) (NP (DT-B the) (NN {noun})))"
    hint = 1 if positive == (rng.random() < 0.9) else 2
    features = sorted({hint, 3 + NOUNS.index(noun), 10 + VERBS.index(verb)})
    label = "+1" if positive else "-1"
    return f"{label} |BT| {tree} |ET| " + " ".join(f"{f}:1" for f in features) + "\n"


@pytest.fixture(scope="module")
def tk_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("tk")
    rng = random.Random(3)
    train, test = folder / "train.tk", folder / "test.tk"
    train.write_text("".join(_line(rng) for _ in range(300)))
    test.write_text("".join(_line(rng) for _ in range(100)))
    return train, test


def run(argv: list[str], capsys: pytest.CaptureFixture) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(code: int, err: str, *expected: str) -> str:
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in lines[0], lines[0]
    return lines[0]


def check_refused_before_training(data: Path, model: Path, options: list[str], problem: str,
                                  capsys: pytest.CaptureFixture) -> None:
    """`clf train` of data with these options ends in one line naming problem, and writes no
    model."""
    code, _, err = run(["clf", "train", str(data), "--model", str(model), *options], capsys)
    one_line(code, err, problem)
    assert not model.exists()


@pytest.mark.parametrize("classifier", ["voted-perceptron", "perceptron", "kernel-svm"])
def test_train_predict_info(tk_files, tmp_path: Path, capsys, classifier: str) -> None:
    train, test = tk_files
    model = tmp_path / "m.model"
    code, out, err = run(["clf", "train", str(train), "--model", str(model), "--classifier",
                          classifier, "--json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["backend"] == classifier and summary["rows"] == 300
    assert 0 < summary["n_dag_nodes"] <= summary["n_tree_nodes"]
    if classifier == "kernel-svm":
        assert "SVM-light's 1 / mean K(x, x)" in err and summary["C"] == pytest.approx(0.5)

    values = tmp_path / "values.txt"
    code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--json",
                          "--decision-values", str(values)], capsys)
    assert code == 0, err
    result = json.loads(out)
    assert {"accuracy", "precision", "recall", "F1"} <= result.keys()
    assert result["n"] == 100 and result["F1"] > 80.0
    lines = values.read_text().splitlines()
    assert len(lines) == 100 and lines[0].split()[0] in ("+1", "-1")
    predicted = np.array([int(line.split()[0]) for line in lines])
    tp = int(np.count_nonzero((predicted == 1) & np.array(
        [line.startswith("+1") for line in test.read_text().splitlines()])))
    assert tp == result["tp"]

    code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
    assert code == 0, err
    info = json.loads(out)
    assert info["backend"] == classifier and info["kernel"] == "sst"
    assert info["n_trees"] == summary["n_trees"] and info["n_dag_nodes"] > 0
    assert info["training"]["data"] == "train.tk"


def test_same_settings_give_identical_model_files(tk_files, tmp_path: Path, capsys) -> None:
    train, _ = tk_files
    for name in ("a.model", "b.model"):
        code, _, err = run(["clf", "train", str(train), "--model", str(tmp_path / name),
                            "--classifier", "voted-perceptron", "--epochs", "2"], capsys)
        assert code == 0, err
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()


def test_plain_and_dag_stores_give_the_same_decisions(tk_files, tmp_path: Path, capsys) -> None:
    train, test = tk_files
    outputs = []
    for extra in ([], ["--no-dag"]):
        model = tmp_path / f"m{len(extra)}.model"
        values = tmp_path / f"v{len(extra)}.txt"
        argv = ["clf", "train", str(train), "--model", str(model), "--classifier", "perceptron",
                "--kernel", "pt", "--vector", "none", "--json", *extra]
        code, out, err = run(argv, capsys)
        assert code == 0, err
        code, _, err = run(["clf", "predict", "--model", str(model), str(test),
                            "--decision-values", str(values)], capsys)
        assert code == 0, err
        outputs.append((json.loads(out)["mistakes"], values.read_text().splitlines()))
    (mistakes_dag, dag), (mistakes_plain, plain) = outputs
    assert mistakes_dag == mistakes_plain
    assert [line.split()[0] for line in dag] == [line.split()[0] for line in plain]
    np.testing.assert_allclose([float(line.split()[1]) for line in dag],
                               [float(line.split()[1]) for line in plain], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("text, problem", [
    ("+1 |BT| (S (NP (NN a)) |ET| 1:1\n", ":2: tree 1:"),
    ("+1 |BT| (S (NN a)) 1:1\n", ":2: no |ET| after the trees"),
    ("+1 |BT| (S (NN a)) |ET| 3:1 2:1\n", ":2: feature ids must be strictly ascending"),
])
def test_bad_tk_lines_are_one_line(tk_files, tmp_path: Path, capsys, text: str,
                                   problem: str) -> None:
    bad = tmp_path / "bad.tk"
    bad.write_text("-1 |BT| (S (NN b)) |ET| 1:1\n" + text)
    model = tmp_path / "m.model"
    code, _, err = run(["clf", "train", str(bad), "--model", str(model), "--classifier",
                        "voted-perceptron"], capsys)
    one_line(code, err, f"{bad}{problem}")
    assert not model.exists() and leftovers(tmp_path) == []
    train, _ = tk_files
    code, _, err = run(["clf", "train", str(train), "--model", str(model), "--classifier",
                        "perceptron"], capsys)
    assert code == 0, err
    code, out, err = run(["clf", "predict", "--model", str(model), str(bad)], capsys)
    one_line(code, err, f"{bad}{problem}")
    assert out == ""


@pytest.mark.parametrize("extra, problem", [
    (["--classifier", "perceptron", "-C", "2"], "-C applies to kernel-svm"),
    (["--classifier", "kernel-svm", "--epochs", "2"], "--epochs applies to the perceptrons"),
    (["--classifier", "kernel-svm", "--no-dag"], "--no-dag applies to the perceptrons"),
    (["--classifier", "voted-perceptron", "--lambda", "1.5"], "--lambda must be in (0, 1]"),
    (["--classifier", "voted-perceptron", "-j", "0"], "-j must be positive and finite, not 0"),
    (["--classifier", "voted-perceptron", "--epochs", "0"], "--epochs must be >= 1"),
    (["--classifier", "voted-perceptron", "--epochs", "1000000000000"],
     "1,000,000,000,000 epochs over 300 instances"),
    (["--classifier", "kernel-svm", "-C", "inf"], "-C must be positive and finite, not inf"),
    (["--classifier", "kernel-svm", "-C", "nan"], "-C must be positive and finite, not nan"),
    (["--classifier", "kernel-svm", "-C", "-1"], "-C must be positive and finite, not -1"),
    (["--classifier", "voted-perceptron", "--degree", "3"], "--degree does not apply"),
    (["--classifier", "linear"], "the tree learners are"),
])
def test_bad_options_on_tk_files(tk_files, tmp_path: Path, capsys, extra: list[str],
                                 problem: str) -> None:
    train, _ = tk_files
    check_refused_before_training(train, tmp_path / "m.model", extra, problem, capsys)


def test_tree_options_on_svmlight_files(tmp_path: Path, capsys) -> None:
    data = tmp_path / "train.svm"
    data.write_text("+1 1:1 2:1\n-1 2:1 3:1\n")
    model = tmp_path / "m.model"
    for extra, problem in ((["--classifier", "linear", "--kernel", "pt"],
                            "--kernel applies to SVM-light-TK files"),
                           (["--classifier", "voted-perceptron"],
                            "voted-perceptron learns from SVM-light-TK files")):
        check_refused_before_training(data, model, extra, problem, capsys)


@pytest.mark.parametrize("classifier", ["voted-perceptron", "kernel-svm"])
def test_one_class_warns_and_gives_it_to_every_example(tmp_path: Path, capsys,
                                                       classifier: str) -> None:
    """Issue 22, B6: kernel-svm on one class is libsvm's constant model, not a bias of -inf
    that no model file can hold."""
    data = tmp_path / "one.tk"
    data.write_text("-1 |BT| (S (NN a)) |ET| 1:1\n-1 |BT| (S (NN b)) |ET| 2:1\n")
    model = tmp_path / "m.model"
    code, _, err = run(["clf", "train", str(data), "--model", str(model),
                        "--classifier", classifier], capsys)
    assert code == 0 and "warning: " in err and "holds one class (-1)" in err
    other = tmp_path / "other.tk"
    other.write_text("+1 |BT| (S (VB c)) |ET| 3:1\n-1 |BT| (S (NN a)) |ET| 1:1\n")
    code, out, err = run(["clf", "predict", "--model", str(model), str(other), "--json"],
                         capsys)
    assert code == 0, err
    assert json.loads(out)["accuracy"] == 50.0


CPA_SMALL = ["--classifier", "cpa", "--sample", "100", "--iterations", "10"]


def test_cpa_algorithms_give_the_same_predictions(tk_files, tmp_path: Path, capsys) -> None:
    train, test = tk_files
    decisions = {}
    for algorithm in ("usvm", "sdag", "sdag+"):
        model, values = tmp_path / f"{algorithm}.model", tmp_path / f"{algorithm}.txt"
        code, out, err = run(["clf", "train", str(train), "--model", str(model), *CPA_SMALL,
                              "--algorithm", algorithm, "--seed", "7", "--json"], capsys)
        assert code == 0, err
        summary = json.loads(out)
        assert summary["backend"] == "cpa" and summary["algorithm"] == algorithm
        assert summary["sampling"] == "uniform" and summary["positive_cost"] is None
        assert summary["sample"] == 100 and 1 <= summary["iterations"] <= 10
        assert 0 < summary["n_cuts"] <= summary["iterations"]
        assert summary["C"] == pytest.approx(0.5) and summary["objective"] > 0
        for key in ("C_slack", "slack", "converged", "mvc_seconds", "gram_seconds",
                    "qp_seconds", "seconds"):
            assert key in summary, key
        code, out, err = run(["clf", "predict", "--model", str(model), str(test), "--json",
                              "--decision-values", str(values)], capsys)
        assert code == 0, err
        assert json.loads(out)["F1"] > 80.0
        lines = values.read_text().splitlines()
        decisions[algorithm] = ([line.split()[0] for line in lines],
                                [float(line.split()[1]) for line in lines])
        code, out, err = run(["clf", "info", "--model", str(model), "--json"], capsys)
        info = json.loads(out)
        assert code == 0 and info["backend"] == "cpa"
        command = info["training"]["command"]
        assert f"--algorithm {algorithm} --sample 100 --iterations 10" in command
        assert "--seed 7" in command and "mvc_seconds" not in info["training"]
    labels, values = decisions["usvm"]
    for algorithm in ("sdag", "sdag+"):
        assert decisions[algorithm][0] == labels
        np.testing.assert_allclose(decisions[algorithm][1], values, rtol=1e-7, atol=1e-9)


def test_cpa_same_seed_gives_identical_model_files(tk_files, tmp_path: Path, capsys) -> None:
    train, _ = tk_files
    for name in ("a.model", "b.model"):
        code, _, err = run(["clf", "train", str(train), "--model", str(tmp_path / name),
                            *CPA_SMALL, "--threads", "2"], capsys)
        assert code == 0, err
    assert (tmp_path / "a.model").read_bytes() == (tmp_path / "b.model").read_bytes()


@pytest.mark.parametrize("extra, sampling, cost", [
    (["-j", "2.5"], "rejection", 2.5),
    (["--sampling", "rejection", "-j", "2.5"], "rejection", 2.5),
    (["--sampling", "rejection"], "rejection", None),
    (["--sampling", "uniform"], "uniform", None),
])
def test_cpa_sampling_and_positive_cost(tk_files, tmp_path: Path, capsys, extra: list[str],
                                        sampling: str, cost: float | None) -> None:
    train, _ = tk_files
    code, out, err = run(["clf", "train", str(train), "--model", str(tmp_path / "m.model"),
                          *CPA_SMALL, *extra, "--json"], capsys)
    assert code == 0, err
    summary = json.loads(out)
    assert summary["sampling"] == sampling
    if sampling == "uniform":
        assert summary["positive_cost"] is None
    elif cost is None:
        labels = [line.split()[0] for line in train.read_text().splitlines()]
        n_pos = labels.count("+1")
        assert summary["positive_cost"] == pytest.approx((len(labels) - n_pos) / n_pos)
    else:
        assert summary["positive_cost"] == cost


@pytest.mark.parametrize("extra, problem", [
    (["--sample", "0"], "clf train: --sample must be >= 1, not 0"),
    (["--iterations", "0"], "clf train: --iterations must be >= 1, not 0"),
    (["-C", "0"], "clf train: -C must be positive and finite, not 0"),
    (["-C", "-1"], "clf train: -C must be positive and finite, not -1"),
    (["--epsilon", "0"], "clf train: --epsilon must be positive and finite, not 0"),
    (["-j", "0"], "clf train: -j must be positive and finite, not 0"),
    (["--threads", "0"], "clf train: --threads must be >= 1, not 0"),
    (["--sampling", "uniform", "-j", "2"], "clf train: -j is the positive cost of --sampling "
                                           "rejection"),
    (["--eps", "0.1"], "cpa's tolerance is --epsilon"),
    (["--epochs", "2"], "clf train: --epochs applies to the perceptrons, not cpa"),
])
def test_cpa_bad_options_before_the_data(tmp_path: Path, capsys, extra: list[str],
                                         problem: str) -> None:
    # the file is a .tk file whose second line is broken: the option's line must come first
    bad = tmp_path / "bad.tk"
    bad.write_text("-1 |BT| (S (NN b)) |ET| 1:1\n+1 |BT| (S (NN a) |ET| 1:1\n")
    model = tmp_path / "m.model"
    code, _, err = run(["clf", "train", str(bad), "--model", str(model), "--classifier", "cpa",
                        *extra], capsys)
    one_line(code, err, problem)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["bad.tk"]


@pytest.mark.parametrize("classifier, extra, problem", [
    ("kernel-svm", ["--algorithm", "usvm"], "--algorithm applies to cpa, not kernel-svm"),
    ("perceptron", ["--sample", "10"], "--sample applies to cpa, not perceptron"),
    ("voted-perceptron", ["--epsilon", "0.1"], "--epsilon applies to cpa, not voted-perceptron"),
    ("kernel-svm", ["--sampling", "rejection"], "--sampling applies to cpa, not kernel-svm"),
    ("kernel-svm", ["--iterations", "5"], "--iterations applies to cpa, not kernel-svm"),
])
def test_cpa_options_for_other_tree_learners(tk_files, tmp_path: Path, capsys, classifier: str,
                                             extra: list[str], problem: str) -> None:
    train, _ = tk_files
    options = ["--classifier", classifier, *extra]
    check_refused_before_training(train, tmp_path / "m.model", options, problem, capsys)


def test_cpa_bad_data_is_one_line(tk_files, tmp_path: Path, capsys) -> None:
    train, _ = tk_files
    empty, vectors, one_class = (tmp_path / name for name in ("empty.tk", "vectors.tk",
                                                               "one.tk"))
    empty.write_text("")
    vectors.write_text("+1 1:1 2:1\n-1 2:1 3:1\n")
    one_class.write_text("-1 |BT| (S (NN a)) |ET| 1:1\n-1 |BT| (S (NN b)) |ET| 2:1\n")
    model = tmp_path / "m.model"
    for path, extra, problem in (
            (train, ["--sample", "301"],
             f"clf train: --sample 301 is larger than the 300 instances of {train}"),
            (empty, [], f"cpa learns from SVM-light-TK files (`label |BT| tree |ET| features`); "
                        f"{empty} is not one"),
            (vectors, [], f"{vectors} is not one"),
            (one_class, [], f"clf train: {one_class} holds one class (-1); cpa needs +1 and -1"),
            (vectors, ["--classifier", "linear", "--sample", "5"],
             f"--sample applies to SVM-light-TK files; {vectors} is an svmlight file")):
        check_refused_before_training(path, model, ["--classifier", "cpa", *extra], problem,
                                      capsys)
    assert sorted(path.name for path in tmp_path.iterdir()) == ["empty.tk", "one.tk",
                                                               "vectors.tk"]


def test_a_tree_too_large_for_memory_is_one_line(tmp_path: Path, capsys, monkeypatch) -> None:
    """Issue 22, B7: a tree kernel out of memory (a tree of 20,001 nodes here, the allocation
    failing as it fails for trees of millions of node pairs) names the largest tree."""
    import polyparse.classifiers.tree_kernels.tree_learners as tree_learners

    def no_memory(*args: object, **kwargs: object) -> None:
        raise MemoryError("out of memory in the tree kernel")

    monkeypatch.setattr(tree_learners, "train_tree_model", no_memory)
    wide = "(S " + " ".join(f"(NN w{i})" for i in range(10000)) + ")"
    data = tmp_path / "wide.tk"
    data.write_text(f"-1 |BT| (S (NN b)) |ET|\n+1 |BT| {wide} |ET|\n")
    model = tmp_path / "m.model"
    code, _, err = run(["clf", "train", str(data), "--model", str(model), "--classifier",
                        "voted-perceptron"], capsys)
    one_line(code, err, f"{data}:2: out of memory in the tree kernel; this line's tree is the "
                        "file's largest, 20,001 nodes")
    assert not model.exists()


def test_a_tree_too_deep_is_one_line(tmp_path: Path, capsys) -> None:
    """Issue 22, B7: a tree of 5,000 levels is one line saying which limit it passes, not a
    RecursionError or an nltk setting to raise."""
    deep = "(S " * 5000 + "(NN a)" + ")" * 5000
    data = tmp_path / "deep.tk"
    data.write_text(f"-1 |BT| (S (NN b)) |ET|\n+1 |BT| {deep} |ET|\n")
    model = tmp_path / "m.model"
    code, _, err = run(["clf", "train", str(data), "--model", str(model), "--classifier",
                        "voted-perceptron"], capsys)
    one_line(code, err, f"{data}:2: tree 1: the tree is nested deeper than 500 levels")
    assert not model.exists()


# ----- SVM-light-TK files as other tools write them --------------------------------------------


def _with_ev(text: str) -> str:
    """Every line's vector closed by |EV| (as tools writing SVM-light-TK's vectors do)."""
    return "".join(line.rstrip("\n") + " |EV|\n" for line in text.splitlines())


def test_one_vector_closed_by_ev_trains_and_predicts_as_without(tk_files, tmp_path: Path,
                                                                 capsys) -> None:
    train, test = tk_files
    closed_train, closed_test = tmp_path / "train_ev.tk", tmp_path / "test_ev.tk"
    closed_train.write_text(_with_ev(train.read_text()))
    closed_test.write_text(_with_ev(test.read_text()))
    results = []
    for data, queries in ((train, test), (closed_train, closed_test)):
        model, values = tmp_path / f"{data.stem}.model", tmp_path / f"{data.stem}.values"
        code, _, err = run(["clf", "train", str(data), "--model", str(model), "--classifier",
                            "voted-perceptron"], capsys)
        assert code == 0, err
        code, out, err = run(["clf", "predict", "--model", str(model), str(queries), "--json",
                              "--decision-values", str(values)], capsys)
        assert code == 0, err
        results.append((json.loads(out)["accuracy"], values.read_text()))
    assert results[0] == results[1]


def test_unlabelled_examples_are_predicted_not_scored(tk_files, tmp_path: Path,
                                                      capsys) -> None:
    """Label 0 (unlabelled, as svm_classify takes it): every example gets its decision value,
    and the scores are those of the labelled examples alone."""
    train, test = tk_files
    model = tmp_path / "m.model"
    assert run(["clf", "train", str(train), "--model", str(model), "--classifier",
                "perceptron"], capsys)[0] == 0
    lines = test.read_text().splitlines(keepends=True)
    hidden = [line.split(" ", 1)[1] for line in lines[::3]]
    mixed, unlabelled, labelled = (tmp_path / name for name in ("mixed.tk", "none.tk",
                                                                "labelled.tk"))
    mixed.write_text("".join("0 " + line.split(" ", 1)[1] if k % 3 == 0 else line
                             for k, line in enumerate(lines)))
    unlabelled.write_text("".join("0 " + text for text in hidden))
    labelled.write_text("".join(line for k, line in enumerate(lines) if k % 3))

    def predict(path: Path) -> tuple[dict, list[str]]:
        values = tmp_path / "values.txt"
        code, out, err = run(["clf", "predict", "--model", str(model), str(path), "--json",
                              "--decision-values", str(values)], capsys)
        assert code == 0 and err == "", err
        return json.loads(out), values.read_text().splitlines()

    full, full_values = predict(test)
    some, some_values = predict(mixed)
    none, none_values = predict(unlabelled)
    only, _ = predict(labelled)
    assert some_values == full_values and none_values == full_values[::3]
    assert some["n"] == 100 and some["n_labelled"] == only["n"] == only["n_labelled"] == 66
    for key in ("accuracy", "precision", "recall", "F1", "tp", "fp", "fn", "correct"):
        assert some[key] == only[key]
        assert none[key] is None
    assert none["n"] == 34 and none["n_labelled"] == 0
    code, out, err = run(["clf", "predict", "--model", str(model), str(unlabelled)], capsys)
    assert code == 0 and out.startswith("34 examples predicted, all unlabelled (label 0)")
    code, out, err = run(["clf", "predict", "--model", str(model), str(mixed)], capsys)
    assert code == 0 and "(66 labelled examples, 34 unlabelled (label 0) not scored" in out


@pytest.mark.parametrize("command", ["train", "predict"])
@pytest.mark.parametrize("text, problem", [
    ("\n# a comment\n+1 |BT| (S (NN a)) |BT| (S (NN b)) |ET| 1:1\n",
     ":4: the example holds 2 trees; the tree learners take exactly one tree per example"),
    ("+1 |BT| (S (NN a)) |ET| 1:1\n\n2 |BT| (S (NN b)) |ET|\n",
     ":4: label 2; the tree learners take +1 / -1"),
    ("+1 |BT| (S (NN a)) |ET| 1:1 |BV| 2:1 |EV|\n", ":2: several vectors (|BV| begins a second"),
    ("+1 |BT| (S (NN a)) |ET| 1:1 |EV| 2:1\n", ":2: '2:1' after |EV|"),
    ("+1 |BT| (S (NP () (NN a))) |ET|\n", ":2: tree 1: '()' is a node with neither label nor "
                                          "children"),
])
def test_errors_name_file_and_line(tk_files, tmp_path: Path, capsys, command: str, text: str,
                                   problem: str) -> None:
    """Issue B6: file:line, not `example 3`."""
    bad = tmp_path / "bad.tk"
    bad.write_text("-1 |BT| (S (NN b)) |ET| 1:1\n" + text)
    model = tmp_path / "m.model"
    if command == "predict":
        train, _ = tk_files
        assert run(["clf", "train", str(train), "--model", str(model), "--classifier",
                    "perceptron"], capsys)[0] == 0
        code, out, err = run(["clf", "predict", "--model", str(model), str(bad)], capsys)
        assert out == ""
    else:
        code, _, err = run(["clf", "train", str(bad), "--model", str(model), "--classifier",
                            "perceptron"], capsys)
        assert not model.exists()
    line = one_line(code, err, f"{bad}{problem}")
    assert "example" not in line.split(problem.split(":")[1])[0]


def test_unlabelled_examples_do_not_train(tmp_path: Path, capsys) -> None:
    data = tmp_path / "u.tk"
    data.write_text("+1 |BT| (S (NN a)) |ET|\n-1 |BT| (S (NN b)) |ET|\n0 |BT| (S (NN c)) |ET|\n")
    code, _, err = run(["clf", "train", str(data), "--model", str(tmp_path / "m"),
                        "--classifier", "perceptron"], capsys)
    one_line(code, err, f"{data}:3: label 0 (unlabelled) is for prediction; the tree learners "
                        "train on +1 / -1")


def test_brackets_as_words_train_as_their_escaped_spelling(tmp_path: Path, capsys) -> None:
    """Issue A7: (-LRB- () and (-RRB- )) are the words ( and ): a model trained on them gives
    the decision values of the model trained on -LRB- / -RRB- spelt as words."""
    rng = random.Random(5)
    plain = "".join(_line(rng) for _ in range(120)).splitlines(keepends=True)
    spelt, bare = [], []
    for k, line in enumerate(plain):
        if k % 4 == 0:
            spelt.append(line.replace("(NN ", "(PRN (-LRB- -LRB-) (NN ").replace(
                ")))", "))) (-RRB- -RRB-))", 1) if "(NP-B" in line else line)
        else:
            spelt.append(line)
    bare = [line.replace("(-LRB- -LRB-)", "(-LRB- ()").replace("(-RRB- -RRB-)", "(-RRB- ))")
            for line in spelt]
    assert any("(-LRB- ()" in line for line in bare)
    words, brackets = tmp_path / "words.tk", tmp_path / "brackets.tk"
    words.write_text("".join(line.replace("(-LRB- -LRB-)", "(-LRB- \\()").replace(
        "(-RRB- -RRB-)", "(-RRB- \\))") for line in spelt))
    brackets.write_text("".join(bare))
    outputs = []
    for data in (words, brackets):
        model, values = tmp_path / f"{data.stem}.model", tmp_path / f"{data.stem}.values"
        code, _, err = run(["clf", "train", str(data), "--model", str(model), "--classifier",
                            "perceptron", "--json"], capsys)
        assert code == 0, err
        code, _, err = run(["clf", "predict", "--model", str(model), str(data),
                            "--decision-values", str(values)], capsys)
        assert code == 0, err
        outputs.append(values.read_text())
    assert outputs[0] == outputs[1]
