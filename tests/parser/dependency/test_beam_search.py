"""Beam search and its training against plain-Python references: with a beam of 1 the search
is the greedy decoder of the same weights; the averaged perceptron trained by early and by
max-violation updates equals a Python beam-search trainer on a toy treebank, also with a
feature count cutoff (the features of the gold sequences, counted in Python); the
max-violation update is made at the step an exhaustive search finds."""
from __future__ import annotations

import itertools
import math
import random
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.structured.weight_table import PerceptronWeights
from polyparse.parser.dependency.arc_eager import ArcEagerState
from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.beam_parser import BeamParser
from polyparse.parser.dependency.beam_search import BeamSearch
from polyparse.parser.dependency.choices import MAX_BEAM
from polyparse.parser.dependency.morph_columns import MORPH_SLOTS, frequent_feature_names
from polyparse.parser.dependency.projectivize import projectivize
from polyparse.parser.dependency.zn2011_features import state_keys
from polyparse.parser.formats.conll import read_conll
from tests.parser.dependency.synthetic import write_treebank
from tests.parser.dependency.test_morph_templates import with_case

EMPTY = -1


class Toy:
    """A treebank encoded as the search sees it: columns, offsets, gold heads and labels."""

    def __init__(self, path: Path, n_sentences: int, morph: bool = True) -> None:
        sentences = list(read_conll(path, require_tree=True))[:n_sentences]
        self.parser = BeamParser(BeamConfig(morph=morph))
        trees = [projectivize(s.head, s.deprel)[:2] for s in sentences]
        self.parser.learn_strings(sentences)
        self.parser.morph_names = frequent_feature_names(sentences, MORPH_SLOTS)
        self.corpus = self.parser.encode(sentences, grow=True, trees=trees)
        self.labels = self.parser.labels.learned()
        left, right, self.root = self.parser._label_masks(self.corpus)
        self.left, self.right = left.tolist(), right.tolist()
        self.n_sentences = len(sentences)

    def search(self, width: int) -> BeamSearch:
        return BeamSearch(width, len(self.labels), self.root, self.left, self.right)

    def columns(self, s: int) -> list[list[int] | list[list[int]] | None]:
        """Sentence s's columns (the morph column's rows each cut to it; None: none)."""
        lo, hi = self.corpus.offsets[s], self.corpus.offsets[s + 1]
        return [None if column is None else column[..., lo:hi].tolist()
                for column in self.corpus.columns]

    def gold(self, s: int) -> tuple[list[int], list[int]]:
        lo, hi = self.corpus.offsets[s], self.corpus.offsets[s + 1]
        return self.corpus.heads[lo + 1:hi].tolist(), self.corpus.labels[lo + 1:hi].tolist()


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Toy:
    """Twelve sentences whose words carry FEATS (Case, Number), read by the morph columns."""
    folder = tmp_path_factory.mktemp("toy")
    return Toy(with_case(write_treebank(folder / "plain.conllu", 12, seed=4),
                         folder / "toy.conllu", seed=4), 12)


