"""BunsetsuDecoder (shift-reduce, cascaded chunking, the chunker and their oracles) against
plain-Python references driven by a decision function: gold decisions, a trained classifier
asked through its Python decision_function on feature rows rebuilt from sentence_keys (with
the heads decided so far, since some keys are dynamic), and fixed random linear functions."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import pytest

from polyparse.classifiers.backends import classifier_from_arrays
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.bunsetsu.bunsetsu_decoder import (
    BITMAP_IDS,
    BunsetsuDecoder,
    Corpus,
    Decision,
    sorted_distinct_ids,
)
from polyparse.parser.bunsetsu.bunsetsu_features import sentence_keys, special_ids
from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.config import BunsetsuConfig, classifier_options
from tests.parser.bunsetsu.samples import (
    Sentence,
    is_head_final_tree,
    kwdlc_or_skip,
    synthetic_sentences,
)

ALGORITHMS = ("shift-reduce", "cascaded")
# decide(heads decided so far, i, j): does chunk i depend on chunk j?
Decide = Callable[[list[int], int, int], bool]


@dataclass
class Step:
    """One decision of a reference run: the pair, the heads when it was asked, the answer."""

    i: int
    j: int
    heads: list[int]
    yes: bool


def ask(decide: Decide, heads: list[int], i: int, j: int, steps: list[Step]) -> bool:
    yes = bool(decide(heads, i, j))
    steps.append(Step(i, j, list(heads), yes))
    return yes


def shift_reduce(n: int, decide: Decide) -> tuple[list[int], list[Step]]:
    """Sassano 2004, Figure 1, for head-final sentences: for j = 1 .. n-1, push j - 1, then pop
    every stack top that depends on j (the last chunk takes them all without asking)."""
    heads, steps, stack = [-1] * n, [], []
    for j in range(1, n):
        stack.append(j - 1)
        while stack:
            i = stack[-1]
            if j != n - 1 and not ask(decide, heads, i, j, steps):
                break
            heads[i] = j
            stack.pop()
    return heads, steps


def cascaded(n: int, decide: Decide) -> tuple[list[int], list[Step]]:
    """Kudo & Matsumoto 2002, section 3: tag each unresolved chunk D (depends on the next
    unresolved one; the one before the last always) or O, all with the heads of the previous
    rounds; a D chunk whose previous unresolved chunk is not D gets its head and leaves."""
    heads, steps, active = [-1] * n, [], list(range(n))
    while len(active) > 1:
        snapshot = list(heads)
        tags = [x == len(active) - 2 or ask(decide, snapshot, active[x], active[x + 1], steps)
                for x in range(len(active) - 1)] + [False]
        resolved = [x for x in range(len(active) - 1)
                    if tags[x] and (x == 0 or not tags[x - 1])]
        for x in resolved:
            heads[active[x]] = active[x + 1]
        active = [c for x, c in enumerate(active) if x not in resolved]
    return heads, steps


REFERENCES = {"shift-reduce": shift_reduce, "cascaded": cascaded}


@dataclass
class Encoded:
    """One sentence of a Corpus: its id columns and chunk starts (with the end)."""

    columns: list[np.ndarray]
    chunk_start: np.ndarray
    char_class: np.ndarray

    @property
    def n_chunks(self) -> int:
        return len(self.chunk_start) - 1


def sentences_of(corpus: Corpus) -> list[Encoded]:
    mp, cp = corpus.morpheme_ptr, corpus.chunk_ptr
    out = []
    for t in range(corpus.n_sentences):
        lo, hi = mp[t], mp[t + 1]
        columns = [c[lo:hi] for c in (corpus.surface, corpus.pos1, corpus.pos2,
                                      corpus.conj_form)]
        out.append(Encoded(columns, corpus.chunk_bounds[cp[t] + t:cp[t + 1] + t + 1],
                           corpus.char_class[lo:hi]))
    return out


def pair_keys(s: Encoded, ids: dict[str, int], heads: Sequence[int], i: int, j: int
              ) -> list[int]:
    (keys,), _ = sentence_keys(*s.columns, s.chunk_start, heads, ids, [(i, j)])
    return keys


class ClassifierDecide:
    """The decision of a classifier on one sentence, through its Python decision_function on
    a BinaryMatrix row of the keys' feature ids."""

    def __init__(self, clf: object, vocab: FeatureVocab, ids: dict[str, int]) -> None:
        self.clf, self.vocab, self.ids = clf, vocab, ids
        classes = np.asarray(clf.classes_).tolist()
        self.sign = 1.0 if classes[0] == 1 else -1.0
        self.asked = 0

    def value(self, keys: Sequence[int]) -> float:
        found = self.vocab.transform(np.asarray(keys, dtype=np.uint64))
        row = np.unique(found[found >= 0])
        matrix = BinaryMatrix.from_rows([row], len(self.vocab))
        self.asked += 1
        return self.sign * float(self.clf.decision_function(matrix)[0, 0])

    def pair(self, s: Encoded) -> Decide:
        return lambda heads, i, j: self.value(pair_keys(s, self.ids, heads, i, j)) > 0


