"""BunsetsuParser: Japanese bunsetsu dependency parsing and bunsetsu chunking, as J.DepP does it.

Two binary classifiers over integer feature keys (parser/bunsetsu/bunsetsu_features.pyx): the
dependency classifier answers "does bunsetsu i depend on bunsetsu j?" inside Sassano's
shift-reduce or Kudo & Matsumoto's cascaded chunking (parser/bunsetsu/bunsetsu_decoder.pyx), and
the chunker answers "does this morpheme start a bunsetsu?". Any backend trains them; the default
is J.DepP's, PA-I with the kernel (x.z + 1)^2 trained by kernel slicing for 40 passes (opal's
`-t 1 -d 2 -i 40`; C = 0.0002 rather than J.DepP's 0.00005, which scores 0.3 points lower on
KWDLC with these features), and a kernel model is converted at training to its exact evaluator
(`evaluator`, split-svm by default), which is what the model file stores (its arrays zlib-
compressed: a third of the size, 40 ms more to load), so that loading builds nothing.

Sentences are any objects with the per-morpheme lists surface, pos1, pos2, conj_form, and, for
training, chunk_starts and heads (parser/formats/bunsetsu_sentence.py's BunsetsuSentence).
"""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from functools import partial
from typing import Any

import numpy as np

from polyparse.classifiers.backends import (
    classifier_from_arrays,
    convert_classifier,
    is_kernel_model,
    new_classifier,
)
from polyparse.classifiers.model_bytes import ParserModelBytes
from polyparse.classifiers.model_file import (
    arrays_under,
    encode_model,
    inconsistent,
    write_model_file,
)
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.errors import InputError
from polyparse.features.interning import StringInterner
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.bunsetsu.bunsetsu_decoder import BunsetsuDecoder, Corpus, Decision
from polyparse.parser.bunsetsu.bunsetsu_features import char_class, special_ids
from polyparse.parser.bunsetsu.config import NO_CONVERSION, TRAINING_THREADS, BunsetsuConfig
from polyparse.parser.bunsetsu.tagset_coverage import TagsetCoverage
from polyparse.parser.formats.tag_coverage import TagColumn

MODEL_FORMAT = "polyparse-ja"
MODEL_VERSION = 1
# The column of parts of speech in tag-coverage warnings.
POS_COLUMN = "POS"
# The header entries of the model itself; a file's other entries (training command, dev
# scores) are extras that a loaded parser keeps and writes back.
HEADER_KEYS = ("format", "format_version", "config", "lexicon", "classifiers", "info")
# The classifiers that load() leaves compressed until first asked for: the chunker only works
# on input without bunsetsu lines (or rechunked), so a parse of KNP never inflates it.
DEFERRED_CLASSIFIERS = ("chunk",)


def _rows(keys: np.ndarray, indptr: np.ndarray, vocab: FeatureVocab) -> BinaryMatrix:
    """The rows of key lists as sorted, unique feature ids (keys outside vocab dropped)."""
    ids = vocab.transform(keys).astype(np.int64)
    row = np.repeat(np.arange(len(indptr) - 1, dtype=np.int64), np.diff(indptr))
    combined = np.unique(row[ids >= 0] * len(vocab) + ids[ids >= 0])
    kept_row = combined // max(1, len(vocab))
    new_indptr = np.searchsorted(kept_row, np.arange(len(indptr)), side="left")
    return BinaryMatrix(new_indptr.astype(np.int64), (combined % max(1, len(vocab))),
                        len(vocab), validate=False)


# A part of speech (pos1) that only one dictionary has, for model files that do not name theirs.
TAGSET_MARKS = (("juman", "判定詞"), ("unidic", "補助記号"), ("ipadic", "接頭詞"))


def _tagset_of(sentences: Sequence[Any]) -> str:
    """The dictionary most training sentences are tagged with ("juman", "ipadic", "unidic"),
    "" when none says."""
    counts = Counter(getattr(s, "tagset", "") for s in sentences)
    counts.pop("", None)
    return max(sorted(counts), key=counts.__getitem__) if counts else ""


def _deferred_array(name: str) -> bool:
    return name.split("/", 1)[0] in DEFERRED_CLASSIFIERS


def _classifier_part(header: dict[str, Any], arrays: dict[str, np.ndarray],
                     deferred: dict[str, Callable[[], np.ndarray]],
                     source: str) -> tuple[FeatureVocab, Any]:
    """The vocabulary and classifier of one classifier's part of a model file (its arrays,
    and those still to inflate); ModelFileError naming source when they do not fit."""
    with inconsistent(source):
        part = {**arrays, **{name: inflate() for name, inflate in deferred.items()}}
        vocab = FeatureVocab(part.pop("vocab/keys"), part.pop("vocab/counts").astype(np.int64))
        return vocab, classifier_from_arrays(header, part, source=source)


