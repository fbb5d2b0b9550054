"""Tagger: a POS tagger over joint (UPOS, XPOS) tags, with features and lemmas; training,
tagging, model files.

Training (Ratnaparkhi 1996; Giménez & Màrquez 2004): each word of the treebank is one row
whose binary features are the templates of parser/tagging/tag_templates.pyx with the gold tags
on its left, and whose class is its (UPOS, XPOS) pair; one classifier of any backend learns the
classes one-vs-rest (kernel-svm: one-vs-one). Tagging runs the classifier greedily left to
right (parser/tagging/tag_decoder.pyx). The `two-pass` template set trains a second classifier
that also reads the first one's tags of the next two words; its training rows take those tags
from first-pass classifiers that did not see the sentence (two-fold jackknifing), so that they
are as wrong as at tagging time. FEATS (and XPOS, when the classes are UPOS alone:
TaggerConfig.xpos) and the lemmas' edit scripts come from the classifiers of
parser/tagging/morphology.py, which read the tagger's tags; lemmas from parser/tagging/lemmas.py.
With TaggerConfig.word_splits (the default) every template set is its `+splits` version, which
reads the word's splits into known words (parser/tagging/lexicon.py).
"""
from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any, NamedTuple

import numpy as np

from polyparse.classifiers.backends import (
    CONVERTED_BACKENDS,
    classifier_from_arrays,
    is_kernel_model,
    new_classifier,
)
from polyparse.classifiers.evaluators.choices import DEFAULT_RARE_THRESHOLD, default_eval_mode
from polyparse.classifiers.model_bytes import ParserModelBytes
from polyparse.classifiers.model_file import (
    arrays_strings,
    arrays_under,
    string_arrays,
)
from polyparse.classifiers.settings import config_or_default
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.interning import StringInterner
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.formats.conll import Sentence
from polyparse.parser.tagging.compact import compact_linear, is_linear
from polyparse.parser.tagging.config import (
    JOINT_TAGS_LIMIT,
    TaggerConfig,
    classifier_params,
    morph_params,
)
from polyparse.parser.tagging.lemmas import Lemmatizer, script_labels
from polyparse.parser.tagging.lexicon import Lexicon
from polyparse.parser.tagging.morphology import LEMMA, Morphology, Target, target_labels
from polyparse.parser.tagging.tag_decoder import TagDecoder, training_keys
from polyparse.parser.tagging.tag_templates import template_names, with_splits

MODEL_FORMAT = "polyparse-tagger"
MODEL_VERSION = 2
HEADER_KEYS = ("format", "format_version", "config", "classes", "passes", "morphology",
               "lemmas", "info")
MISSING = "_"
# Folds of the jackknife that gives the second pass its training rows' first-pass tags.
JACKKNIFE_FOLDS = 2
# The settings that a model file's config lacks when it was trained before them.
OLD_MODEL_CONFIG = {"word_splits": False}
# A linear model's most frequent features whose weights the tagging loop holds as dense rows.
DENSE_FEATURES = 8192


class TaggedColumns(NamedTuple):
    """The tags a tagger gives one sentence: UPOS, XPOS, LEMMA and FEATS of each word (feats
    None: the tagger predicts no features)."""

    upos: list[str]
    xpos: list[str]
    lemma: list[str]
    feats: list[str] | None = None


class TaggerPass(NamedTuple):
    """One classifier over joint tags and the feature vocabulary of its template set."""

    template_set: str
    vocab: FeatureVocab
    classifier: Any


