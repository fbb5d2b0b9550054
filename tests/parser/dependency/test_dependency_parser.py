"""The arc-eager parser end to end: training, trees out, determinism, model round trip."""
from __future__ import annotations

import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.classifiers.backends import classifier_from_arrays
from polyparse.classifiers.evaluators.modes import EVAL_MODES
from polyparse.classifiers.kernel_svm.svc import KernelSVM
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.parser.dependency.arc_eager import ArcEagerState
from polyparse.parser.dependency.config import ParserConfig
from polyparse.parser.dependency.decoder import ClassifierSlot
from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.dependency.feature_templates import state_keys
from polyparse.parser.formats.conll import Sentence, read_conll
from tests.parser.dependency.synthetic import TAGS, WORDS, write_treebank
from tests.parser.dependency.test_arc_eager import is_tree


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory: pytest.TempPathFactory) -> list[Sentence]:
    path = write_treebank(tmp_path_factory.mktemp("syn") / "train.conllu", 400, seed=1)
    return list(read_conll(path, require_tree=True))


@pytest.fixture(scope="module")
def trained(synthetic: list[Sentence]) -> DependencyParser:
    parser = DependencyParser(ParserConfig(split_threshold=300, seed=3))
    parser.train(synthetic)
    return parser


def test_learns_the_synthetic_grammar(trained: DependencyParser, tmp_path: Path) -> None:
    test = list(read_conll(write_treebank(tmp_path / "test.conllu", 100, seed=2)))
    parsed = trained.parse(test)
    scores = evaluate(test, [replace(s, head=h, deprel=d) for s, (h, d) in zip(test, parsed)])
    assert scores.UAS > 95 and scores.LAS > 95
    assert len(trained.split_names) > 1  # NN, VB, ... have their own split


def test_same_seed_gives_a_byte_identical_model(synthetic: list[Sentence], tmp_path: Path) -> None:
    paths = []
    for i in range(2):
        parser = DependencyParser(ParserConfig(split_threshold=300, seed=5, threads=2 - i))
        parser.train(synthetic)
        paths.append(tmp_path / f"m{i}.model")
        parser.save(str(paths[-1]))
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_saved_model_parses_identically(trained: DependencyParser, synthetic: list[Sentence],
                                        tmp_path: Path) -> None:
    trained.save(str(tmp_path / "p.model"))
    loaded = DependencyParser.load(str(tmp_path / "p.model"))
    assert loaded.parse(synthetic[:50]) == trained.parse(synthetic[:50])


@pytest.mark.parametrize("compress", [False, True])
def test_a_loaded_model_builds_the_classifiers_of_the_splits_it_meets(
        trained: DependencyParser, synthetic: list[Sentence], tmp_path: Path,
        compress: bool) -> None:
    """Loading builds no classifier; a parse builds those of its sentences' splits alone, and
    parsing in pieces (the decoder growing split by split) gives the trees of one parse of all
    and of the trained parser."""
    trained.save(str(tmp_path / "p.model"), compress=compress)
    loaded = DependencyParser.load(str(tmp_path / "p.model"))
    assert not any(loaded.classifiers.is_built(key) for key in loaded.classifiers)
    sentences = sorted(synthetic[:120], key=lambda sentence: len(sentence.form))
    pieces = [loaded.parse(sentences[:1])]
    used = loaded.splits_used(loaded.encode(sentences[:1]).split_tag)
    built = {key[0] for key in loaded.classifiers if loaded.classifiers.is_built(key)}
    assert built == used and len(used) < len(loaded.split_names)
    pieces += [loaded.parse(sentences[i:i + 7]) for i in range(1, len(sentences), 7)]
    in_pieces = [tree for piece in pieces for tree in piece]
    assert in_pieces == trained.parse(sentences)
    assert in_pieces == DependencyParser.load(str(tmp_path / "p.model")).parse(sentences)


