"""The beam-search parser end to end: it learns, keeps the best epoch, gives trees (also from
non-projective training trees), is deterministic, and its model file and pickle round trip."""
from __future__ import annotations

import pickle
from dataclasses import replace
from pathlib import Path

import pytest

from polyparse.classifiers.model_file import read_model_file
from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.beam_parser import BeamParser
from polyparse.parser.dependency.choices import MAX_BEAM
from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.dependency.models import dependency_model_from_bytes, load_dependency_model
from polyparse.parser.dependency.training import attachment
from polyparse.parser.formats.conll import Sentence, read_conll
from tests.parser.dependency.synthetic import write_treebank
from tests.parser.dependency.test_arc_eager import is_tree


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Sentence], list[Sentence]]:
    folder = tmp_path_factory.mktemp("beam")
    train = list(read_conll(write_treebank(folder / "train.conllu", 150, seed=1),
                            require_tree=True))
    dev = list(read_conll(write_treebank(folder / "dev.conllu", 40, seed=2), require_tree=True))
    return train, dev


@pytest.fixture(scope="module")
def trained(synthetic: tuple[list[Sentence], list[Sentence]]) -> BeamParser:
    train, dev = synthetic
    parser = BeamParser(BeamConfig(beam=4, epochs=4, patience=2, seed=3))
    parser.train(train, dev, score=attachment)
    return parser


def test_learns_the_synthetic_grammar(trained: BeamParser,
                                      synthetic: tuple[list[Sentence], list[Sentence]],
                                      tmp_path: Path) -> None:
    test = list(read_conll(write_treebank(tmp_path / "test.conllu", 60, seed=5)))
    parsed = trained.parse(test)
    scores = evaluate(test, [replace(s, head=h, deprel=d) for s, (h, d) in zip(test, parsed)])
    assert scores.UAS > 95 and scores.LAS > 95
    assert all(is_tree(h) for h, _ in parsed)


def test_the_best_epoch_is_kept(trained: BeamParser) -> None:
    curve = trained.info["epochs"]
    assert 1 <= len(curve) <= 4
    best = max(curve, key=lambda point: (point["dev_UAS"], point["dev_LAS"]))
    assert trained.info["best_epoch"] == best["epoch"]
    assert all(point["updates"] >= 0 and point["weights"] > 0 for point in curve)


def test_same_seed_gives_a_byte_identical_model(
        synthetic: tuple[list[Sentence], list[Sentence]]) -> None:
    train, dev = synthetic
    files = []
    for _ in range(2):
        parser = BeamParser(BeamConfig(beam=3, epochs=2, seed=8))
        parser.train(train[:60], dev, score=attachment)
        files.append(parser.to_bytes())
    assert files[0] == files[1]
    other = BeamParser(BeamConfig(beam=3, epochs=2, seed=9))
    other.train(train[:60], dev, score=attachment)
    assert other.to_bytes() != files[0]


def test_model_file_and_pickle_round_trip(trained: BeamParser,
                                          synthetic: tuple[list[Sentence], list[Sentence]],
                                          tmp_path: Path) -> None:
    _, dev = synthetic
    expected = trained.parse(dev)
    for compress in (False, True):
        path = tmp_path / f"beam{compress}.model"
        trained.save(str(path), compress=compress)
        loaded = load_dependency_model(path)
        assert isinstance(loaded, BeamParser)
        assert loaded.parse(dev) == expected
        assert loaded.to_bytes(compress=False) == trained.to_bytes(compress=False)
    assert dependency_model_from_bytes(trained.to_bytes()).parse(dev) == expected
    narrow = pickle.loads(pickle.dumps(trained))
    narrow.set_beam(1)
    again = pickle.loads(pickle.dumps(narrow))
    assert again.beam == 1 and again.parse(dev) == narrow.parse(dev)