def reference_parse(corpus: Corpus, algorithm: str,
                    decide_for: Callable[[int, Encoded], Decide]) -> np.ndarray:
    heads: list[int] = []
    for t, s in enumerate(sentences_of(corpus)):
        heads += REFERENCES[algorithm](s.n_chunks, decide_for(t, s))[0]
    return np.asarray(heads, dtype=np.int32)


def gold_decide(gold: Sequence[int]) -> Decide:
    return lambda heads, i, j: gold[i] == j


def flat_gold(sentences: Sequence[Sentence]) -> np.ndarray:
    return np.asarray([h for s in sentences for h in s.heads], dtype=np.int32)


def random_linear(parser: BunsetsuParser, name: str, seed: int) -> object:
    """The parser's linear classifier `name` with random weights: a fixed random function."""
    header, arrays = parser.classifiers[name].to_arrays()
    rng = np.random.default_rng(seed)
    weights = "weights" if header["layout"] == "dense" else "values"
    arrays = dict(arrays, **{weights: rng.normal(size=arrays[weights].shape).astype(
        arrays[weights].dtype), "intercept": np.zeros_like(arrays["intercept"])})
    return classifier_from_arrays(header, arrays)


def linear_config(**settings: object) -> BunsetsuConfig:
    # classifier_params does not follow classifier: the linear backend's own settings.
    return BunsetsuConfig(classifier="linear", classifier_params=classifier_options("linear"),
                          **settings)


def decision_of(clf: object, vocab: FeatureVocab) -> Decision:
    return Decision(vocab.index, clf.scorer,
                    positive_means_yes=np.asarray(clf.classes_).tolist()[0] == 1)


# ----- the references themselves ------------------------------------------------------------


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_references_with_gold_decisions_give_gold_trees(algorithm: str) -> None:
    for s in synthetic_sentences(seed=5, n=300, max_chunks=14):
        heads, steps = REFERENCES[algorithm](len(s.heads), gold_decide(s.heads))
        assert heads == s.heads
        if algorithm == "shift-reduce":
            assert len(steps) <= max(0, 2 * len(s.heads) - 3)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_constant_decisions(algorithm: str) -> None:
    sentences = synthetic_sentences(seed=6, n=50, max_chunks=10)
    parser = BunsetsuParser(linear_config(chunker=False))
    corpus = parser.encode(sentences, grow=True)
    decoder = BunsetsuDecoder(special_ids(parser.lexicon), algorithm)
    for constant in (True, False):
        got = decoder.parse(corpus, Decision(constant=constant))
        expected = reference_parse(corpus, algorithm, lambda t, s, c=constant: lambda h, i, j: c)
        assert got.tolist() == expected.tolist()
        sizes = [len(s.heads) for s in sentences]
        # Always yes: each chunk depends on the next; always no: on the last.
        trees = [[(c + 1 if constant else n - 1) if c < n - 1 else -1 for c in range(n)]
                 for n in sizes]
        assert got.tolist() == [h for tree in trees for h in tree]


