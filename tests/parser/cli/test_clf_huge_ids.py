"""`polyparse clf` on feature ids near 2,000,000,000 (legal in libsvm files, usual with feature
hashing), run as a user runs it in a child process whose address space is capped at 1.5 GiB: every
backend trains, every evaluator predicts and every conversion is stored, with exit code 0 and the
decision values of the same data with its ids renumbered small. A table sized by the largest id
would need 2**31 slots and cannot fit under the cap."""
from __future__ import annotations

import os
import random
import resource
import subprocess
from pathlib import Path

import pytest

from polyparse.features.svmlight import write_svmlight
from tests.classifiers.test_huge_feature_ids import matrices, problem, universe
from tests.parser.cli.user_runs import polyparse

ADDRESS_SPACE_BYTES = 3 << 29  # 1.5 GiB
# One thread per numerical library, so that the child's address space does not grow with the
# machine's cores.
ONE_THREAD = {name: "1" for name in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS",
                                     "MKL_NUM_THREADS")}


def cap_address_space() -> None:
    """Run in the child before it executes polyparse."""
    resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_BYTES, ADDRESS_SPACE_BYTES))


def capped(*args: str) -> subprocess.CompletedProcess:
    """polyparse with the address space capped; it must succeed without a traceback."""
    result = polyparse(*args, preexec_fn=cap_address_space, env={**os.environ, **ONE_THREAD})
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    return result


def plain(*args: str) -> subprocess.CompletedProcess:
    result = polyparse(*args)
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def svm_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Training and test files with huge ids, and the same files with the ids renumbered 0, 1,
    ... in their order (the test file also holds ids that no training row has)."""
    folder = tmp_path_factory.mktemp("huge")
    ids, known = universe()
    train, labels, test = problem(3, 300, 3, known)
    files = {}
    for rows, y, name in ((train, labels, "train"), (test, [1] * len(test), "test")):
        huge, small = matrices(rows, ids)
        for matrix, size in ((huge, "huge"), (small, "small")):
            files[f"{name}.{size}"] = folder / f"{name}.{size}.svm"
            write_svmlight(files[f"{name}.{size}"], matrix, y)
    return files


def predictions(model: Path, test: Path, out: Path, run, *options: str) -> str:
    run("clf", "predict", "--model", str(model), str(test), "--decision-values", str(out),
        "-q", *options)
    return out.read_text()


@pytest.mark.parametrize("classifier,options", [
    ("linear", ()),
    ("poly2-linear", ()),
    ("kernel-svm", ("--degree", "2")),
    ("pa-slicing", ("--degree", "2", "--iterations", "5")),
    ("pa-slicing", ("--degree", "3", "--iterations", "3", "--strategy", "split")),
])
def test_huge_ids_train_predict_and_convert_in_little_memory(
        svm_files: dict[str, Path], tmp_path: Path, classifier: str,
        options: tuple[str, ...]) -> None:
    models = {size: tmp_path / f"{size}.model" for size in ("huge", "small")}
    capped("clf", "train", str(svm_files["train.huge"]), "--model", str(models["huge"]),
           "--classifier", classifier, "-q", *options)
    plain("clf", "train", str(svm_files["train.small"]), "--model", str(models["small"]),
          "--classifier", classifier, "-q", *options)
    runs = [()]
    if classifier in ("kernel-svm", "pa-slicing"):
        runs = [("--eval-mode", mode) for mode in ("naive", "pki", "pke", "split")]
    for extra in runs:
        huge = predictions(models["huge"], svm_files["test.huge"], tmp_path / "huge.txt",
                           capped, *extra)
        small = predictions(models["small"], svm_files["test.small"], tmp_path / "small.txt",
                            plain, *extra)
        # A header naming the columns of the three classes, then one line per example.
        assert huge == small and len(huge.splitlines()) == 1 + 150, extra
    if classifier not in ("kernel-svm", "pa-slicing"):
        return
    for evaluator in ("pki", "pke", "split"):
        converted = {}
        for size, run in (("huge", capped), ("small", plain)):
            converted[size] = tmp_path / f"{size}.{evaluator}.model"
            run("clf", "convert", "--model", str(models[size]), "--to", evaluator,
                "--output", str(converted[size]), "-q")
        huge = predictions(converted["huge"], svm_files["test.huge"], tmp_path / "huge.txt",
                           capped)
        small = predictions(converted["small"], svm_files["test.small"],
                            tmp_path / "small.txt", plain)
        assert huge == small, evaluator


def tree_lines(ids: list[int], seed: int, n: int) -> str:
    """SVM-light-TK lines whose vectors use the given ids (in their order: a renumbering of the
    ids gives the same lines but for the numbers)."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        positive = rng.random() < 0.5
        tree = "(S (NP (NN dog)) (VP ran))" if positive else "(S (VP ran) (NP (NN cat)))"
        chosen = sorted(rng.sample(range(len(ids)), 3) + ([0] if positive else []))
        features = sorted({ids[k] for k in chosen})
        lines.append(("+1" if positive else "-1") + f" |BT| {tree} |ET| "
                     + " ".join(f"{f}:1" for f in features))
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("classifier", ["kernel-svm", "perceptron"])
def test_tree_learners_keep_huge_vector_ids_in_little_memory(tmp_path: Path,
                                                             classifier: str) -> None:
    ids, _ = universe()
    outputs = {}
    for size, numbers, run in (("huge", ids.tolist(), capped),
                               ("small", list(range(ids.size)), plain)):
        train, test = tmp_path / f"train.{size}.tk", tmp_path / f"test.{size}.tk"
        train.write_text(tree_lines(numbers, 1, 120))
        test.write_text(tree_lines(numbers, 2, 40))
        model = tmp_path / f"{size}.model"
        run("clf", "train", str(train), "--model", str(model), "--classifier", classifier,
            "-q")
        outputs[size] = predictions(model, test, tmp_path / f"{size}.txt", run)
    assert outputs["huge"] == outputs["small"]
