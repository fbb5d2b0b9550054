"""Sentence ends found by the parser (parser/dependency/sentence_runs.py): runs of training
sentences joined into one tree, the cut points of a parse with several roots (against a
brute-force reference), and a beam parser trained on runs that finds the sentence ends of
joined test sentences, while a CoNLL-U sentence keeps one root."""
from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import pytest

from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.sentence_runs import joined, sentence_runs, sentence_starts
from polyparse.parser.dependency.training import train_beam_parser
from polyparse.parser.formats.conll import Sentence, read_conll
from tests.parser.dependency.synthetic import write_treebank


@pytest.fixture(scope="module")
def treebank(tmp_path_factory: pytest.TempPathFactory) -> list[Sentence]:
    folder = tmp_path_factory.mktemp("runs")
    return list(read_conll(write_treebank(folder / "train.conllu", 200, seed=1),
                           require_tree=True))


def test_a_run_is_its_sentences_one_after_another(treebank: list[Sentence]) -> None:
    a, b, c = treebank[:3]
    run = joined([a, b, c])
    assert run.form == a.form + b.form + c.form
    assert run.head.count(0) == 3
    assert run.head[len(a):len(a) + len(b)] == [h + len(a) if h else 0 for h in b.head]
    assert [run.lines[i] for i in run.word_lines] == [s.lines[i] for s in (a, b, c)
                                                      for i in s.word_lines]


def test_each_sentence_comes_alone_then_in_a_run_drawn_from_the_seed(
        treebank: list[Sentence]) -> None:
    units = sentence_runs(treebank, 3, seed=0)
    assert units[:len(treebank)] == treebank
    runs = units[len(treebank):]
    assert [w for run in runs for w in run.form] == [w for s in treebank for w in s.form]
    assert sum(run.head.count(0) for run in runs) == len(treebank)
    assert {run.head.count(0) for run in runs} == {1, 2, 3}
    assert [len(r) for r in sentence_runs(treebank, 3, seed=0)] == [len(r) for r in units]
    assert [len(r) for r in sentence_runs(treebank, 3, seed=1)] != [len(r) for r in units]
    assert sentence_runs(treebank, 1, seed=0) == treebank


def reference_starts(heads: list[int], token_starts: list[bool]) -> list[int]:
    """Every cut before word i where no arc joins a word before i to one at or after it and
    a token begins at i (checked arc by arc)."""
    n = len(heads)
    starts = [0]
    for i in range(1, n):
        crossing = any((d < i) != (h - 1 < i) for d, h in enumerate(heads) if h > 0)
        if not crossing and token_starts[i]:
            starts.append(i)
    return starts


def random_forest(rng: random.Random, n: int) -> list[int]:
    """Heads of a random forest over n words (some attached to 0, the rest to an earlier
    root's subtree or a later word), acyclic by construction: a random order, each word
    heading only words after it in that order."""
    order = list(range(1, n + 1))
    rng.shuffle(order)
    heads = [0] * n
    for k, word in enumerate(order):
        if k and rng.random() < 0.8:
            heads[word - 1] = rng.choice(order[:k])
    return heads


def test_cut_points_equal_the_arc_by_arc_reference() -> None:
    rng = random.Random(7)
    for _ in range(2000):
        n = rng.randint(1, 12)
        heads = random_forest(rng, n)
        tokens = [True] + [rng.random() < 0.8 for _ in range(n - 1)]
        assert sentence_starts(heads, tokens) == reference_starts(heads, tokens), (heads, tokens)


def test_a_parser_trained_on_runs_finds_the_ends_of_joined_sentences(
        treebank: list[Sentence], tmp_path: Path) -> None:
    config = BeamConfig(beam=4, epochs=4, seed=3, sentence_runs=3)
    parser, _ = train_beam_parser(treebank, config)
    assert parser.finds_sentence_ends and not parser.config.single_root
    test = list(read_conll(write_treebank(tmp_path / "test.conllu", 60, seed=5)))
    firsts, pairs = test[0::2], [joined(test[i:i + 2]) for i in range(0, len(test) - 1, 2)]
    trees = parser.parse(pairs, sentence_ends=True)
    found = sum(sentence_starts(heads, [True] * len(heads)) == [0, len(first)]
                for first, (heads, _) in zip(firsts, trees))
    assert found >= 0.9 * len(pairs)
    # Without sentence_ends (CoNLL-U input), every tree keeps one root, joined pairs too.
    assert all(heads.count(0) == 1 for heads, _ in parser.parse(test + pairs))


def test_runs_are_for_ud_trees_only(treebank: list[Sentence]) -> None:
    two_roots = [replace(s, head=[0 if h == 0 or i == len(s) - 1 else h
                                  for i, h in enumerate(s.head)])
                 for s in treebank if all(h != len(s) for h in s.head)]
    assert any(s.head.count(0) > 1 for s in two_roots)
    parser, _ = train_beam_parser(two_roots, BeamConfig(beam=2, epochs=1, sentence_runs=3))
    assert parser.config.sentence_runs == 1 and not parser.finds_sentence_ends