# ----- oracles ------------------------------------------------------------------------------


def check_oracle(sentences: Sequence[Sentence], algorithm: str) -> int:
    """The oracle's rows are the reference's gold decisions in order, with their keys (heads
    decided so far) and labels; returns the number of rows."""
    parser = BunsetsuParser(linear_config(algorithm=algorithm))
    corpus = parser.encode(sentences, grow=True)
    ids = special_ids(parser.lexicon)
    decoder = BunsetsuDecoder(ids, algorithm)
    keys, indptr, labels = decoder.oracle(corpus, flat_gold(sentences))
    row = 0
    for s, sentence in zip(sentences_of(corpus), sentences):
        heads, steps = REFERENCES[algorithm](s.n_chunks, gold_decide(sentence.heads))
        if is_head_final_tree(sentence.heads):
            assert heads == sentence.heads
        for step in steps:
            assert labels[row] == (1 if step.yes else -1)
            got = keys[indptr[row]:indptr[row + 1]].tolist()
            assert sorted(got) == sorted(pair_keys(s, ids, step.heads, step.i, step.j))
            row += 1
    assert row == len(labels)
    return row


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_oracle_on_synthetic_trees(algorithm: str) -> None:
    assert check_oracle(synthetic_sentences(seed=7, n=200, max_chunks=12), algorithm) > 500


def check_chunk_oracle(sentences: Sequence[Sentence]) -> None:
    parser = BunsetsuParser(linear_config())
    corpus = parser.encode(sentences, grow=True)
    ids = special_ids(parser.lexicon)
    flags = np.concatenate([np.isin(np.arange(len(s.surface)), s.chunk_starts)
                            for s in sentences]).astype(np.int8)
    keys, indptr, labels = BunsetsuDecoder(ids).chunk_oracle(corpus, flags)
    row = 0
    for s, sentence in zip(sentences_of(corpus), sentences):
        n = len(s.columns[0])
        _, boundaries = sentence_keys(*s.columns, s.chunk_start, [-1] * s.n_chunks, ids, (),
                                      range(1, n), s.char_class)
        for m in range(1, n):
            assert labels[row] == (1 if m in sentence.chunk_starts else -1)
            got = keys[indptr[row]:indptr[row + 1]].tolist()
            assert sorted(got) == sorted(boundaries[m - 1])
            row += 1
    assert row == len(labels)


def test_chunk_oracle_on_synthetic_sentences() -> None:
    check_chunk_oracle(synthetic_sentences(seed=8, n=100))


# ----- parsing and chunking with fixed random functions --------------------------------------


@pytest.fixture(scope="module")
def synthetic_parser() -> tuple[BunsetsuParser, list[Sentence]]:
    parser = BunsetsuParser(linear_config())
    parser.train(synthetic_sentences(seed=9, n=200))
    return parser, synthetic_sentences(seed=10, n=150, max_chunks=14)


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("seed", range(3))
def test_parse_with_a_random_function(synthetic_parser: tuple[BunsetsuParser, list[Sentence]],
                                      algorithm: str, seed: int) -> None:
    parser, sentences = synthetic_parser
    clf = random_linear(parser, "dependency", seed)
    vocab = parser.vocabs["dependency"]
    ids = special_ids(parser.lexicon)
    corpus = parser.encode(sentences)
    got = BunsetsuDecoder(ids, algorithm).parse(corpus, decision_of(clf, vocab))
    decide = ClassifierDecide(clf, vocab, ids)
    expected = reference_parse(corpus, algorithm, lambda t, s: decide.pair(s))
    assert got.tolist() == expected.tolist()
    gold = flat_gold(sentences)
    assert 0 < np.mean(got == gold) < 1  # random trees, not a degenerate function