class Reference:
    """Beam search and perceptron training in plain Python, over ArcEagerState."""

    def __init__(self, toy: Toy, width: int) -> None:
        self.toy = toy
        self.width = width
        self.n_labels = len(toy.labels)
        self.weights: dict[tuple[int, int], int] = defaultdict(int)
        # The only keys that get weights (None: every key).
        self.allowed: set[int] | None = None

    def name(self, action: int) -> str:
        if action < 2:
            return "SD"[action]
        label = (action - 2) % self.n_labels
        return ("L-" if action < 2 + self.n_labels else "R-") + self.toy.labels[label]

    def state(self, s: int, actions: list[int]) -> ArcEagerState:
        n = len(self.toy.columns(s)[0]) - 1
        state = ArcEagerState(n, labels=self.toy.labels)
        for action in actions:
            if action != EMPTY:
                state.apply(self.name(action))
        return state

    def valid(self, state: ArcEagerState) -> list[int]:
        moves = state.valid()
        out = [a for a, m in ((0, "S"), (1, "D")) if m in moves]
        if "L" in moves:
            out += [2 + label for label in range(self.n_labels) if self.toy.left[label]]
        if "R" in moves:
            out += [2 + self.n_labels + label for label in range(self.n_labels)
                    if self.toy.right[label]]
        return out

    def keys(self, s: int, state: ArcEagerState) -> list[int]:
        return state_keys(state, *self.toy.columns(s)).tolist()

    def score(self, s: int, state: ArcEagerState, action: int) -> int:
        return sum(self.weights.get((key, action), 0) for key in self.keys(s, state))

    def step(self, s: int, beam: list[tuple[list[int], int]]) -> list[tuple[list[int], int]]:
        candidates = []
        for item, (actions, score) in enumerate(beam):
            state = self.state(s, actions)
            if state.is_final:
                candidates.append((-score, item, EMPTY))
                continue
            for action in self.valid(state):
                candidates.append((-(score + self.score(s, state, action)), item, action))
        candidates.sort()
        return [(beam[item][0] + [action], -neg) for neg, item, action in
                candidates[:self.width]]

    def parse(self, s: int) -> tuple[list[int], list[int]]:
        beam = [([], 0)]
        while not all(self.state(s, a).is_final for a, _ in beam):
            beam = self.step(s, beam)
        state = self.state(s, beam[0][0])
        return state.heads, [self.toy.labels.index(x) for x in state.labels]

    def gold_actions(self, s: int) -> list[int]:
        heads, labels = self.toy.gold(s)
        state = self.state(s, [])
        actions: list[int] = []
        while not state.is_final:
            move = state.oracle(heads)
            if move == "S":
                action = 0
            elif move == "D":
                action = 1
            elif move == "L":
                action = 2 + labels[state.stack[-1] - 1]
            else:
                action = 2 + self.n_labels + labels[state.buffer[0] - 1]
            actions.append(action)
            state.apply(self.name(action))
        return actions

    def update(self, s: int, gold: list[int], predicted: list[int], steps: int) -> None:
        parted = False
        for t in range(steps):
            g = gold[t] if t < len(gold) else EMPTY
            p = predicted[t]
            if not parted and g == p:
                continue
            parted = True
            for actions, action, delta in ((gold, g, 1), (predicted, p, -1)):
                if action != EMPTY:
                    for key in self.keys(s, self.state(s, actions[:t])):
                        if self.allowed is None or key in self.allowed:
                            self.weights[key, action] += delta

    def train(self, s: int, update: str) -> None:
        gold = self.gold_actions(s)
        beam = [([], 0)]
        best_per_step: list[list[int]] = []
        violations: list[float] = []
        gold_score = 0
        t = 0
        while not all(self.state(s, a).is_final for a, _ in beam):
            if t < len(gold):
                gold_score += self.score(s, self.state(s, gold[:t]), gold[t])
            beam = self.step(s, beam)
            padded = gold[:t + 1] + [EMPTY] * (t + 1 - len(gold[:t + 1]))
            best_is_gold = beam[0][0] == padded
            best_per_step.append(beam[0][0])
            violations.append(-math.inf if best_is_gold else beam[0][1] - gold_score)
            if update == "early" and not any(a == padded for a, _ in beam):
                self.update(s, gold, beam[0][0], t + 1)
                return
            t += 1
        padded = gold + [EMPTY] * (len(beam[0][0]) - len(gold))
        if beam[0][0] != padded:
            worst = len(violations) - 1
            if update == "max-violation":
                worst = violations.index(max(violations))
            self.update(s, gold, best_per_step[worst], worst + 1)


def random_weights(toy: Toy, rng: random.Random, n_classes: int, updates: int = 300
                   ) -> tuple[PerceptronWeights, dict[tuple[int, int], int]]:
    """A table and its dict, updated on keys of states met by random moves."""
    table = PerceptronWeights(n_classes)
    plain: dict[tuple[int, int], int] = defaultdict(int)
    reference = Reference(toy, 1)
    for _ in range(updates):
        s = rng.randrange(toy.n_sentences)
        state = reference.state(s, [])
        for _ in range(rng.randint(0, 6)):
            if state.is_final:
                break
            state.apply(reference.name(rng.choice(reference.valid(state))))
        if state.is_final:
            continue
        keys = reference.keys(s, state)
        action, delta = rng.randrange(n_classes), rng.randint(-9, 9)
        table.add(np.array(keys, dtype=np.uint64), action, delta)
        for key in keys:
            plain[key, action] += delta
    return table, plain


@pytest.mark.parametrize("seed", range(3))
def test_a_beam_of_one_is_the_greedy_decoder(toy: Toy, seed: int) -> None:
    search = toy.search(1)
    table, plain = random_weights(toy, random.Random(seed), search.n_actions)
    reference = Reference(toy, 1)
    reference.weights = plain
    for weights in (table, table.averaged()):
        heads, labels = search.parse(weights, *toy.corpus.columns, toy.corpus.offsets)
        if weights is not table:
            # The averaged table is the mean over no example: the same weights.
            assert table.examples == 0
        for s in range(toy.n_sentences):
            lo, hi = toy.corpus.offsets[s], toy.corpus.offsets[s + 1]
            expected_heads, expected_labels = reference.parse(s)
            assert heads[lo + 1:hi].tolist() == expected_heads
            assert labels[lo + 1:hi].tolist() == expected_labels


