"""DependencyParser: training, parsing and model files of the arc-eager parser with POS splits.

Training (MaltParser `-d POSTAG -s Input[0] -T N`; Chang et al. 2010, section 5.1): gold trees
are pseudo-projectivised (Nivre & Nilsson 2005), the static oracle yields one row per state,
rows are partitioned by the split tag of the first buffer word, splits with fewer than N rows
are pooled into a fallback split, and each split trains three classifiers: the transition
(SHIFT/REDUCE/LEFT/RIGHT), the LEFT-arc label and the RIGHT-arc label. Splits train in
parallel threads (the solvers release the GIL), or as jobs of an executor (a process pool, a
Dask cluster: parser/scale_out/), each sent the rows of its classifier; the model is the same.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, MutableMapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from polyparse.classifiers.backends import (
    CONVERTED_BACKENDS,
    KERNEL_BACKENDS,
    classifier_from_arrays,
    convert_classifier,
    is_kernel_model,
    new_classifier,
)
from polyparse.classifiers.evaluators.choices import (
    AUTO,
    CONVERSIONS,
    DEFAULT_EVAL_MODE,
    DEFAULT_RARE_THRESHOLD,
    EVAL_MODES,
    check_evaluator,
    default_eval_mode,
    minimum_common_count,
)
from polyparse.classifiers.lazy_table import LazyTable
from polyparse.classifiers.model_file import (
    arrays_under,
    inconsistent,
)
from polyparse.classifiers.settings import config_or_default
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.interning import StringInterner
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.dependency.arc_eager import LEFT_MOVE, RIGHT_MOVE
from polyparse.parser.dependency.choices import STRUCTURED
from polyparse.parser.dependency.config import ParserConfig, classifier_params
from polyparse.parser.dependency.decoder import ArcEagerDecoder, ClassifierSlot
from polyparse.parser.dependency.dependency_model import DependencyModel, Tree, file_config
from polyparse.parser.dependency.feature_templates import template_names
from polyparse.parser.dependency.morph_columns import (
    MORPH_SLOTS,
    frequent_feature_names,
    morph_columns,
    morph_header,
    morph_strings,
)
from polyparse.parser.dependency.projectivize import decoded_trees
from polyparse.parser.formats.conll import Sentence

if TYPE_CHECKING:
    from concurrent.futures import Executor

MODEL_FORMAT = "polyparse-dep"
MODEL_VERSION = 1
SLOT_KINDS = ("transition", "left", "right")
# The header entries of the model itself; a file's other entries (training command, data
# checksum, dev scores) are extras that a loaded parser keeps and writes back.
HEADER_KEYS = ("format", "format_version", "config", "words", "tags", "labels", "splits",
               "classifiers", "info", "morph_names", "morph_values", "suffixes")


@dataclass
class EncodedCorpus:
    """Sentences as flat int arrays; sentence i is tokens offsets[i]..offsets[i+1]-1, 0 = root."""

    word: np.ndarray
    tag: np.ndarray
    coarse: np.ndarray
    split_tag: np.ndarray
    offsets: np.ndarray
    morph: np.ndarray
    suffix: np.ndarray
    heads: np.ndarray | None = None
    labels: np.ndarray | None = None


def fit_classifier(backend: str, params: dict[str, Any], rows: BinaryMatrix,
                   y: np.ndarray) -> Any:
    """One classifier of a parser, trained on its rows: a job a thread, a process pool or a
    Dask worker runs."""
    clf = new_classifier(backend, **params)
    clf.fit(rows, y)
    return clf


def _classifier_of_part(header: dict[str, Any], arrays: dict[str, np.ndarray],
                        deferred: dict[str, Callable[[], np.ndarray]], source: str) -> Any:
    """The classifier of one slot's part of a model file: its arrays and those still to
    inflate; ModelFileError naming source when they do not fit."""
    with inconsistent(source):
        inflated = {name: inflate() for name, inflate in deferred.items()}
        return classifier_from_arrays(header, {**arrays, **inflated}, source)


class DecoderState(NamedTuple):
    """A built decoder, the splits whose classifiers it holds, and every slot built so far."""

    decoder: ArcEagerDecoder
    splits: frozenset[int]
    slots: dict[tuple[int, str], tuple[ClassifierSlot, Any]]


class DependencyParser(DependencyModel):
    """An arc-eager parser with per-POS split classifiers: train(), parse(), save(), load();
    pickles through its model file's bytes and its evaluation mode."""

    RUNTIME_SETTINGS = ("eval_mode", "rare_threshold")

    HEADER_KEYS = HEADER_KEYS
    MODEL_FORMAT = MODEL_FORMAT

    def __init__(self, config: ParserConfig | None = None) -> None:
        self.config = config_or_default(config, ParserConfig)
        self.words = StringInterner()
        self.tags = StringInterner()
        self.labels = StringInterner()
        # The morph template set's columns: the FEATS features it reads (training chose the
        # treebank's most frequent ones), their values and the words' suffixes.
        self.morph_names: list[str] = []
        self.morph_values = StringInterner()
        self.suffixes = StringInterner()
        self.vocab: FeatureVocab | None = None
        self.split_names: list[str] = []
        # Loaded from a file, a LazyTable: each classifier is built when first used.
        self.classifiers: MutableMapping[tuple[int, str], object] = {}
        self.info: dict = {}
        self.eval_mode = DEFAULT_EVAL_MODE
        self.rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD
        self.header: dict[str, Any] = {}
        # Whether the model file it was loaded from stores its arrays compressed.
        self.compressed = False
        # The decoder, the splits whose classifiers it holds, and the slots built so far (with
        # the scorer of each), which a decoder rebuilt for more splits reuses; one tuple, so that
        # threads parsing at once never pair a decoder with another's splits. None: not built.
        self._decoder: DecoderState | None = None

    # ----- encoding -------------------------------------------------------------------------

    def encode(self, sentences: Sequence[Sentence], grow: bool = False,
               trees: Sequence[Tree] | None = None) -> EncodedCorpus:
        """The sentences' columns as ids (grow: tags and labels unseen so far are added; words
        never are: training chose them)."""
        cfg = self.config
        (word, tag, coarse, split), offsets = self.encoded_columns(sentences, (
            (self.words, lambda s: s.form, False),
            (self.tags, lambda s: self.column_values(s, cfg.tag_column), grow),
            (self.tags, lambda s: s.upos, grow),
            (self.tags, lambda s: self.column_values(s, cfg.split_column), grow)))
        heads, labels = self.tree_ids(trees, grow) if trees is not None else (None, None)
        morph, suffix = self.encode_morph(sentences, grow, len(word))
        return EncodedCorpus(word, tag, coarse, split, offsets, morph, suffix, heads, labels)

    def encode_morph(self, sentences: Sequence[Sentence], grow: bool, n_tokens: int
                     ) -> tuple[np.ndarray, np.ndarray]:
        """The morph set's columns (parser/dependency/morph_columns.py; zeros for the other
        sets)."""
        return morph_columns(sentences, self.config.feature_set == "morph", self.morph_names,
                             self.morph_values, self.suffixes, grow, n_tokens)

    # ----- training -------------------------------------------------------------------------

    def train(self, sentences: Iterable[Sentence],
              log: Callable[[str], None] = lambda message: None, progress: bool | str = False,
              executor: Executor | None = None) -> None:
        """Learn from gold trees (Sentence objects, e.g. from parser/formats/conll.py's read_conll
        with require_tree=True); ValueError when there are none. executor: where the
        classifiers train (default: config.threads threads of this process)."""
        sentences = self.begin_training(sentences)
        cfg = self.config
        started = time.perf_counter()
        trees, lifted_arcs, lifted_trees = self.projectivized(sentences)
        log(f"pseudo-projective: lifted {lifted_arcs} arcs in {lifted_trees} of "
            f"{len(sentences)} trees")
        self.learn_frequent(self.words, sentences, "form", cfg.min_word_count)
        if cfg.feature_set == "morph":
            self.morph_names = frequent_feature_names(sentences, MORPH_SLOTS)
            log(f"morph templates read {', '.join(self.morph_names) or 'no features'}")
        corpus = self.encode(sentences, grow=True, trees=trees)
        from polyparse.parser.dependency.oracle_rows import oracle_rows

        rows = oracle_rows(corpus.word, corpus.tag, corpus.coarse, corpus.split_tag,
                           corpus.heads, corpus.labels, corpus.offsets, corpus.morph,
                           corpus.suffix, cfg.feature_set, cfg.single_root)
        attached = corpus.heads > 0
        n_labels = len(self.labels.learned())
        self.info.update({
            "column_tags": self.recorded_column_tags(sentences),
            "train_sentences": len(sentences), "lifted_arcs": int(lifted_arcs),
            "lifted_trees": int(lifted_trees), "oracle_states": len(rows["move"]),
            "root_label_counts": np.bincount(corpus.labels[corpus.heads == 0],
                                             minlength=n_labels).tolist(),
            "other_label_counts": np.bincount(corpus.labels[attached],
                                              minlength=n_labels).tolist(),
        })
        self._fit_rows(rows, log, progress, executor)
        log(f"trained {len(self.classifiers)} classifiers in {len(self.split_names)} splits "
            f"in {time.perf_counter() - started:.1f} s")

    def _fit_rows(self, rows: dict[str, np.ndarray], log: Callable[[str], None],
                  progress: bool | str, executor: Executor | None = None) -> None:
        """Count the features of the rows, choose the splits and train every classifier, in
        threads or as the executor's jobs."""
        cfg = self.config
        self.vocab = FeatureVocab.count(rows["keys"], cfg.min_feature_count)
        ranks = np.sort(self.vocab.transform(rows["keys"]), axis=1)
        n_rows, width = ranks.shape
        if cfg.min_feature_count > 1:
            # The dropped features (-1, sorted first) are left out of each row.
            kept = ranks >= 0
            indptr = np.zeros(n_rows + 1, dtype=np.int64)
            np.cumsum(kept.sum(axis=1), out=indptr[1:])
            matrix = BinaryMatrix(indptr, ranks[kept], len(self.vocab))
        else:
            matrix = BinaryMatrix(np.arange(0, (n_rows + 1) * width, width, dtype=np.int64),
                                  ranks.ravel(), len(self.vocab))
        log(f"{n_rows} training states, {len(self.vocab)} features "
            f"({len(template_names(cfg.feature_set))} templates)")
        split_of_row = self._choose_splits(rows["split_tag"])
        jobs = []
        for split in range(len(self.split_names)):
            in_split = np.flatnonzero(split_of_row == split)
            moves = rows["move"][in_split]
            jobs.append((split, "transition", in_split, moves.astype(np.int32)))
            for kind, move in (("left", LEFT_MOVE), ("right", RIGHT_MOVE)):
                chosen = in_split[(moves == move) & (rows["label"][in_split] >= 0)]
                jobs.append((split, kind, chosen, rows["label"][chosen]))
        jobs.sort(key=lambda job: -len(job[2]))
        params = classifier_params(cfg)

        def fit(job):
            split, kind, chosen, y = job
            if len(chosen) == 0:
                return split, kind, None
            return split, kind, fit_classifier(cfg.classifier, params, matrix.take(chosen), y)

        from polyparse.features.progress import progress_bar, progress_label
        from polyparse.features.worker_threads import interruptible_pool

        bar = progress_bar(total=len(jobs), unit=" classifiers", desc=progress_label(progress),
                           disable=None if progress else True)
        self.classifiers = {}
        if executor is None:
            with interruptible_pool(max(1, cfg.threads)) as pool:
                for split, kind, clf in pool.map(fit, jobs):
                    self.classifiers[(split, kind)] = clf
                    bar.update()
        else:
            submitted = [(split, kind, executor.submit(fit_classifier, cfg.classifier, params,
                                                       matrix.take(chosen), y) if len(chosen)
                          else None) for split, kind, chosen, y in jobs]
            for split, kind, future in submitted:
                self.classifiers[(split, kind)] = None if future is None else future.result()
                bar.update()
        bar.close()
        self._decoder = None

    def columns_read(self) -> tuple[str, ...]:
        return (self.config.tag_column, self.config.split_column)

    def _choose_splits(self, split_tag: np.ndarray) -> np.ndarray:
        """Own split for each split tag with >= threshold rows; the rest pooled into the last."""
        counts = np.bincount(split_tag, minlength=len(self.tags))
        big = [t for t in np.argsort(-counts, kind="stable")
               if counts[t] >= self.config.split_threshold]
        self.split_names = [self.tags.strings[t] for t in big]
        split_of_tag = np.full(len(self.tags), len(big), dtype=np.int32)
        split_of_tag[big] = np.arange(len(big), dtype=np.int32)
        if (split_of_tag[split_tag] == len(big)).any() or not big:
            self.split_names.append("<other>")
        else:
            split_of_tag[split_of_tag == len(big)] = 0
        return split_of_tag[split_tag]

    def split_of_tag(self) -> tuple[np.ndarray, int]:
        index = {name: i for i, name in enumerate(self.split_names)}
        fallback = index.get("<other>", 0)
        table = np.full(len(self.tags), fallback, dtype=np.int32)
        for name, i in index.items():
            if name != "<other>":
                table[self.tags.ids[name]] = i
        return table, fallback

    # ----- parsing --------------------------------------------------------------------------

    def refusal(self, setting: str) -> str:
        return f"applies to {STRUCTURED} models, not to this {self.config.classifier} model"

    def _configure(self, eval_mode: str | None = None,
                   rare_threshold: int | float | str | None = None) -> None:
        self.choose_evaluation(eval_mode, rare_threshold)

    def set_evaluation(self, eval_mode: str,
                       rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD) -> None:
        """How kernel-svm classifiers are evaluated when parsing (classifiers.evaluators.modes);
        every mode gives the same decision values. Other backends ignore it."""
        if eval_mode not in EVAL_MODES:
            raise ValueError(f"unknown evaluation mode {eval_mode!r} "
                             f"(available: {', '.join(EVAL_MODES)})")
        self.eval_mode = eval_mode
        self.rare_threshold = rare_threshold
        self._decoder = None

    def choose_evaluation(self, eval_mode: str | None = None,
                          rare_threshold: int | float | str | None = None) -> None:
        """set_evaluation with the model's defaults filled in: a converted model is evaluated
        by its own evaluator (a pki model can build any other from its index), any other by
        DEFAULT_EVAL_MODE where it can expand the degree, else pki. ValueError when the model
        cannot give eval_mode, or rare_threshold is given to another mode than split."""
        if eval_mode is not None and eval_mode not in EVAL_MODES:
            raise ValueError(f"unknown evaluation mode {eval_mode!r} "
                             f"(available: {', '.join(EVAL_MODES)})")
        if rare_threshold is not None and rare_threshold != AUTO:
            minimum_common_count(rare_threshold, 1)
        converted = self.info.get("converted")
        own = converted["evaluator"] if converted else None
        degree = self.config.classifier_params.get("degree", 2)
        eval_mode = eval_mode or own or default_eval_mode(degree)
        if own is not None and eval_mode != own and own != "pki":
            raise ValueError(f"it holds classifiers converted to {own}, which keep no support "
                             f"vectors to build {eval_mode} from (a pki model does)")
        if rare_threshold is not None and eval_mode != "split":
            raise ValueError(f"the rare threshold applies to the split evaluation, not "
                             f"{eval_mode}")
        if self.config.classifier in KERNEL_BACKENDS:
            check_evaluator(eval_mode, degree)
        self.set_evaluation(eval_mode, DEFAULT_RARE_THRESHOLD if rare_threshold is None
                            else rare_threshold)

    def convert(self, evaluator: str,
                rare_threshold: int | float | str = DEFAULT_RARE_THRESHOLD) -> int:
        """Keep every kernel classifier (kernel-svm, pa-slicing, or one kept as its pki index)
        as its evaluator (split, pki or pke), so that a saved model loads without building
        evaluators; returns how many were converted. ValueError when the model is converted
        already (to other than pki, which keeps its support vectors), has no kernel
        classifiers, or the evaluator cannot expand the model's degree."""
        done = (self.info.get("converted") or {}).get("evaluator")
        if done not in (None, "pki"):
            raise ValueError(f"it is already converted ({done}), without its support vectors; "
                             "convert the kernel or pki model it came from")
        slots = [slot for slot, clf in self.classifiers.items()
                 if clf is not None and len(clf.classes_) > 1
                 and (is_kernel_model(clf) or clf.backend == CONVERSIONS["pki"])]
        if not slots:
            raise ValueError(f"it has no kernel classifiers (its backend is "
                             f"{self.config.classifier}); nothing to convert")
        for slot in slots:
            self.classifiers[slot] = convert_classifier(self.classifiers[slot], evaluator,
                                                        rare_threshold)
        converted = len(slots)
        self.info["converted"] = {"evaluator": evaluator, "rare_threshold": rare_threshold}
        self._decoder = None
        self.file_data = None
        return converted

    def _slot(self, clf) -> tuple[ClassifierSlot, Any]:
        """The classifier's slot and its scorer; kernel models (kernel-svm one-vs-one,
        pa-slicing one-vs-rest) are scored by the evaluator of the current evaluation mode,
        converted ones by their own."""
        if clf.backend in CONVERTED_BACKENDS:
            scorer = clf.scorer
            if self.eval_mode != clf.evaluator:
                from polyparse.classifiers.evaluators.modes import build_evaluator

                scorer = build_evaluator(clf.kernel_expansion(), self.eval_mode,
                                         self.rare_threshold)
            return ClassifierSlot(scorer, clf.classes_,
                                  one_vs_one=clf.decision == "one-vs-one"), scorer
        if is_kernel_model(clf):
            from polyparse.classifiers.evaluators.modes import build_evaluator

            scorer = build_evaluator(clf.expansion_, self.eval_mode, self.rare_threshold)
            return ClassifierSlot(scorer, clf.classes_,
                                  one_vs_one=clf.backend == "kernel-svm"), scorer
        return ClassifierSlot(clf.scorer, clf.classes_), clf.scorer

    def scorers(self) -> list[Any]:
        """The scorers of every classifier the decoder uses (kernel models: by eval mode)."""
        self.decoder()
        assert self._decoder is not None
        return [scorer for _, scorer in self._decoder.slots.values() if scorer is not None]

    def evaluator_bytes(self) -> int:
        """Memory of the compiled scorers the decoder uses (kernel models: by eval mode)."""
        return sum(int(scorer.memory_bytes()) if hasattr(scorer, "memory_bytes")
                   else sum(int(a.nbytes) for a in getattr(scorer, "arrays", {}).values())
                   for scorer in self.scorers())

    @property
    def trained(self) -> bool:
        return self.vocab is not None and "root_label_counts" in self.info

    def decoder(self, splits: Iterable[int] | None = None) -> ArcEagerDecoder:
        """The decoder, holding the classifiers of `splits` (default: every split) and of the
        splits it held before; the classifiers of other splits are not built."""
        if not self.trained:
            raise RuntimeError("the parser is not trained (train it or load a model)")
        wanted = frozenset(range(len(self.split_names)) if splits is None else splits)
        state = self._decoder
        if state is not None and wanted <= state.splits:
            return state.decoder
        slots = {} if state is None else state.slots
        held = wanted | (frozenset() if state is None else state.splits)
        decoder = self._build_decoder(held, slots)
        self._decoder = DecoderState(decoder, held, slots)
        return decoder

    def splits_used(self, split_tag: np.ndarray) -> set[int]:
        """The splits whose classifiers decoding may ask for, given the split tags of the
        tokens (the decoder takes the split of the first buffer word's tag; unknown tags are in
        the fallback split)."""
        table, fallback = self.split_of_tag()
        known = (split_tag >= 0) & (split_tag < len(table))
        counts = np.bincount(table[split_tag[known]], minlength=len(self.split_names))
        used = set(np.flatnonzero(counts).tolist())
        if not known.all():
            used.add(fallback)
        return used

    def _build_decoder(self, splits: frozenset[int],
                       built: dict[tuple[int, str], tuple[ClassifierSlot, Any]]
                       ) -> ArcEagerDecoder:
        """A decoder with the slots of `splits` built, or taken from `built` (where new ones
        are added); the others are never reached by input whose split tags splits_used() gave
        them."""
        root_counts = np.asarray(self.info["root_label_counts"], dtype=np.int64)
        other_counts = np.asarray(self.info["other_label_counts"], dtype=np.int64)
        slots = {kind: [] for kind in SLOT_KINDS}
        for split in range(len(self.split_names)):
            for kind in SLOT_KINDS:
                default = int(np.argmax(other_counts)) if kind != "transition" else 0
                if split not in splits:
                    slots[kind].append(ClassifierSlot(None, [default]))
                    continue
                if (split, kind) not in built:
                    clf = self.classifiers.get((split, kind))
                    if clf is None:
                        built[split, kind] = ClassifierSlot(None, [default]), None
                    elif len(clf.classes_) == 1:
                        built[split, kind] = ClassifierSlot(None, clf.classes_), None
                    else:
                        built[split, kind] = self._slot(clf)
                slots[kind].append(built[split, kind][0])
        table, fallback = self.split_of_tag()
        return ArcEagerDecoder(
            self.vocab.index, self.config.feature_set, self.config.single_root, table,
            fallback, slots["transition"], slots["left"], slots["right"],
            (root_counts > 0).astype(np.intc), (other_counts > 0).astype(np.intc),
            int(np.argmax(root_counts)), int(np.argmax(other_counts)))

    def parse(self, sentences: Iterable[Sentence], sentence_ends: bool = False) -> list[Tree]:
        """Heads and labels for each sentence (deprojectivised; this parser never learns from
        runs of sentences, so sentence_ends changes nothing)."""
        sentences = list(sentences)
        corpus = self.encode(sentences)
        if not sentences:
            return []
        decoder = self.decoder(self.splits_used(corpus.split_tag))
        heads, labels = decoder.parse(corpus.word, corpus.tag, corpus.coarse, corpus.split_tag,
                                      corpus.offsets, corpus.morph, corpus.suffix)
        return decoded_trees(heads, labels, corpus.offsets.tolist(), self.labels.learned())

    # ----- model files ----------------------------------------------------------------------

    def _file_parts(self, extra_header: dict | None
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        if self.vocab is None:
            raise RuntimeError("the parser is not trained (train it or load a model)")
        arrays = {"vocab/keys": self.vocab.keys, "vocab/counts": self.vocab.counts}
        slots = {}
        for (split, kind), clf in sorted(self.classifiers.items()):
            if clf is None:
                continue
            header, clf_arrays = clf.to_arrays()
            name = f"split{split}/{kind}"
            slots[name] = header
            for key, value in clf_arrays.items():
                arrays[f"{name}/{key}"] = value
        extras = self.file_extras() if extra_header is None else extra_header
        header = {
            "format": MODEL_FORMAT, "format_version": MODEL_VERSION,
            "config": file_config(self.config, leave_out=("threads",)),
            "words": self.words.learned(), "tags": self.tags.learned(),
            "labels": self.labels.learned(), "splits": self.split_names,
            "classifiers": slots, "info": self.info, **extras,
        }
        if self.config.feature_set == "morph":
            header.update(morph_header(self.morph_names, self.morph_values, self.suffixes))
        return header, arrays

    @staticmethod
    def deferred_array(name: str) -> bool:
        """Every classifier's arrays: a compressed model inflates those of the splits a parse
        meets, when it meets them."""
        return name.startswith("split")

    @classmethod
    def _from_file_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                         source: str, deferred: dict[str, Callable[[], np.ndarray]]
                         ) -> DependencyParser:
        parser = cls(ParserConfig(**header["config"], check_backend=False))
        parser.words = StringInterner(header["words"])
        parser.tags = StringInterner(header["tags"])
        parser.labels = StringInterner(header["labels"])
        if parser.config.feature_set == "morph":
            parser.morph_names, parser.morph_values, parser.suffixes = morph_strings(header)
        parser.vocab = FeatureVocab(arrays["vocab/keys"], arrays["vocab/counts"])
        parser.split_names = list(header["splits"])
        parser.info = dict(header["info"])
        parser.classifiers = LazyTable()
        for name, clf_header in header["classifiers"].items():
            split_name, kind = name.split("/")
            parser.classifiers.add_pending(
                (int(split_name[5:]), kind),
                partial(_classifier_of_part, clf_header, arrays_under(arrays, name + "/"),
                        arrays_under(deferred, name + "/"), source))
        return parser

    def runtime_settings(self) -> dict[str, Any]:
        """The evaluation mode and rare threshold (set_evaluation), which the file does not
        hold, and whether the file it was loaded from is compressed (a pickle is not)."""
        return {"eval_mode": self.eval_mode, "rare_threshold": self.rare_threshold,
                "compressed": self.compressed}

    def apply_runtime_settings(self, settings: dict[str, Any]) -> None:
        self.set_evaluation(settings["eval_mode"], settings["rare_threshold"])
        self.compressed = bool(settings.get("compressed", False))
