"""The greedy parser's morph template set: FEATS values and suffixes read, the decoder equal to
the plain-Python reference, the model file round trip, and the other sets' files unchanged."""
from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.classifiers.model_file import read_model_file
from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.dependency.feature_templates import N_MORPH_SLOTS
from polyparse.parser.dependency.morph_columns import (
    MORPH_SLOTS,
    MorphValues,
    frequent_feature_names,
)
from polyparse.parser.dependency.training_config import training_config
from polyparse.parser.formats.conll import Sentence, read_conll
from tests.parser.dependency.synthetic import write_treebank
from tests.parser.dependency.test_dependency_parser import (
    assert_decoder_matches_python,
    randomized,
)


def with_case(path: Path, out: Path, seed: int) -> Path:
    """The treebank with its subjects and objects told apart by FEATS alone: each of them is
    labelled nsubj or obj at random (Case=Nom or Case=Acc), other words get Number."""
    rng = random.Random(seed)
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        columns = line.split("\t")
        if len(columns) == 10:
            if columns[7] in ("nsubj", "obj"):
                columns[7] = rng.choice(("nsubj", "obj"))
                columns[5] = "Case=Nom" if columns[7] == "nsubj" else "Case=Acc"
            else:
                columns[5] = f"Number={rng.choice(('Sing', 'Plur'))}"
        lines.append("\t".join(columns))
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


@pytest.fixture(scope="module")
def cased(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Sentence], list[Sentence]]:
    folder = tmp_path_factory.mktemp("cased")
    train = with_case(write_treebank(folder / "plain.conllu", 400, seed=1),
                      folder / "train.conllu", seed=1)
    test = with_case(write_treebank(folder / "plain_test.conllu", 100, seed=2),
                     folder / "test.conllu", seed=2)
    return list(read_conll(train, require_tree=True)), list(read_conll(test))


@pytest.fixture(scope="module")
def morph_parser(cased: tuple[list[Sentence], list[Sentence]]) -> DependencyParser:
    parser = DependencyParser(training_config("linear", feature_set="morph",
                                              split_threshold=300, seed=3))
    parser.train(cased[0])
    return parser


def las(parser: DependencyParser, sentences: list[Sentence]) -> float:
    parsed = parser.parse(sentences)
    return evaluate(sentences, [replace(s, head=h, deprel=d)
                                for s, (h, d) in zip(sentences, parsed)]).LAS


def test_labels_told_by_feats_alone_are_learned_by_the_morph_set_only(
        cased: tuple[list[Sentence], list[Sentence]], morph_parser: DependencyParser) -> None:
    train, test = cased
    plain = DependencyParser(training_config("linear", feature_set="rich",
                                             split_threshold=300, seed=3))
    plain.train(train)
    assert morph_parser.morph_names == ["Number", "Case"]
    assert las(morph_parser, test) > 99.0
    assert las(plain, test) < 95.0


def test_the_model_file_keeps_the_morph_columns(morph_parser: DependencyParser,
                                                cased: tuple[list[Sentence], list[Sentence]],
                                                tmp_path: Path) -> None:
    path = tmp_path / "morph.model"
    morph_parser.save(path)
    header, _ = read_model_file(path)
    assert header["morph_names"] == ["Number", "Case"]
    assert "Case=Nom" in header["morph_values"] and "Case=_" in header["morph_values"]
    loaded = DependencyParser.load(path)
    assert loaded.parse(cased[1]) == morph_parser.parse(cased[1])


def test_other_sets_write_no_morph_columns(cased: tuple[list[Sentence], list[Sentence]],
                                           tmp_path: Path) -> None:
    parser = DependencyParser(training_config("linear", split_threshold=300))
    parser.train(cased[0][:50])
    parser.save(tmp_path / "plain.model")
    header, _ = read_model_file(tmp_path / "plain.model")
    assert not {"morph_names", "morph_values", "suffixes"} & set(header)


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_decoder_equals_python_reference_under_random_weights(
        morph_parser: DependencyParser, cased: tuple[list[Sentence], list[Sentence]],
        seed: int) -> None:
    rng = random.Random(seed)
    sentences = rng.sample(cased[1], 10)
    assert_decoder_matches_python(randomized(morph_parser, seed), sentences)


def test_feature_values_and_names() -> None:
    values = MorphValues(["Case", "Number"])
    assert values.of("Case=Nom|Number=Plur") == ("Case=Nom", "Number=Plur")
    assert values.of("_") == ("Case=_", "Number=_")
    assert values.of("Number[psor]=Sing") == ("Case=_", "Number=_")
    sentences = list(read_conll(None, stream=__import__("io").BytesIO(
        "1\ta\t_\tX\t_\tB=1|A=2\t0\troot\t_\t_\n2\tb\t_\tX\t_\tA=1\t1\tdep\t_\t_\n\n"
        .encode()), name="s"))
    assert frequent_feature_names(sentences, N_MORPH_SLOTS) == ["A", "B"]
    assert frequent_feature_names(sentences, 1) == ["A"]


def test_the_templates_have_a_row_for_each_slot_of_the_columns() -> None:
    """The Cython templates' slot count (feature_templates.pxd) is the columns' (Python)."""
    assert N_MORPH_SLOTS == MORPH_SLOTS


def test_rare_features_are_dropped_from_the_rows_and_the_model(
        cased: tuple[list[Sentence], list[Sentence]], tmp_path: Path) -> None:
    """min_feature_count: the vocabulary holds only features of that many training states,
    and a model trained so still learns the treebank."""
    train, test = cased
    full = DependencyParser(training_config("linear", feature_set="morph", seed=3))
    full.train(train)
    pruned = DependencyParser(training_config("linear", feature_set="morph", seed=3,
                                              min_feature_count=40))
    pruned.train(train)
    assert len(pruned.vocab) < len(full.vocab)
    assert pruned.vocab.counts.min() >= 40
    assert set(pruned.vocab.keys.tolist()) == {
        key for key, count in zip(full.vocab.keys.tolist(), full.vocab.counts.tolist())
        if count >= 40}
    assert las(pruned, test) > 99.0
    pruned.save(tmp_path / "pruned.model")
    full.save(tmp_path / "full.model")
    assert DependencyParser.load(tmp_path / "pruned.model").config.min_feature_count == 40
    # The default is not recorded: files written before the setting existed stay as they are.
    assert "min_feature_count" not in read_model_file(tmp_path / "full.model")[0]["config"]