def test_threads_parsing_with_one_loaded_model_get_its_trees(
        trained: DependencyParser, synthetic: list[Sentence], tmp_path: Path) -> None:
    """Threads that parse at once with a freshly loaded parser, each meeting other splits
    first, build its classifiers and decoder between them and get the trained parser's trees."""
    import threading

    trained.save(str(tmp_path / "p.model"), compress=True)
    loaded = DependencyParser.load(str(tmp_path / "p.model"))
    sentences = sorted(synthetic[:160], key=lambda sentence: len(sentence.form))
    groups = [sentences[i::8] for i in range(8)]
    start = threading.Barrier(len(groups))
    parsed: dict[int, list] = {}

    def parse(i: int) -> None:
        start.wait()
        parsed[i] = [loaded.parse([sentence])[0] for sentence in groups[i]]

    threads = [threading.Thread(target=parse, args=(i,)) for i in range(len(groups))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [parsed.get(i) for i in range(len(groups))] == [trained.parse(g) for g in groups]


def test_splits_used_covers_every_split_tag(trained: DependencyParser) -> None:
    """splits_used against a plain loop over the tokens, unknown tags (-1, too large) in the
    fallback split."""
    table, fallback = trained.split_of_tag()
    rng = np.random.default_rng(0)
    for _ in range(50):
        tags = rng.integers(-1, len(table) + 2, size=int(rng.integers(1, 12))).astype(np.int32)
        expected = {int(table[t]) if 0 <= t < len(table) else fallback for t in tags}
        assert trained.splits_used(tags) == expected


def randomized(parser: DependencyParser, seed: int) -> DependencyParser:
    """The same parser with every classifier weight drawn at random."""
    rng = np.random.default_rng(seed)
    clone = DependencyParser(parser.config)
    clone.__dict__.update({k: v for k, v in parser.__dict__.items() if k != "classifiers"})
    clone.classifiers = {}
    clone._decoder = None
    for key, clf in parser.classifiers.items():
        if clf is None:
            clone.classifiers[key] = None
            continue
        header, arrays = clf.to_arrays()
        arrays = {name: (rng.normal(size=a.shape).astype(a.dtype) if a.dtype.kind == "f" else a)
                  for name, a in arrays.items()}
        clone.classifiers[key] = classifier_from_arrays(header, arrays)
    return clone


def random_sentence(rng: random.Random, n: int) -> Sentence:
    tags = [rng.choice(list(TAGS)) for _ in range(n)]
    forms = [rng.choice(WORDS[t] + ["unseen"]) for t in tags]
    lines = [f"{i}\t{f}\t{f}\t{TAGS[t]}\t{t}\t_\t_\t_\t_\t_" for i, (f, t) in
             enumerate(zip(forms, tags), 1)]
    return Sentence(lines, list(range(n)), forms, forms, [TAGS[t] for t in tags], tags,
                    [-1] * n, ["_"] * n, 1)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_every_output_is_a_tree_under_random_weights(trained: DependencyParser, seed: int) -> None:
    rng = random.Random(seed)
    parser = randomized(trained, seed)
    sentences = [random_sentence(rng, rng.randint(1, 40)) for _ in range(20)]
    for heads, deprels in parser.parse(sentences):
        assert is_tree(heads), heads
        assert deprels.count("root") == heads.count(0) == 1
        assert all("|" not in d for d in deprels)


MOVES = "SDLR"
MOVE_PREFERENCE = "SRLD"


def best_class(clf, ranks: list[int], allowed: set[int]) -> int:
    """Highest-scoring allowed class (first in class order on ties), -1 if none is allowed."""
    classes = [int(c) for c in clf.classes_]
    if len(classes) == 1:
        return classes[0] if classes[0] in allowed else -1
    values = clf.decision_function(BinaryMatrix.from_rows([np.asarray(ranks, dtype=np.int32)]))[0]
    if isinstance(clf, KernelSVM) and len(classes) > 2:
        return one_vs_one_vote(classes, values, allowed)
    if len(values) == 1:
        values = [values[0], -values[0]]
    best, best_value = -1, 0.0
    for c, v in zip(classes, values):
        if c in allowed and (best < 0 or v > best_value):
            best, best_value = c, v
    return best


def one_vs_one_vote(classes: list[int], values: np.ndarray, allowed: set[int]) -> int:
    """libsvm's vote over the pairs of allowed classes (pairs (i, j), i < j, in libsvm's order;
    a positive value votes for i), ties to the first class; -1 if no class is allowed."""
    votes = dict.fromkeys(classes, 0)
    pairs = [(i, j) for i in range(len(classes)) for j in range(i + 1, len(classes))]
    for (i, j), value in zip(pairs, values):
        if classes[i] in allowed and classes[j] in allowed:
            votes[classes[i] if value > 0 else classes[j]] += 1
    candidates = [c for c in classes if c in allowed]
    return max(candidates, key=lambda c: (votes[c], -classes.index(c))) if candidates else -1


def python_parse(parser: DependencyParser, sentence: Sentence) -> tuple[list[int], list[int]]:
    """Plain-Python greedy decoding through the ArcEagerState view: the decoder's reference."""
    corpus = parser.encode([sentence])
    word, tag, coarse, split_tag = (a.tolist() for a in (corpus.word, corpus.tag, corpus.coarse,
                                                         corpus.split_tag))
    names = parser.labels.learned()
    table, fallback = parser.split_of_tag()
    root_counts = np.asarray(parser.info["root_label_counts"])
    other_counts = np.asarray(parser.info["other_label_counts"])
    root_labels = set(np.flatnonzero(root_counts).tolist())
    other_labels = set(np.flatnonzero(other_counts).tolist())
    s = ArcEagerState(len(sentence), parser.config.single_root, labels=names)
    while not s.is_final:
        valid = {MOVES.index(m) for m in s.valid()}
        keys = state_keys(s, word, tag, coarse, parser.config.feature_set, corpus.morph,
                          corpus.suffix)
        ranks = sorted(int(r) for r in parser.vocab.transform(keys) if r >= 0)
        t = split_tag[s.buffer[0]]
        split = int(table[t]) if 0 <= t < len(table) else fallback
        if len(valid) == 1:
            move = valid.pop()
        else:
            clf = parser.classifiers.get((split, "transition"))
            move = best_class(clf, ranks, valid) if clf is not None else (0 if 0 in valid else -1)
            if move < 0:
                move = next(MOVES.index(m) for m in MOVE_PREFERENCE if MOVES.index(m) in valid)
        name = MOVES[move]
        if name in "LR":
            to_root = name == "R" and s.stack[-1] == 0
            kind = "left" if name == "L" else "right"
            clf = parser.classifiers.get((split, kind))
            allowed = root_labels if to_root else other_labels
            default = int(np.argmax(root_counts if to_root else other_counts))
            if clf is None:
                label = int(np.argmax(other_counts))
                label = label if label in allowed else -1
            else:
                label = best_class(clf, ranks, allowed)
            name += "-" + names[label if label >= 0 else default]
        s.apply(name)
    return s.heads, [names.index(lab) if lab in names else -1 for lab in s.labels]


def assert_decoder_matches_python(parser: DependencyParser, sentences: list[Sentence]) -> None:
    corpus = parser.encode(sentences)
    heads, labels = parser.decoder().parse(corpus.word, corpus.tag, corpus.coarse,
                                           corpus.split_tag, corpus.offsets, corpus.morph,
                                           corpus.suffix)
    for i, sentence in enumerate(sentences):
        start, end = corpus.offsets[i] + 1, corpus.offsets[i + 1]
        assert python_parse(parser, sentence) == (heads[start:end].tolist(),
                                                  labels[start:end].tolist())


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_decoder_equals_python_reference_under_random_weights(trained: DependencyParser,
                                                              seed: int) -> None:
    rng = random.Random(seed)
    parser = randomized(trained, seed)
    assert_decoder_matches_python(parser, [random_sentence(rng, rng.randint(1, 30))
                                           for _ in range(10)])


@settings(max_examples=30, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_one_vs_one_slot_votes_among_allowed_classes(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n_classes = int(rng.integers(3, 8))
    classes = rng.permutation(20)[:n_classes].astype(np.int32)
    rows = [np.unique(rng.integers(0, 30, 6)).astype(np.int32) for _ in range(60)]
    y = classes[rng.integers(0, n_classes, 60)]
    y[:n_classes] = classes
    clf = KernelSVM(degree=2, C=1.0).fit(BinaryMatrix.from_rows(rows), y)
    slot = ClassifierSlot(clf.scorer, clf.classes_, one_vs_one=True)
    for row in rows[:20]:
        allowed = set(rng.choice(classes, int(rng.integers(0, n_classes + 1)), replace=False).tolist())
        mask = np.zeros(20, dtype=np.intc)
        mask[list(allowed)] = 1
        expected = best_class(clf, row.tolist(), allowed)
        assert slot.best_class(row, mask) == expected
        if allowed == set(classes.tolist()):
            assert expected == clf.predict(BinaryMatrix.from_rows([row]))[0]


@pytest.fixture(scope="module")
def trained_kernel(synthetic: list[Sentence]) -> DependencyParser:
    parser = DependencyParser(ParserConfig(
        split_threshold=300, classifier="kernel-svm",
        classifier_params={"degree": 2, "gamma": 0.2, "coef0": 0.4, "C": 1.0, "eps": 0.1}))
    parser.train(synthetic)
    return parser


def test_kernel_svm_parser_learns_and_all_eval_modes_give_the_same_trees(
        trained_kernel: DependencyParser, tmp_path: Path) -> None:
    test = list(read_conll(write_treebank(tmp_path / "test.conllu", 100, seed=2)))
    trained_kernel.set_evaluation("naive")
    naive = trained_kernel.parse(test)
    scores = evaluate(test, [replace(s, head=h, deprel=d) for s, (h, d) in zip(test, naive)])
    assert scores.UAS > 95 and scores.LAS > 95
    trained_kernel.save(str(tmp_path / "k.model"))
    loaded = DependencyParser.load(str(tmp_path / "k.model"))
    for mode in EVAL_MODES:
        loaded.set_evaluation(mode)
        assert loaded.parse(test) == naive, mode
    loaded.set_evaluation("split", 2)
    assert loaded.parse(test) == naive
    with pytest.raises(ValueError, match="unknown evaluation mode"):
        loaded.set_evaluation("fast")


@settings(max_examples=5, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1))
def test_kernel_decoder_equals_python_reference_under_random_weights(
        trained_kernel: DependencyParser, seed: int) -> None:
    rng = random.Random(seed)
    parser = randomized(trained_kernel, seed)
    sentences = [random_sentence(rng, rng.randint(1, 30)) for _ in range(8)]
    for mode in ("naive", "split"):
        parser.set_evaluation(mode)
        assert_decoder_matches_python(parser, sentences)


def test_ewt_slice_end_to_end(corpora: Path) -> None:
    ewt = corpora / "en_ewt"
    train = list(read_conll(ewt / "en_ewt-ud-train.conllu", require_tree=True))[:1500]
    dev = list(read_conll(ewt / "en_ewt-ud-dev.conllu"))[:300]
    parser = DependencyParser(ParserConfig(seed=0))
    parser.train(train)
    parsed = parser.parse(dev)
    for heads, _ in parsed:
        assert is_tree(heads)
    scores = evaluate(dev, [replace(s, head=h, deprel=d) for s, (h, d) in zip(dev, parsed)])
    assert scores.UAS > 70 and scores.LAS > 62
    assert_decoder_matches_python(parser, dev[:60])


def test_ewt_slice_kernel_svm_eval_modes(corpora: Path) -> None:
    ewt = corpora / "en_ewt"
    train = list(read_conll(ewt / "en_ewt-ud-train.conllu", require_tree=True))[:800]
    dev = list(read_conll(ewt / "en_ewt-ud-dev.conllu"))[:200]
    parser = DependencyParser(ParserConfig(
        classifier="kernel-svm",
        classifier_params={"degree": 2, "gamma": 0.2, "coef0": 0.4, "C": 1.0, "eps": 0.1}))
    parser.train(train)
    parser.set_evaluation("naive")
    naive = parser.parse(dev)
    scores = evaluate(dev, [replace(s, head=h, deprel=d) for s, (h, d) in zip(dev, naive)])
    assert scores.UAS > 65
    for mode in ("pki", "pke", "split"):
        parser.set_evaluation(mode)
        assert parser.parse(dev) == naive, mode
    assert_decoder_matches_python(parser, dev[:40])


def test_pa_slicing_parser_learns_and_every_eval_mode_gives_the_same_trees(
        synthetic: list[Sentence], tmp_path: Path) -> None:
    parser = DependencyParser(ParserConfig(
        split_threshold=300, classifier="pa-slicing",
        classifier_params={"degree": 2, "C": 1.0, "iterations": 5, "variant": "pa1"}))
    parser.train(synthetic)
    test = list(read_conll(write_treebank(tmp_path / "test.conllu", 80, seed=2)))
    parser.set_evaluation("naive")
    naive = parser.parse(test)
    scores = evaluate(test, [replace(s, head=h, deprel=d) for s, (h, d) in zip(test, naive)])
    assert scores.UAS > 95 and scores.LAS > 95
    parser.save(str(tmp_path / "pa.model"), compress=True)
    loaded = DependencyParser.load(str(tmp_path / "pa.model"))
    for mode in EVAL_MODES:
        loaded.set_evaluation(mode)
        assert loaded.parse(test) == naive, mode
    assert_decoder_matches_python(loaded, test[:30])