@pytest.mark.parametrize("update,width", [("max-violation", 2), ("early", 3),
                                          ("max-violation", 4)])
def test_training_matches_the_python_trainer(toy: Toy, update: str, width: int) -> None:
    search = toy.search(width)
    table = PerceptronWeights(search.n_actions)
    reference = Reference(toy, width)
    sums: dict[tuple[int, int], int] = defaultdict(int)
    rng = np.random.default_rng(7)
    for _ in range(2):
        order = rng.permutation(toy.n_sentences)
        for s in order.tolist():
            search.train_epoch(table, *toy.corpus.columns, toy.corpus.offsets, toy.corpus.heads,
                               toy.corpus.labels, [s], update)
            reference.train(s, update)
            for pair, weight in reference.weights.items():
                sums[pair] += weight
    keys, classes, weights = table.current()
    got = {(int(k), int(c)): int(w) for k, c, w in zip(keys, classes, weights) if w}
    assert got == {pair: w for pair, w in reference.weights.items() if w}
    assert got, "no update was made"
    averaged = table.averaged()
    n_examples = 2 * toy.n_sentences
    for row, key in enumerate(averaged.keys.tolist()):
        for e in range(averaged.row_ptr[row], averaged.row_ptr[row + 1]):
            expected = sums[key, int(averaged.classes[e])] / n_examples
            assert float(averaged.values[e]) == pytest.approx(expected, rel=1e-6)


def gold_key_counts(toy: Toy) -> Counter[int]:
    """How often each key is met in the states of the toy's gold sequences (in the order first
    met), in plain Python."""
    reference = Reference(toy, 1)
    counts: Counter[int] = Counter()
    for s in range(toy.n_sentences):
        gold = reference.gold_actions(s)
        for t in range(len(gold)):
            counts.update(reference.keys(s, reference.state(s, gold[:t])))
    return counts


@pytest.mark.parametrize("min_count", [1, 2, 5])
def test_frequent_gold_keys_are_counted_as_in_python(toy: Toy, min_count: int) -> None:
    counts = gold_key_counts(toy)
    found = toy.search(2).frequent_gold_keys(*toy.corpus.columns, toy.corpus.offsets,
                                             toy.corpus.heads, toy.corpus.labels, min_count)
    assert found.tolist() == [key for key, n in counts.items() if n >= min_count]
    if min_count > 1:
        assert 0 < len(found) < len(counts)


@pytest.mark.parametrize("update", ["max-violation", "early"])
def test_training_with_a_cutoff_matches_the_python_trainer(toy: Toy, update: str) -> None:
    search = toy.search(3)
    kept = search.frequent_gold_keys(*toy.corpus.columns, toy.corpus.offsets, toy.corpus.heads,
                                     toy.corpus.labels, 3)
    table = PerceptronWeights(search.n_actions)
    table.restrict(kept)
    reference = Reference(toy, 3)
    reference.allowed = set(kept.tolist())
    for _ in range(2):
        for s in range(toy.n_sentences):
            search.train_epoch(table, *toy.corpus.columns, toy.corpus.offsets, toy.corpus.heads,
                               toy.corpus.labels, [s], update)
            reference.train(s, update)
    keys, classes, weights = table.current()
    got = {(int(k), int(c)): int(w) for k, c, w in zip(keys, classes, weights) if w}
    assert got == {pair: w for pair, w in reference.weights.items() if w}
    assert got, "no update was made"
    assert set(keys.tolist()) <= reference.allowed


def all_prefixes(reference: Reference, s: int, steps: int) -> list[list[int]]:
    """Every valid action sequence of `steps` steps (complete ones padded with EMPTY)."""
    prefixes: list[list[int]] = [[]]
    for _ in range(steps):
        longer = []
        for actions in prefixes:
            state = reference.state(s, actions)
            if state.is_final:
                longer.append(actions + [EMPTY])
            else:
                longer += [actions + [a] for a in reference.valid(state)]
        prefixes = longer
    return prefixes