class Tagger(ParserModelBytes):
    """A greedy left-to-right (or two-pass) tagger of joint UPOS/XPOS tags, with features and
    lemmas: train(), tag(), save(), load(); pickles through its model file's bytes."""

    HEADER_KEYS = HEADER_KEYS
    MODEL_FORMAT = MODEL_FORMAT
    PIPELINE_LAYER = "tagger"

    def __init__(self, config: TaggerConfig | None = None) -> None:
        self.config = config_or_default(config, TaggerConfig)
        self.classes: list[tuple[str, str]] = []
        self.lexicon: Lexicon | None = None
        self.passes: list[TaggerPass] = []
        self.morphology: Morphology | None = None
        self.lemmatizer: Lemmatizer | None = None
        self.info: dict[str, Any] = {}
        self.header: dict[str, Any] = {}
        self.compressed = False
        self._decoders: list[TagDecoder] | None = None

    @property
    def trained(self) -> bool:
        return self.lexicon is not None and bool(self.passes)

    @property
    def xpos_apart(self) -> bool:
        """Whether XPOS is a morphology target (the classes are UPOS alone)."""
        return self.morphology is not None and self.morphology.predicts("xpos")

    @property
    def columns(self) -> tuple[str, ...]:
        """The CoNLL-U columns the tagger predicts: UPOS; XPOS when its training data had
        them; FEATS when it had features (and the tagger was trained to predict them); LEMMA
        when it had lemmas."""
        found = ["UPOS"]
        if self.xpos_apart or any(xpos != MISSING for _, xpos in self.classes):
            found.append("XPOS")
        if self.morphology is not None and self.morphology.predicts_feats:
            found.append("FEATS")
        if self.lemmatizer is not None:
            found.append("LEMMA")
        return tuple(found)

    # ----- training -------------------------------------------------------------------------

    def train(self, sentences: Sequence[Sentence],
              log: Callable[[str], None] = lambda message: None) -> None:
        """Learn from tagged sentences (every word with a UPOS; a missing XPOS is "_");
        ValueError when there are none."""
        sentences = self.begin_training(sentences)
        cfg = self.config
        started = time.perf_counter()
        tags = [[f"{u}\t{x}" for u, x in zip(s.upos, s.xpos)] for s in sentences]
        apart = cfg.xpos == "apart" or (
            cfg.xpos == "auto" and len({t for sentence in tags for t in sentence})
            > JOINT_TAGS_LIMIT)
        joint = StringInterner()
        classes = [[joint.add(f"{u}\t{MISSING if apart else x}") - 3
                    for u, x in zip(s.upos, s.xpos)] for s in sentences]
        self.classes = [tuple(name.split("\t")) for name in joint.learned()]  # type: ignore
        feats = [s.feats or [MISSING] * len(s) for s in sentences]
        self.lexicon = Lexicon.learn([(s.form, t, c, f)
                                      for s, t, c, f in zip(sentences, tags, classes, feats)],
                                     cfg.ambiguity_min_count, cfg.dictionary_min_count,
                                     cfg.dictionary_min_share, cfg.min_word_count,
                                     cfg.word_splits)
        gold = np.asarray([c for sentence in classes for c in sentence], dtype=np.int32)
        table, entry, offsets = self.lexicon.encode_training(
            [(s.form, t, f) for s, t, f in zip(sentences, tags, feats)], cfg.min_word_count,
            cfg.ambiguity_min_count)
        log(f"{len(sentences)} sentences, {gold.size} words, {len(self.classes)} joint tags, "
            f"{len(self.lexicon.forms)} forms")
        first = self._train_pass(self._template_set("left"), table, entry, offsets, gold, None,
                                 log)
        self.passes = [first]
        if cfg.template_set == "two-pass":
            right = self._jackknife_tags(table, entry, offsets, gold, log)
            self.passes.append(self._train_pass(self._template_set("two-pass"), table, entry,
                                                offsets, gold, right, log))
        targets = target_labels([f for sentence in feats for f in sentence],
                                [x for s in sentences for x in s.xpos] if apart else None,
                                cfg.feats)
        words = [(f, c, lemma) for s, cs in zip(sentences, classes)
                 for f, c, lemma in zip(s.form, cs, s.lemma)]
        self.lemmatizer = None
        if any(lemma != MISSING for _, _, lemma in words):
            scripts, labels = script_labels(words)
            self.lemmatizer = Lemmatizer.learn(words, scripts)
            if scripts:
                targets.append((Target(LEMMA, "LEMMA", scripts),
                                np.asarray(labels, dtype=np.int32)))
        self.morphology = None
        if targets:
            self.morphology = Morphology.learn(
                table, entry, offsets, gold, len(self.classes), targets, morph_params(cfg),
                cfg.morph_min_feature_count, cfg.min_weight, cfg.threads, log,
                self._template_set("morph"))
        self.info.update({"train_sentences": len(sentences), "train_words": int(gold.size)})
        self._decoders = None
        log(f"trained the tagger in {time.perf_counter() - started:.1f} s")

    def _template_set(self, base: str) -> str:
        """The template set of this base (left, two-pass, morph) that the config asks for."""
        return with_splits(base, self.config.word_splits)

    def _train_pass(self, template_set: str, table: np.ndarray, entry: np.ndarray,
                    offsets: np.ndarray, gold: np.ndarray, right: np.ndarray | None,
                    log: Callable[[str], None]) -> TaggerPass:
        keys = training_keys(table, entry, offsets, gold, right, template_set)
        vocab = FeatureVocab.count(keys, self.config.min_feature_count)
        matrix = feature_rows(vocab, keys)
        log(f"{template_set}: {len(vocab)} features, {matrix.indices.size} active")
        clf = new_classifier(self.config.classifier, **classifier_params(self.config))
        clf.fit(matrix, gold)
        if is_linear(clf):
            vocab, clf = compact_linear(vocab, clf, self.config.min_weight)
        return TaggerPass(template_set, vocab, clf)

    def _jackknife_tags(self, table: np.ndarray, entry: np.ndarray, offsets: np.ndarray,
                        gold: np.ndarray, log: Callable[[str], None]) -> np.ndarray:
        """First-pass tags of every training word from a classifier trained without its
        sentence (sentences dealt to JACKKNIFE_FOLDS folds in turn)."""
        n_sentences = offsets.size - 1
        tags = np.empty_like(gold)
        for fold in range(JACKKNIFE_FOLDS):
            held = np.arange(fold, n_sentences, JACKKNIFE_FOLDS)
            kept = np.setdiff1d(np.arange(n_sentences), held)
            train_entry, train_offsets, train_gold = _sentences_of(entry, offsets, gold, kept)
            part = self._train_pass(self._template_set("left"), table, train_entry,
                                    train_offsets, train_gold, None, log)
            held_entry, held_offsets, held_words = _sentences_of(entry, offsets, None, held)
            decoder = self._decoder(part)
            tags[held_words] = decoder.tag(table, held_entry, held_offsets)
        log(f"jackknifed first-pass tags: {100.0 * np.mean(tags == gold):.2f} % right")
        return tags

    # ----- tagging --------------------------------------------------------------------------

    def _decoder(self, part: TaggerPass) -> TagDecoder:
        assert self.lexicon is not None
        clf = part.classifier
        one_vs_one = False
        if len(clf.classes_) == 1:
            scorer = None
        elif clf.backend in CONVERTED_BACKENDS:
            scorer, one_vs_one = clf.scorer, clf.decision == "one-vs-one"
        elif is_kernel_model(clf):
            from polyparse.classifiers.evaluators.modes import build_evaluator

            scorer = build_evaluator(clf.expansion_, default_eval_mode(clf.expansion_.degree),
                                     DEFAULT_RARE_THRESHOLD)
            one_vs_one = clf.backend == "kernel-svm"
        else:
            scorer = clf.scorer
        decoder = TagDecoder(part.vocab.index, scorer, np.asarray(clf.classes_, dtype=np.int32),
                             part.template_set, self.lexicon.allowed_ptr, self.lexicon.allowed,
                             one_vs_one)
        rows = linear_rows(scorer, len(part.vocab))
        if rows is not None:
            decoder.use_linear_rows(*rows)
        return decoder

    def decoders(self) -> list[TagDecoder]:
        if not self.trained:
            raise RuntimeError("the tagger is not trained (train it or load a model)")
        if self._decoders is None:
            self._decoders = [self._decoder(part) for part in self.passes]
        return self._decoders

    def _encoded_classes(self, forms: Sequence[Sequence[str]]
                         ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The lexicon's (table, entry, offsets) of sentences of forms and the class id of
        every word, one after the other."""
        decoders = self.decoders()
        assert self.lexicon is not None
        table, entry, offsets = self.lexicon.encode(forms)
        tags = decoders[0].tag(table, entry, offsets)
        for decoder in decoders[1:]:
            tags = decoder.tag(table, entry, offsets, tags)
        return table, entry, offsets, tags

    def tag_classes(self, forms: Sequence[Sequence[str]]) -> np.ndarray:
        """The joint class id of every word of sentences of forms, one after the other."""
        return self._encoded_classes(forms)[3]

    def tag_forms(self, forms: Sequence[Sequence[str]]) -> list[TaggedColumns]:
        """UPOS, XPOS, lemma and FEATS of every word of sentences of forms."""
        forms = [list(sentence) for sentence in forms]
        table, entry, offsets, classes = self._encoded_classes(forms)
        tags = classes.tolist()
        upos = [self.classes[t][0] for t in tags]
        xpos = [self.classes[t][1] for t in tags]
        lemmatizer = self.lemmatizer
        words = [form for sentence in forms for form in sentence]
        lemmas = ([MISSING] * len(words) if lemmatizer is None
                  else lemmatizer.in_dictionary(words, tags))
        scripted = np.flatnonzero([lemma is None for lemma in lemmas])
        feats = None
        if self.morphology is not None:
            found = self.morphology.columns(table, entry, offsets, classes, scripted)
            xpos = found.xpos if found.xpos is not None else xpos
            feats = found.feats
            if lemmatizer is not None and found.scripts is not None:
                for i, ranked in zip(scripted.tolist(), found.scripts):
                    lemmas[i] = lemmatizer.by_scripts(words[i], ranked)
        out = []
        start = 0
        for sentence in forms:
            end = start + len(sentence)
            out.append(TaggedColumns(upos[start:end], xpos[start:end],
                                     [lemma or words[start + k]
                                      for k, lemma in enumerate(lemmas[start:end])],
                                     None if feats is None else feats[start:end]))
            start = end
        return out

    def tag(self, sentences: Sequence[Sentence]) -> list[TaggedColumns]:
        """UPOS, XPOS and lemma of every word of the sentences (read from their forms)."""
        return self.tag_forms([s.form for s in sentences])

    # ----- model files ----------------------------------------------------------------------

    def _file_parts(self, extra_header: dict | None
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        if not self.trained:
            raise RuntimeError("the tagger is not trained (train it or load a model)")
        lexicon = self.lexicon
        assert lexicon is not None
        arrays = {**string_arrays("lexicon/strings", lexicon.strings.learned()),
                  **string_arrays("lexicon/forms", lexicon.forms),
                  "lexicon/table": lexicon.table, "lexicon/allowed_ptr": lexicon.allowed_ptr,
                  "lexicon/allowed": lexicon.allowed}
        passes = []
        for i, part in enumerate(self.passes):
            clf_header, clf_arrays = part.classifier.to_arrays()
            passes.append({"template_set": part.template_set,
                           "templates": list(template_names(part.template_set)),
                           "classifier": clf_header})
            arrays[f"pass{i}/vocab/keys"] = part.vocab.keys
            arrays[f"pass{i}/vocab/counts"] = part.vocab.counts
            for name, value in clf_arrays.items():
                arrays[f"pass{i}/classifier/{name}"] = value
        morphology = None
        if self.morphology is not None:
            morphology = self.morphology.to_header()
            for name, value in self.morphology.arrays.items():
                arrays[f"morph/{name}"] = value
        extras = self.file_extras() if extra_header is None else extra_header
        config = {k: v for k, v in asdict(self.config).items() if k != "threads"}
        header = {
            "format": MODEL_FORMAT, "format_version": MODEL_VERSION,
            "config": config, "classes": [list(c) for c in self.classes],
            "passes": passes, "morphology": morphology,
            "lemmas": None if self.lemmatizer is None else self.lemmatizer.to_json(),
            "info": self.info, **extras,
        }
        return header, arrays

    @classmethod
    def _from_file_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                         source: str, deferred: dict[str, Callable[[], np.ndarray]]
                         ) -> Tagger:
        if header.get("format_version") != MODEL_VERSION:
            raise ValueError(f"tagger model version {header.get('format_version')!r}, this "
                             f"polyparse reads {MODEL_VERSION}")
        config = {**OLD_MODEL_CONFIG, **header["config"]}
        tagger = cls(TaggerConfig(**config, check_backend=False))
        tagger.classes = [(str(u), str(x)) for u, x in header["classes"]]
        tagger.lexicon = Lexicon(StringInterner(arrays_strings(arrays, "lexicon/strings")),
                                 arrays_strings(arrays, "lexicon/forms"),
                                 arrays["lexicon/table"], arrays["lexicon/allowed_ptr"],
                                 arrays["lexicon/allowed"], tagger.config.word_splits)
        n_classes = len(tagger.classes)
        if tagger.lexicon.allowed.size and not (
                0 <= tagger.lexicon.allowed.min() and tagger.lexicon.allowed.max() < n_classes):
            raise ValueError("the tag dictionary names classes the model does not have")
        for i, part in enumerate(header["passes"]):
            if part.get("templates") != list(template_names(part["template_set"])):
                raise ValueError(f"pass {i} was trained on other {part['template_set']} "
                                 "templates than this polyparse has; train the tagger again")
            vocab = FeatureVocab(arrays[f"pass{i}/vocab/keys"], arrays[f"pass{i}/vocab/counts"])
            clf = classifier_from_arrays(part["classifier"],
                                         arrays_under(arrays, f"pass{i}/classifier/"), source)
            classes = np.asarray(clf.classes_)
            if classes.size and not (0 <= classes.min() and classes.max() < n_classes):
                raise ValueError(f"pass {i} predicts classes the model does not have")
            tagger.passes.append(TaggerPass(part["template_set"], vocab, clf))
        if not tagger.passes:
            raise ValueError("the model has no classifier")
        if header["morphology"] is not None:
            tagger.morphology = Morphology.from_parts(header["morphology"],
                                                      arrays_under(arrays, "morph/"))
            if tagger.morphology.n_groups != n_classes:
                raise ValueError("the morphology classifiers are not those of the tagger's "
                                 "classes")
        lemmas = header["lemmas"]
        scripts: list[str] = []
        if tagger.morphology is not None and tagger.morphology.predicts(LEMMA):
            scripts = next(t.values for t in tagger.morphology.targets if t.kind == LEMMA)
        tagger.lemmatizer = None if lemmas is None else Lemmatizer.from_json(lemmas, scripts)
        tagger.info = dict(header["info"])
        return tagger


def linear_rows(scorer: Any, n_ranks: int, n_dense: int = DENSE_FEATURES
                ) -> tuple[np.ndarray, ...] | None:
    """A linear (degree-1, float32) scorer's weights laid out for the tagging loop
    (TagDecoder.use_linear_rows): the row of each feature rank (its single's row in the
    scorer's condensed index), the rows of the n_dense most frequent features with weights
    dense, the others sparse; None for any other scorer."""
    arrays = getattr(scorer, "arrays", None)
    if (getattr(scorer, "degree", None) != 1 or arrays is None
            or arrays["intercept"].dtype != np.float32):
        return None
    ranks = np.arange(n_ranks, dtype=np.uint64)
    rows = scorer.index.lookup((ranks << np.uint64(32)) | ranks)
    present = np.flatnonzero(rows >= 0)
    dense_ranks, sparse_ranks = present[:n_dense], present[n_dense:]
    n_outputs = arrays["intercept"].size
    if "weights" in arrays:
        weights = arrays["weights"]
        dense = weights[rows[dense_ranks]]
        sparse_rows = rows[sparse_ranks]
        lengths = np.full(sparse_rows.size, n_outputs, dtype=np.int64)
        columns = np.tile(np.arange(n_outputs, dtype=np.int32), sparse_rows.size)
        values = weights[sparse_rows].ravel()
    else:
        row_ptr, all_columns, all_values = arrays["row_ptr"], arrays["columns"], arrays["values"]
        dense = np.zeros((dense_ranks.size, n_outputs), dtype=np.float32)
        picked, lengths = _row_entries(row_ptr, rows[dense_ranks])
        dense[np.repeat(np.arange(dense_ranks.size), lengths), all_columns[picked]] = \
            all_values[picked]
        picked, lengths = _row_entries(row_ptr, rows[sparse_ranks])
        columns, values = all_columns[picked], all_values[picked]
    sparse_ptr = np.zeros(sparse_ranks.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=sparse_ptr[1:])
    row_of_rank = np.full(n_ranks, -1, dtype=np.int32)
    row_of_rank[dense_ranks] = np.arange(dense_ranks.size, dtype=np.int32)
    row_of_rank[sparse_ranks] = dense_ranks.size + np.arange(sparse_ranks.size, dtype=np.int32)
    return row_of_rank, dense, sparse_ptr, columns, values, arrays["intercept"]


def _row_entries(row_ptr: np.ndarray, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The positions of the entries of the given sparse rows, one row after the other, and
    each row's length."""
    starts, lengths = row_ptr[rows], row_ptr[rows + 1] - row_ptr[rows]
    offsets = np.repeat(starts - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
    return (np.arange(int(lengths.sum()), dtype=np.int64) + offsets).astype(np.int64), lengths


def feature_rows(vocab: FeatureVocab, keys: np.ndarray) -> BinaryMatrix:
    """The rows of sorted feature ranks of keys (rows, templates); keys outside the vocabulary
    are left out."""
    ranks = np.sort(vocab.transform(keys), axis=1)
    present = ranks >= 0
    indptr = np.zeros(ranks.shape[0] + 1, dtype=np.int64)
    np.cumsum(present.sum(axis=1), out=indptr[1:])
    return BinaryMatrix(indptr, ranks[present].astype(np.int32), len(vocab))


def _sentences_of(entry: np.ndarray, offsets: np.ndarray, gold: np.ndarray | None,
                  chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The entries and offsets of the chosen sentences, and their gold classes (gold None: the
    positions of their words instead)."""
    words = np.concatenate([np.arange(offsets[k], offsets[k + 1]) for k in chosen])
    lengths = offsets[chosen + 1] - offsets[chosen]
    new_offsets = np.zeros(chosen.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=new_offsets[1:])
    return entry[words], new_offsets, (words if gold is None else gold[words])
