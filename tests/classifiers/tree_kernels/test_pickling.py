"""TreeKernelModel pickles through its model bytes, whichever learner made it: the unpickled
model gives exactly the original's decision values (DAG and plain) and the same bytes, and
to_bytes() is the file save() writes."""
from __future__ import annotations

import hashlib
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_bytes import load_from_bytes
from polyparse.classifiers.model_file import ModelFileError
from polyparse.classifiers.tree_kernels.tree_learners import train_tree_model
from polyparse.classifiers.tree_kernels.tree_model import TreeKernelModel, TreeKernelSpec
from polyparse.features.svmlight_tk import TreeInstances, read_svmlight_tk
from tests.pickled_payload import assert_changed_payload_fails

WORDS = {"DT": ["the", "a"], "NN": ["dog", "cat", "board", "park"], "VB": ["saw", "join"],
         "JJ": ["big", "old"], "IN": ["in", "with"]}


def _noun_phrase(rng: random.Random, adjective: bool) -> str:
    words = [f"(DT {rng.choice(WORDS['DT'])})"]
    if adjective:
        words.append(f"(JJ {rng.choice(WORDS['JJ'])})")
    words.append(f"(NN {rng.choice(WORDS['NN'])})")
    return f"(NP {' '.join(words)})"


def write_tk(path: Path, n: int, seed: int) -> Path:
    """n SVM-light-TK lines: +1 when the object has an adjective (one label in ten flipped),
    and 2-4 binary features of which feature 1 or 2 follows the label."""
    rng = random.Random(seed)
    lines = []
    for _ in range(n):
        positive = rng.random() < 0.5
        verb = f"(VB {rng.choice(WORDS['VB'])})"
        tree = f"(S {_noun_phrase(rng, rng.random() < 0.3)} (VP {verb} " \
               f"{_noun_phrase(rng, positive)}))"
        if rng.random() < 0.3:
            tree = f"(S {tree[3:-1]} (PP (IN {rng.choice(WORDS['IN'])}) " \
                   f"{_noun_phrase(rng, False)}))"
        label = positive if rng.random() < 0.9 else not positive
        features = sorted({1 if label else 2, *rng.sample(range(3, 12), rng.randint(1, 3))})
        lines.append(f"{'+1' if label else '-1'} |BT| {tree} |ET| "
                     + " ".join(f"{f}:1" for f in features) + "\n")
    path.write_text("".join(lines), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("trees")
    return write_tk(folder / "train.tk", 40, seed=1), write_tk(folder / "test.tk", 25, seed=2)


LEARNERS = {
    "voted-perceptron": {"learner": "voted-perceptron", "epochs": 2},
    "perceptron plain store": {"learner": "perceptron", "epochs": 2, "store": "plain"},
    "kernel-svm": {"learner": "kernel-svm"},
    "cpa sdag+": {"learner": "cpa", "sample": 20, "iterations": 20, "seed": 3},
    "cpa usvm rejection": {"learner": "cpa", "algorithm": "usvm", "sample": 20,
                           "iterations": 20, "j": 2.0, "seed": 4},
}
SPECS = {
    "sst + poly2": TreeKernelSpec(degree=2),
    "st": TreeKernelSpec("st", lam=0.5),
    "pt + linear": TreeKernelSpec("pt", lam=0.4, mu=0.3, degree=1, tree_constant=0.5),
}


@pytest.fixture(scope="module", params=[(learner, spec) for learner in LEARNERS
                                        for spec in SPECS])
def model(request: pytest.FixtureRequest, files: tuple[Path, Path]) -> TreeKernelModel:
    learner, spec = request.param
    data = read_svmlight_tk(files[0])
    settings = dict(LEARNERS[learner])
    trained, _ = train_tree_model(settings.pop("learner"), SPECS[spec], data.forest,
                                  data.labels.astype(np.float64), data.vectors, **settings)
    return trained


def _test_data(model: TreeKernelModel, path: Path) -> TreeInstances:
    return read_svmlight_tk(path, model.labels, model.productions)


def test_unpickled_model_gives_identical_decisions(model: TreeKernelModel,
                                                   files: tuple[Path, Path]) -> None:
    again = pickle.loads(pickle.dumps(model))
    assert type(again) is TreeKernelModel and again.spec == model.spec
    assert again.to_bytes() == model.to_bytes()
    test, test_again = _test_data(model, files[1]), _test_data(again, files[1])
    for method in ("dag", "plain"):
        expected = model.decision_function(test.forest, test.vectors, method=method)
        assert np.array_equal(again.decision_function(test_again.forest, test_again.vectors,
                                                      method=method), expected)
    assert model.n_trees > 0


def test_to_bytes_is_the_file_save_writes(model: TreeKernelModel, tmp_path: Path) -> None:
    path = tmp_path / "tree.model"
    model.save(path, {"command": "test"}, {"ids": np.arange(3)})
    assert path.read_bytes() == model.to_bytes({"command": "test"}, {"ids": np.arange(3)})
    model.save(path)
    assert path.read_bytes() == model.to_bytes()
    loaded = TreeKernelModel.load(path)
    assert loaded.to_bytes() == path.read_bytes()
    assert pickle.loads(pickle.dumps(loaded)).to_bytes() == path.read_bytes()


def test_from_bytes_with_extras_gives_what_load_with_extras_gives(tmp_path: Path,
                                                                  files: tuple[Path, Path]
                                                                  ) -> None:
    data = read_svmlight_tk(files[0])
    model, _ = train_tree_model("perceptron", TreeKernelSpec(degree=2), data.forest,
                                data.labels.astype(np.float64), data.vectors)
    path = tmp_path / "tree.model"
    model.save(path, {"command": "test"}, {"ids": np.arange(3)})
    loaded, metadata, extras = TreeKernelModel.from_bytes_with_extras(path.read_bytes())
    assert metadata == {"command": "test"} and extras["ids"].tolist() == [0, 1, 2]
    assert extras["ids"].flags.writeable
    assert loaded.to_bytes({"command": "test"}, extras) == path.read_bytes()


def test_changed_payload_fails_with_one_line(files: tuple[Path, Path]) -> None:
    data = read_svmlight_tk(files[0])
    model, _ = train_tree_model("voted-perceptron", TreeKernelSpec(degree=2), data.forest,
                                data.labels.astype(np.float64), data.vectors)
    assert_changed_payload_fails(model, "TreeKernelModel")
    payload = model.pickle_bytes()
    cut = payload[: len(payload) // 2]
    with pytest.raises(ModelFileError, match=r"^pickled TreeKernelModel: truncated or corrupt"):
        load_from_bytes(TreeKernelModel, cut, hashlib.sha256(cut).hexdigest())