def reference_chunk(corpus: Corpus, decide: ClassifierDecide) -> np.ndarray:
    starts: list[int] = []
    for s in sentences_of(corpus):
        n = len(s.columns[0])
        decided = [0]  # the starts so far: the chunker's dynamic keys read them
        for m in range(1, n):
            _, (keys,) = sentence_keys(*s.columns, decided + [n], [-1] * len(decided),
                                       decide.ids, (), [m], s.char_class)
            if decide.value(keys) > 0:
                decided.append(m)
        starts += [int(m in decided) for m in range(n)]
    return np.asarray(starts, dtype=np.int8)


@pytest.mark.parametrize("seed", range(2))
def test_chunk_with_a_random_function(synthetic_parser: tuple[BunsetsuParser, list[Sentence]],
                                      seed: int) -> None:
    parser, sentences = synthetic_parser
    clf = random_linear(parser, "chunk", seed)
    vocab = parser.vocabs["chunk"]
    ids = special_ids(parser.lexicon)
    corpus = parser.encode([s.without_chunks() for s in sentences], chunks=False)
    got = BunsetsuDecoder(ids).chunk(corpus, decision_of(clf, vocab))
    expected = reference_chunk(corpus, ClassifierDecide(clf, vocab, ids))
    assert got.tolist() == expected.tolist()
    assert 0 < got.mean() < 1


# ----- KWDLC: trained classifiers -----------------------------------------------------------


@pytest.fixture(scope="module")
def kwdlc() -> tuple[list[Sentence], list[Sentence]]:
    return kwdlc_or_skip("train", 300), kwdlc_or_skip("test", 300)


# shift-reduce with PA-I converted to split-svm, cascaded with a linear SVM.
SETTINGS = {"shift-reduce": ("pa-slicing", {"C": 0.0002, "degree": 2, "iterations": 3,
                                            "strategy": "slice", "variant": "pa1",
                                            "average": True}),
            "cascaded": ("linear", {"C": 0.1})}


@pytest.fixture(scope="module", params=ALGORITHMS)
def kwdlc_parser(request: pytest.FixtureRequest,
                 kwdlc: tuple[list[Sentence], list[Sentence]]) -> BunsetsuParser:
    classifier, params = SETTINGS[request.param]
    parser = BunsetsuParser(BunsetsuConfig(algorithm=request.param, classifier=classifier,
                                           classifier_params=dict(params), seed=1))
    parser.train(kwdlc[0])
    return parser


def test_kwdlc_parse_matches_the_reference(kwdlc_parser: BunsetsuParser,
                                           kwdlc: tuple[list[Sentence], list[Sentence]]
                                           ) -> None:
    test = kwdlc[1]
    corpus = kwdlc_parser.encode(test)
    got = kwdlc_parser.parse_corpus(corpus)
    decide = ClassifierDecide(kwdlc_parser.classifiers["dependency"],
                              kwdlc_parser.vocabs["dependency"],
                              special_ids(kwdlc_parser.lexicon))
    expected = reference_parse(corpus, kwdlc_parser.config.algorithm,
                               lambda t, s: decide.pair(s))
    assert got.tolist() == expected.tolist()
    assert decide.asked > 1000
    gold = flat_gold(test)
    not_last = np.concatenate([np.arange(len(s.heads)) < len(s.heads) - 1 for s in test])
    assert np.mean(got[not_last] == gold[not_last]) > 0.7


def test_kwdlc_chunk_matches_the_reference(kwdlc_parser: BunsetsuParser,
                                           kwdlc: tuple[list[Sentence], list[Sentence]]
                                           ) -> None:
    test = kwdlc[1]
    corpus = kwdlc_parser.encode([s.without_chunks() for s in test], chunks=False)
    got = kwdlc_parser.chunk_corpus(corpus)
    decide = ClassifierDecide(kwdlc_parser.classifiers["chunk"], kwdlc_parser.vocabs["chunk"],
                              special_ids(kwdlc_parser.lexicon))
    assert got.tolist() == reference_chunk(corpus, decide).tolist()
    gold = np.concatenate([np.isin(np.arange(len(s.surface)), s.chunk_starts) for s in test])
    assert np.mean(got == gold) > 0.9


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_kwdlc_oracles(kwdlc: tuple[list[Sentence], list[Sentence]], algorithm: str) -> None:
    sentences = kwdlc[1][:150]
    assert sum(is_head_final_tree(s.heads) for s in sentences) == len(sentences)
    assert check_oracle(sentences, algorithm) > 500
    check_chunk_oracle(sentences)