def _decision_of(clf: Any, vocab: FeatureVocab) -> Decision:
    classes = list(np.asarray(clf.classes_).tolist())
    if len(classes) == 1:
        return Decision(constant=classes[0] == 1)
    return Decision(vocab.index, clf.scorer, positive_means_yes=classes[0] == 1)


class BunsetsuParser(ParserModelBytes):
    """The dependency classifier and the chunker with their vocabularies: train(), parse(),
    save(), load(); pickles through its model file's bytes."""

    HEADER_KEYS = HEADER_KEYS
    MODEL_FORMAT = MODEL_FORMAT

    def __init__(self, config: BunsetsuConfig | None = None, check_backend: bool = True) -> None:
        """check_backend=False: the classifier settings are not checked by the backend (a model
        file's, whose classifiers are built from its arrays)."""
        self.config = config or BunsetsuConfig()
        self.config.check(check_backend)
        self.lexicon = StringInterner()
        self._vocabs: dict[str, FeatureVocab] = {}
        self._classifiers: dict[str, Any] = {}
        # The classifiers of a loaded file not built yet (DEFERRED_CLASSIFIERS): name ->
        # a function giving their vocabulary and classifier.
        self._pending: dict[str, Callable[[], tuple[FeatureVocab, Any]]] = {}
        self.info: dict[str, Any] = {}
        self.header: dict[str, Any] = {}
        self.training_seconds = 0.0
        self._decisions: dict[str, Decision] = {}

    # ----- encoding ------------------------------------------------------------------------

    def encode(self, sentences: Sequence[Any], grow: bool = False,
               chunks: bool = True) -> Corpus:
        """The sentences as a Corpus of lexicon ids (grow: add unseen strings); chunks=False
        leaves every sentence without bunsetsu."""
        lexicon = self.lexicon
        columns = []
        for name in ("surface", "pos1", "pos2", "conj_form"):
            strings = [x for s in sentences for x in getattr(s, name)]
            columns.append(lexicon.as_array(strings, grow))
        lengths = np.fromiter((len(s.surface) for s in sentences), dtype=np.int64,
                              count=len(sentences))
        morpheme_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(lengths, out=morpheme_ptr[1:])
        n_chunks = np.fromiter((len(s.chunk_starts) if chunks else 0 for s in sentences),
                               dtype=np.int64, count=len(sentences))
        chunk_ptr = np.zeros(len(sentences) + 1, dtype=np.int64)
        np.cumsum(n_chunks, out=chunk_ptr[1:])
        bounds = []
        if chunks:
            for s in sentences:
                bounds.extend(s.chunk_starts)
                bounds.append(len(s.surface))
        else:
            bounds = lengths.tolist()
        classes = np.fromiter((char_class(x) for s in sentences for x in s.surface),
                              dtype=np.int32, count=len(columns[0]))
        return Corpus(*columns, morpheme_ptr, chunk_ptr, np.asarray(bounds, dtype=np.int32),
                      classes)

    def n_classifiers(self) -> int:
        """The classifiers train() fits: the dependency classifier, and the chunker."""
        return 2 if self.config.chunker else 1

    @staticmethod
    def _with_chunks(corpus: Corpus, starts: np.ndarray) -> Corpus:
        """The corpus with the chunks given by a 0/1 start flag per morpheme."""
        where = np.flatnonzero(starts).astype(np.int64)
        sentence_of = np.searchsorted(corpus.morpheme_ptr, where, side="right") - 1
        chunk_ptr = np.zeros(corpus.n_sentences + 1, dtype=np.int64)
        np.cumsum(np.bincount(sentence_of, minlength=corpus.n_sentences), out=chunk_ptr[1:])
        relative = where - corpus.morpheme_ptr[sentence_of]
        ends = np.diff(corpus.morpheme_ptr)
        bounds = np.insert(relative, chunk_ptr[1:], ends).astype(np.int32)
        return Corpus(corpus.surface, corpus.pos1, corpus.pos2, corpus.conj_form,
                      corpus.morpheme_ptr, chunk_ptr, bounds, corpus.char_class)

    # ----- training ------------------------------------------------------------------------

    def train(self, sentences: Iterable[Any],
              log: Callable[[str], None] = lambda message: None,
              threads: int = TRAINING_THREADS,
              progress: Callable[[int], object] | None = None) -> None:
        """Train the dependency classifier (and the chunker) on gold bunsetsu trees, `threads`
        classifiers at once (the model does not depend on it); progress(1) is told of each
        classifier trained (n_classifiers() of them)."""
        sentences = self.begin_training(s for s in sentences if len(s.surface))
        started = time.perf_counter()
        self.info = {"tagset": _tagset_of(sentences)}
        cfg = self.config
        corpus = self.encode(sentences, grow=True)
        gold = np.fromiter((h for s in sentences for h in s.heads), dtype=np.int32)
        decoder = BunsetsuDecoder(special_ids(self.lexicon, self.tagset), cfg.algorithm)
        jobs = {"dependency": decoder.oracle(corpus, gold)}
        if cfg.chunker:
            flags = np.zeros(corpus.morpheme_ptr[-1], dtype=np.int8)
            for offset, s in zip(corpus.morpheme_ptr[:-1].tolist(), sentences):
                flags[[offset + c for c in s.chunk_starts]] = 1
            jobs["chunk"] = decoder.chunk_oracle(corpus, flags)
        for name, (_, _, labels) in jobs.items():
            if not len(labels):
                raise InputError(f"the {len(sentences)} training sentences give the {name} "
                                 "classifier no examples (a sentence of one or two bunsetsu "
                                 "has no dependency to decide)")
        self._classifiers, self._vocabs, self._pending = {}, {}, {}

        def fit(name: str) -> tuple[str, FeatureVocab, Any]:
            keys, indptr, labels = jobs[name]
            vocab = FeatureVocab.count(keys)
            matrix = _rows(keys, indptr, vocab)
            log(f"{name}: {matrix.n_rows} examples, {len(vocab)} features")
            fit_started = time.perf_counter()
            clf = new_classifier(cfg.classifier, **cfg._params(name))
            clf.fit(matrix, labels)
            if cfg.evaluator != NO_CONVERSION and is_kernel_model(clf) \
                    and len(clf.classes_) > 1:
                clf = convert_classifier(clf, cfg.evaluator)
            log(f"{name}: trained in {time.perf_counter() - fit_started:.1f} s")
            return name, vocab, clf

        from polyparse.features.worker_threads import interruptible_pool

        with interruptible_pool(max(1, threads)) as pool:
            for name, vocab, clf in pool.map(fit, list(jobs)):
                if progress is not None:
                    progress(1)
                self.vocabs[name] = vocab
                self.classifiers[name] = clf
        self.info["training_sentences"] = len(sentences)
        self.training_seconds = round(time.perf_counter() - started, 3)
        self._decisions = {}

    # ----- the classifiers -----------------------------------------------------------------

    @property
    def classifiers(self) -> dict[str, Any]:
        """The classifiers by name ("dependency", "chunk"), each built if load() left it
        packed."""
        self._build_pending()
        return self._classifiers

    @property
    def vocabs(self) -> dict[str, FeatureVocab]:
        """The feature vocabulary of each classifier."""
        self._build_pending()
        return self._vocabs

    def _has(self, name: str) -> bool:
        return name in self._classifiers or name in self._pending

    def _build_pending(self) -> None:
        """Build every classifier that load() left packed."""
        for name in list(self._pending):
            self._built(name)

    def _built(self, name: str) -> tuple[FeatureVocab, Any]:
        """The vocabulary and classifier of name, built now if they were left packed."""
        if name in self._pending:
            self._vocabs[name], self._classifiers[name] = self._pending[name]()
            del self._pending[name]
        return self._vocabs[name], self._classifiers[name]

    # ----- parsing -------------------------------------------------------------------------

    @property
    def trained(self) -> bool:
        return self._has("dependency")

    @property
    def tagset(self) -> str:
        """The dictionary of the training data's parts of speech: "juman", "ipadic" or
        "unidic"; a model file that does not say is known by a part of speech only that
        dictionary has ("" when it has none of them: JUMAN's names are assumed)."""
        if "tagset" in self.info:
            return self.info["tagset"]
        return next((tagset for tagset, pos in TAGSET_MARKS if self.lexicon.get(pos) >= 0), "")

    @property
    def can_chunk(self) -> bool:
        return self._has("chunk")

    def _decision(self, name: str) -> Decision:
        if not self.trained:
            raise RuntimeError("the parser is not trained (train it or load a model)")
        if name not in self._decisions:
            vocab, clf = self._built(name)
            self._decisions[name] = _decision_of(clf, vocab)
        return self._decisions[name]

    def parse_corpus(self, corpus: Corpus) -> np.ndarray:
        """Heads (relative, flat) of every chunk of an encoded corpus."""
        decoder = BunsetsuDecoder(special_ids(self.lexicon, self.tagset), self.config.algorithm)
        return decoder.parse(corpus, self._decision("dependency"))

    def chunk_corpus(self, corpus: Corpus) -> np.ndarray:
        """0/1 per morpheme: where the chunker starts a bunsetsu."""
        if not self.can_chunk:
            raise ValueError("the model has no bunsetsu chunker (trained with chunker off)")
        decoder = BunsetsuDecoder(special_ids(self.lexicon, self.tagset), self.config.algorithm)
        return decoder.chunk(corpus, self._decision("chunk"))

    def parse(self, sentences: Sequence[Any], chunk: bool | None = None
              ) -> list[tuple[list[int], list[int]]]:
        """(chunk_starts, heads) of each sentence. chunk: True re-chunks every sentence, None
        chunks the sentences that have no bunsetsu, False never chunks. A sentence without
        morphemes has no bunsetsu: ([], [])."""
        sentences = list(sentences)
        if all(len(s.surface) for s in sentences):
            return self._parse_nonempty(sentences, chunk)
        nonempty = [s for s in sentences if len(s.surface)]
        parsed = iter(self._parse_nonempty(nonempty, chunk))
        return [next(parsed) if len(s.surface) else ([], []) for s in sentences]

    def _parse_nonempty(self, sentences: list[Any], chunk: bool | None
                        ) -> list[tuple[list[int], list[int]]]:
        corpus = self.encode(sentences)
        need = [chunk is True or (chunk is None and not s.chunk_starts) for s in sentences]
        starts_of = [list(s.chunk_starts) for s in sentences]
        if any(need):
            flags = self.chunk_corpus(corpus)
            for t in range(len(sentences)):
                if need[t]:
                    lo, hi = corpus.morpheme_ptr[t], corpus.morpheme_ptr[t + 1]
                    starts_of[t] = np.flatnonzero(flags[lo:hi]).tolist()
            corpus = self._with_chunks(corpus, np.concatenate(
                [np.isin(np.arange(len(s.surface)), starts_of[t]).astype(np.int8)
                 for t, s in enumerate(sentences)]) if sentences else np.zeros(0, np.int8))
        heads = self.parse_corpus(corpus).tolist()
        out = []
        for t in range(len(sentences)):
            lo, hi = corpus.chunk_ptr[t], corpus.chunk_ptr[t + 1]
            out.append((starts_of[t], heads[lo:hi]))
        return out

    # ----- model files ---------------------------------------------------------------------

    def tag_coverage(self) -> TagsetCoverage:
        """A counter of the input's morphemes whose part of speech the model never saw (one
        warning line when they are more than a twentieth)."""
        return TagsetCoverage([TagColumn(
            POS_COLUMN, "pos1", frozenset(self.lexicon.ids),
            "is the input tagged with the dictionary of the training data?")],
            unit="morphemes", share=0.05, model_tagset=self.tagset)

    def save(self, path: str, extra_header: dict | None = None) -> None:
        """Write the model file, its arrays compressed; extra_header: JSON-ready entries beside
        the model (None: the extras of the file the parser was loaded from)."""
        write_model_file(path, *self._file_parts(extra_header), compress=True,
                         newest_layout=self.newest_layout)

    def to_bytes(self, extra_header: dict | None = None, compress: bool = True) -> bytes:
        """The bytes of the model file save() writes (compress=False: the same model with its
        arrays uncompressed)."""
        return bytes(encode_model(*self._file_parts(extra_header), compress=compress,
                                  newest_layout=self.newest_layout))

    def _file_parts(self, extra_header: dict | None
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        arrays: dict[str, np.ndarray] = {}
        slots = {}
        for name, clf in sorted(self.classifiers.items()):
            arrays[f"{name}/vocab/keys"] = self.vocabs[name].keys
            arrays[f"{name}/vocab/counts"] = self.vocabs[name].counts.astype(np.int32)
            header, clf_arrays = clf.to_arrays()
            slots[name] = header
            for key, value in clf_arrays.items():
                arrays[f"{name}/{key}"] = value
        extras = self.file_extras() if extra_header is None else extra_header
        header = {"format": MODEL_FORMAT, "format_version": MODEL_VERSION,
                  "config": asdict(self.config), "lexicon": self.lexicon.learned(),
                  "classifiers": slots, "info": self.info, **extras}
        return header, arrays

    @staticmethod
    def deferred_array(name: str) -> bool:
        """The arrays of DEFERRED_CLASSIFIERS: they stay compressed until the classifier is
        first used (the chunker, by input without bunsetsu lines), when they are checked in
        turn; every other classifier is checked and built at load."""
        return _deferred_array(name)

    @classmethod
    def _from_file_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                         source: str, deferred: dict[str, Callable[[], np.ndarray]]
                         ) -> BunsetsuParser:
        parser = cls(BunsetsuConfig(**header["config"]), check_backend=False)
        parser.lexicon = StringInterner(header["lexicon"])
        parser.info = dict(header["info"])
        for name, clf_header in header["classifiers"].items():
            part = arrays_under(arrays, name + "/")
            packed = arrays_under(deferred, name + "/")
            build = partial(_classifier_part, clf_header, part, packed, source)
            if packed:
                parser._pending[name] = build
            else:
                parser._vocabs[name], parser._classifiers[name] = build()
        return parser