def test_a_feature_count_cutoff_keeps_fewer_weights_and_is_recorded(
        synthetic: tuple[list[Sentence], list[Sentence]], tmp_path: Path) -> None:
    """min_feature_count: only features of that many gold-sequence states get weights; the
    file records it (and a file without the cutoff does not name it)."""
    train, dev = synthetic
    sizes = {}
    for count in (1, 4):
        parser = BeamParser(BeamConfig(beam=3, epochs=2, seed=8, min_feature_count=count))
        parser.train(train[:80], dev, score=attachment)
        parser.save(str(tmp_path / f"cut{count}.model"))
        sizes[count] = len(parser.weights.keys)
        loaded = load_dependency_model(tmp_path / f"cut{count}.model")
        assert loaded.config.min_feature_count == count
        assert loaded.parse(dev) == parser.parse(dev)
        assert loaded.to_bytes() == parser.to_bytes()
    assert 0 < sizes[4] < sizes[1]
    header = read_model_file(tmp_path / "cut1.model")[0]
    assert "min_feature_count" not in header["config"]
    assert read_model_file(tmp_path / "cut4.model")[0]["config"]["min_feature_count"] == 4


def test_beam_width_is_checked(trained: BeamParser) -> None:
    with pytest.raises(ValueError, match=f"1 to {MAX_BEAM}"):
        trained.set_beam(MAX_BEAM + 1)
    with pytest.raises(ValueError, match="beam"):
        BeamConfig(beam=0)
    with pytest.raises(ValueError, match="update"):
        BeamConfig(update="late")


NON_PROJECTIVE = """\
1\tA\ta\tNOUN\tNN\t_\t3\tnsubj\t_\t_
2\tsaw\tsee\tVERB\tVBD\t_\t0\troot\t_\t_
3\thim\the\tPRON\tPRP\t_\t2\tobj\t_\t_
4\tyesterday\tyesterday\tNOUN\tNN\t_\t2\tobl\t_\t_

"""


def test_non_projective_training_trees_give_trees(
        synthetic: tuple[list[Sentence], list[Sentence]], tmp_path: Path) -> None:
    train, dev = synthetic
    path = tmp_path / "np.conllu"
    path.write_text(NON_PROJECTIVE * 5, encoding="utf-8")
    crossing = list(read_conll(path, require_tree=True))
    parser = BeamParser(BeamConfig(beam=2, epochs=2))
    parser.train(train[:40] + crossing, dev, score=attachment)
    assert any("|" in label for label in parser.labels.learned())
    for heads, labels in parser.parse(crossing + dev):
        assert is_tree(heads)
        assert not any("|" in label for label in labels)


def test_untrained_parser_refuses_to_parse() -> None:
    with pytest.raises(RuntimeError, match="not trained"):
        BeamParser().parse([])


def test_files_written_before_the_morph_columns_read_none(
        synthetic: tuple[list[Sentence], list[Sentence]], tmp_path: Path) -> None:
    """A model file whose config has no `morph` (written before the morph templates) loads
    without them and parses as the parser that wrote it; a new model reads them."""
    from polyparse.classifiers.model_file import read_model_file, write_model_file

    train, dev = synthetic
    plain = BeamParser(BeamConfig(beam=4, epochs=2, seed=3, morph=False))
    plain.train(train)
    path = tmp_path / "plain.model"
    plain.save(path)
    header, arrays = read_model_file(path)
    assert header["config"].pop("morph") is False and "morph_names" not in header
    old = tmp_path / "old.model"
    write_model_file(old, header, arrays)
    loaded = load_dependency_model(old)
    assert loaded.config.morph is False and loaded.parse(dev) == plain.parse(dev)
    morph = BeamParser(BeamConfig(beam=4, epochs=2, seed=3))
    morph.train(train)
    morph.save(tmp_path / "morph.model")
    header, _ = read_model_file(tmp_path / "morph.model")
    assert header["config"]["morph"] is True and "suffixes" in header
    assert load_dependency_model(tmp_path / "morph.model").parse(dev) == morph.parse(dev)