def test_decision_feature_ids_equal_the_vocabulary() -> None:
    """The direct table of Decision against the vocabulary's KeyIndex: keys of the vocabulary,
    keys next to them, and keys beyond the table's rows (large templates and values), in the
    vocabulary or not (2**64 - 1, KeyIndex's reserved empty key, is never asked)."""
    rng = np.random.default_rng(2)
    templates = rng.integers(0, 90, 3000).astype(np.uint64)
    values = rng.integers(0, 30000, 3000).astype(np.uint64)
    keys = (templates << np.uint64(48)) | values
    beyond = np.array([(130 << 48) | 5, (7 << 48) | (1 << 30), (1 << 48) | ((1 << 48) - 1),
                       0xFFFFFFFFFFFFFFF0], dtype=np.uint64)
    for vocab_keys in (keys, np.concatenate([keys, beyond])):
        vocab = FeatureVocab.count(vocab_keys)
        decision = Decision(vocab.index, None)
        probes = np.concatenate([vocab.keys, vocab.keys + np.uint64(1), vocab.keys - np.uint64(1),
                                 beyond, beyond + np.uint64(1),
                                 np.array([0, 1 << 48, (127 << 48) | (1 << 24)], np.uint64)])
        assert decision.feature_ids(probes).tolist() == vocab.transform(probes).tolist()
    empty = Decision(FeatureVocab.count(np.zeros(0, np.uint64)).index, None)
    assert empty.feature_ids(keys[:10]).tolist() == [-1] * 10


def test_decision_ids_are_sorted_and_distinct() -> None:
    """What decide gives the scorer: the distinct ids of the keys in the vocabulary, sorted
    (on the bitmap, copies of a key and keys outside the vocabulary included)."""
    rng = np.random.default_rng(3)
    keys = (rng.integers(0, 90, 2000).astype(np.uint64) << np.uint64(48)) \
        | rng.integers(0, 500, 2000).astype(np.uint64)
    vocab = FeatureVocab.count(keys[:1500])
    decision = Decision(vocab.index, None)
    assert decision.decision_ids(keys[:0]).tolist() == []
    for size in (1, 2, 5, 31, 64, 256):
        for _ in range(20):
            chosen = rng.choice(keys, size)
            chosen[: size // 3] = chosen[-(size // 3):] if size >= 3 else chosen[: size // 3]
            ids = vocab.transform(chosen)
            expected = np.unique(ids[ids >= 0])
            assert decision.decision_ids(chosen).tolist() == expected.tolist()


@pytest.mark.parametrize("n_ids", [1, 64, 4097, 300_000, BITMAP_IDS, BITMAP_IDS + 1])
def test_sorted_distinct_ids_equal_numpy_unique(n_ids: int) -> None:
    """How a decision's ids are put in order for the scorer, on the three-level bitmap (ids in
    the first and the last words of each level, and spread over them) and, for a vocabulary
    beyond BITMAP_IDS, by comparison counting: np.unique's ids, copies and all, call after
    call on the same bitmap (each leaves it empty)."""
    rng = np.random.default_rng(n_ids)
    edges = np.array([0, 63, 64, 4095, 4096, 262_143, 262_144, n_ids - 1], dtype=np.int64)
    edges = edges[edges < n_ids]
    for size in (0, 1, 2, 7, 33, 64, 256):
        for _ in range(10):
            values = rng.integers(0, n_ids, size)
            if size > 2:
                values[: size // 4] = rng.choice(edges, size // 4)
                values[-(size // 4):] = values[: size // 4]
            found = sorted_distinct_ids(values, n_ids)
            assert found.tolist() == np.unique(values).tolist()
    with pytest.raises(ValueError):
        sorted_distinct_ids([n_ids], n_ids)