def write_tiny_treebank(path: Path, rng: random.Random, n_sentences: int) -> Path:
    """Random projective trees of three words with the labels x and y."""
    from tests.parser.dependency.test_arc_eager import random_projective_tree

    blocks = []
    for _ in range(n_sentences):
        heads = random_projective_tree(3, rng)
        lines = [f"{i}\t{w}\t{w}\tX\tX\t_\t{h}\t{'root' if h == 0 else rng.choice('xy')}"
                 "\t_\t_" for i, (w, h) in enumerate(zip(rng.sample("abcd", 3), heads), 1)]
        blocks.append("\n".join(lines) + "\n\n")
    path.write_text("".join(blocks), encoding="utf-8")
    return path


@pytest.mark.parametrize("seed", range(4))
def test_max_violation_is_where_exhaustive_search_puts_it(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    # (Without the morph columns: the seeds were chosen for the keys of the other templates,
    # whose random weights put the largest violation before the last step.)
    toy = Toy(write_tiny_treebank(tmp_path / "tiny.conllu", rng, 20), 20, morph=False)
    s = seed
    search = toy.search(MAX_BEAM)
    table, plain = random_weights(toy, rng, search.n_actions, updates=400)
    # Large weights make ties between prefixes improbable, so the best prefix is one.
    keys, classes, _ = table.current()
    for k, c in zip(keys.tolist(), classes.tolist()):
        extra = rng.randint(-1000, 1000)
        table.add(np.array([k], dtype=np.uint64), c, extra)
        plain[k, c] += extra
    reference = Reference(toy, MAX_BEAM)
    reference.weights = dict(plain)
    gold = reference.gold_actions(s)
    n = len(toy.columns(s)[0]) - 1
    longest = 2 * n
    prefix_score = {}
    violations, best = [], []
    for t in range(1, longest + 1):
        prefixes = all_prefixes(reference, s, t)
        assert len(prefixes) <= MAX_BEAM, "the beam would not hold every prefix"
        scored = []
        for actions in prefixes:
            parent = prefix_score.get(tuple(actions[:-1]), 0)
            last = actions[-1]
            score = parent if last == EMPTY else parent + reference.score(
                s, reference.state(s, actions[:-1]), last)
            prefix_score[tuple(actions)] = score
            scored.append((score, actions))
        top = max(scored, key=lambda x: x[0])
        padded = (gold + [EMPTY] * t)[:t]
        gold_score = prefix_score[tuple(padded)]
        best.append(top[1])
        violations.append(-math.inf if top[1] == padded else top[0] - gold_score)
        if all(reference.state(s, a).is_final for _, a in scored):
            break
    before = dict(plain)
    search.train_epoch(table, *toy.corpus.columns, toy.corpus.offsets, toy.corpus.heads,
                       toy.corpus.labels, [s], "max-violation")
    # The random weights do not give the gold tree (so there is an update), and the largest
    # violation comes before the last step (so it is not the end's update).
    assert violations[-1] != -math.inf
    worst = violations.index(max(violations))
    assert worst < len(violations) - 1
    reference.weights = defaultdict(int, before)
    reference.update(s, gold, best[worst], worst + 1)
    expected = dict(reference.weights)
    keys, classes, weights = table.current()
    got = {(int(k), int(c)): int(w) for k, c, w in zip(keys, classes, weights) if w}
    assert got == {pair: w for pair, w in expected.items() if w}


def test_search_settings_are_checked(toy: Toy) -> None:
    with pytest.raises(ValueError, match="beam width"):
        toy.search(0)
    with pytest.raises(ValueError, match="one left and one right flag"):
        BeamSearch(2, len(toy.labels), toy.root, [1], toy.right)
    search = toy.search(2)
    with pytest.raises(ValueError, match="classes"):
        search.parse(PerceptronWeights(3), *toy.corpus.columns, toy.corpus.offsets)
    with pytest.raises(ValueError, match="unknown update"):
        search.train_epoch(PerceptronWeights(search.n_actions), *toy.corpus.columns,
                           toy.corpus.offsets, toy.corpus.heads, toy.corpus.labels, [0],
                           "late")


def test_every_parse_is_a_tree(toy: Toy) -> None:
    from tests.parser.dependency.test_arc_eager import is_tree

    search = toy.search(3)
    table, _ = random_weights(toy, random.Random(11), search.n_actions)
    heads, labels = search.parse(table, *toy.corpus.columns, toy.corpus.offsets)
    for s in range(toy.n_sentences):
        lo, hi = toy.corpus.offsets[s], toy.corpus.offsets[s + 1]
        assert is_tree(heads[lo + 1:hi].tolist())
        assert all(0 <= x < len(toy.labels) for x in labels[lo + 1:hi].tolist())
    assert list(itertools.islice(iter(heads), 1)) == [-1]
