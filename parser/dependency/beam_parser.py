"""BeamParser: labelled arc-eager parsing by beam search with a globally trained structured
perceptron (Zhang & Clark 2008; Zhang & Nivre 2011), its weights averaged.

Training (parser/dependency/beam_search.pyx): the gold trees are pseudo-projectivised (Nivre &
Nilsson 2005, as DependencyParser does); each epoch visits the sentences in an order drawn from
the seed, searches each with the current weights and updates them (max-violation by default,
Huang, Fayong & Guo 2012; or early update, Collins & Roark 2004). After each epoch the averaged
weights parse the development sentences, when given; the epoch with the best dev UAS (then LAS)
is kept, and training stops when `patience` epochs in a row have not improved on it. Without
dev sentences, the last epoch is kept. The same seed and data give the same model, byte for
byte.

Features (parser/dependency/zn2011_features.pyx): Zhang & Nivre's rich non-local templates
over words and tags (XPOS by default, a missing XPOS read as the UPOS), with templates over
lemmas, FEATS and UPOS, and (config.morph) over the atomic values of the treebank's most
frequent FEATS features and the words' suffixes. A word, lemma or FEATS string seen fewer
than min_word_count times in training is read as unknown.
"""
from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from polyparse.features.interning import StringInterner
from polyparse.parser.dependency.beam_config import PROGRESS_BLOCK, BeamConfig, beam_width
from polyparse.parser.dependency.choices import STRUCTURED
from polyparse.parser.dependency.dependency_model import DependencyModel, Tree, file_config
from polyparse.parser.dependency.morph_columns import (
    MORPH_SLOTS,
    frequent_feature_names,
    morph_columns,
    morph_header,
    morph_strings,
)
from polyparse.parser.dependency.projectivize import decoded_trees
from polyparse.parser.formats.conll import Sentence

MODEL_FORMAT = "polyparse-dep-beam"
MODEL_VERSION = 1
HEADER_KEYS = ("format", "format_version", "config", "words", "tags", "lemmas", "feats",
               "labels", "info", "morph_names", "morph_values", "suffixes")
@dataclass
class BeamCorpus:
    """Sentences as flat int32 columns; sentence i is tokens offsets[i]..offsets[i+1]-1, the
    first of them the root (value 1); heads and labels (label ids, -1 at the roots) for
    training."""

    word: np.ndarray
    tag: np.ndarray
    coarse: np.ndarray
    lemma: np.ndarray
    feats: np.ndarray
    # The morph columns (None: the model reads none).
    morph: np.ndarray | None
    suffix: np.ndarray | None
    offsets: np.ndarray
    heads: np.ndarray | None = None
    labels: np.ndarray | None = None

    @property
    def columns(self) -> tuple[np.ndarray | None, ...]:
        return self.word, self.tag, self.coarse, self.lemma, self.feats, self.morph, self.suffix


class BeamParser(DependencyModel):
    """The beam-search parser: train(), parse(), save(), load(); pickles through its model
    file's bytes and its beam width."""

    HEADER_KEYS = HEADER_KEYS
    MODEL_FORMAT = MODEL_FORMAT
    RUNTIME_SETTINGS = ("beam",)

    def __init__(self, config: BeamConfig | None = None) -> None:
        self.config = config or BeamConfig()
        self.words = StringInterner()
        self.tags = StringInterner()
        self.lemmas = StringInterner()
        self.feats = StringInterner()
        self.labels = StringInterner()
        # The morph columns (config.morph): the FEATS features read, their values, suffixes.
        self.morph_names: list[str] = []
        self.morph_values = StringInterner()
        self.suffixes = StringInterner()
        self.weights: Any = None
        self.info: dict[str, Any] = {}
        self.header: dict[str, Any] = {}
        self.compressed = False
        # The beam width parse() uses (config.beam unless set_beam changed it).
        self.beam = self.config.beam
        # How long training and each epoch took (not in the model file, which the same seed
        # and data make byte for byte the same).
        self.training_seconds = 0.0
        self.epoch_seconds: list[float] = []

    # ----- encoding -------------------------------------------------------------------------

    def encode(self, sentences: Sequence[Sentence], grow: bool = False,
               trees: Sequence[Tree] | None = None) -> BeamCorpus:
        """The sentences' columns as ids (grow: tags and labels unseen so far are added; words,
        lemmas and FEATS never are: training chose them)."""
        columns, offsets = self.encoded_columns(sentences, (
            (self.words, lambda s: s.form, False),
            (self.tags, lambda s: self.column_values(s, self.config.tag_column), grow),
            (self.tags, lambda s: s.upos, grow),
            (self.lemmas, lambda s: s.lemma, False),
            (self.feats, lambda s: s.feats if len(s.feats) == len(s.form)
             else ["_"] * len(s.form), False)))
        heads, labels = self.tree_ids(trees, grow) if trees is not None else (None, None)
        morph = suffix = None
        if self.config.morph:
            morph, suffix = morph_columns(sentences, True, self.morph_names, self.morph_values,
                                          self.suffixes, grow, len(columns[0]))
        return BeamCorpus(*columns, morph, suffix, offsets, heads, labels)

    def learn_strings(self, sentences: Sequence[Sentence]) -> None:
        """The forms, lemmas and FEATS strings the templates know: those seen at least
        min_word_count times in training."""
        for interner, column in ((self.words, "form"), (self.lemmas, "lemma"),
                                 (self.feats, "feats")):
            self.learn_frequent(interner, sentences, column, self.config.min_word_count)

    # ----- training -------------------------------------------------------------------------

    def train(self, sentences: Iterable[Sentence], dev: Sequence[Sentence] | None = None,
              log: Callable[[str], None] = lambda message: None,
              progress: Callable[[int], object] | None = None,
              score: Callable[[Sequence[Sentence], list[tuple[list[int], list[str]]]],
                              tuple[float, float]] | None = None) -> None:
        """Learn from gold trees; with dev sentences and score(dev, parses) -> (UAS, LAS), keep
        the best epoch. progress(n) is told of every n training sentences searched."""
        from polyparse.classifiers.structured.weight_table import PerceptronWeights
        from polyparse.parser.dependency.beam_search import BeamSearch

        sentences = self.begin_training(sentences)
        cfg = self.config
        started = time.perf_counter()
        trees, lifted_arcs, _ = self.projectivized(sentences)
        self.learn_strings(sentences)
        if cfg.morph:
            self.morph_names = frequent_feature_names(sentences, MORPH_SLOTS)
            log(f"morph templates read {', '.join(self.morph_names) or 'no features'}")
        corpus = self.encode(sentences, grow=True, trees=trees)
        left, right, root_label = self._label_masks(corpus)
        search = BeamSearch(cfg.beam, len(self.labels.learned()), root_label, left, right,
                            cfg.single_root)
        weights = PerceptronWeights(search.n_actions)
        if cfg.min_feature_count > 1:
            # A count cutoff (Ratnaparkhi 1996), counted over the gold sequences' states.
            kept = search.frequent_gold_keys(*corpus.columns, corpus.offsets, corpus.heads,
                                             corpus.labels, cfg.min_feature_count)
            weights.restrict(kept)
            log(f"{len(kept)} features met at least {cfg.min_feature_count} times in the gold "
                "sequences may get weights")
        self.info = {
            "train_sentences": len(sentences), "lifted_arcs": int(lifted_arcs),
            "root_label": root_label, "left_labels": left.tolist(),
            "right_labels": right.tolist(),
            "column_tags": self.recorded_column_tags(sentences),
        }
        rng = np.random.default_rng(cfg.seed)
        self.epoch_seconds = []
        curve: list[dict[str, Any]] = []
        best: tuple[float, float] | None = None
        best_weights = None
        stale = 0
        for epoch in range(1, cfg.epochs + 1):
            epoch_started = time.perf_counter()
            order = rng.permutation(len(sentences))
            updates = 0
            for block in range(0, len(order), PROGRESS_BLOCK):
                chunk = order[block:block + PROGRESS_BLOCK]
                counts = search.train_epoch(weights, *corpus.columns, corpus.offsets,
                                            corpus.heads, corpus.labels, chunk, cfg.update)
                updates += counts["updates"]
                if progress is not None:
                    progress(len(chunk))
            averaged = weights.averaged()
            self.epoch_seconds.append(round(time.perf_counter() - epoch_started, 1))
            point = {"epoch": epoch, "updates": updates, "weights": len(averaged)}
            self.weights = averaged
            if dev is not None and score is not None:
                uas, las = score(dev, self.parse(dev))
                point.update({"dev_UAS": round(uas, 2), "dev_LAS": round(las, 2)})
                if best is None or (uas, las) > best:
                    best, best_weights, stale = (uas, las), averaged, 0
                    self.info["best_epoch"] = epoch
                else:
                    stale += 1
            curve.append(point)
            log(f"epoch {epoch}: {updates} updates, {len(averaged)} weights, "
                f"{self.epoch_seconds[-1]} s"
                + (f", dev UAS {point['dev_UAS']:.2f} LAS {point['dev_LAS']:.2f}"
                   if "dev_UAS" in point else ""))
            if stale >= cfg.patience:
                break
        if best_weights is not None:
            self.weights = best_weights
        else:
            self.info["best_epoch"] = len(curve)
        self.info["epochs"] = curve
        self.training_seconds = round(time.perf_counter() - started, 1)

    def _label_masks(self, corpus: BeamCorpus) -> tuple[np.ndarray, np.ndarray, int]:
        """The labels LEFT-ARC and RIGHT-ARC may take (those of the training arcs in each
        direction; with single_root not the root's, which the end of the search attaches), and
        the root label (the most frequent label of root words)."""
        n_labels = len(self.labels.learned())
        assert corpus.heads is not None and corpus.labels is not None
        position = np.arange(len(corpus.heads)) - np.repeat(corpus.offsets[:-1],
                                                            np.diff(corpus.offsets))
        root = corpus.heads == 0
        arcs = corpus.heads > 0 if self.config.single_root else corpus.heads >= 0
        left = np.bincount(corpus.labels[arcs & (position < corpus.heads)], minlength=n_labels)
        right = np.bincount(corpus.labels[arcs & (position > corpus.heads)], minlength=n_labels)
        root_label = int(np.argmax(np.bincount(corpus.labels[root], minlength=n_labels)))
        return (left > 0).astype(np.int32), (right > 0).astype(np.int32), root_label

    # ----- parsing --------------------------------------------------------------------------

    @property
    def trained(self) -> bool:
        return self.weights is not None

    def refusal(self, setting: str) -> str:
        return f"chooses kernel evaluators; a {STRUCTURED} model has none"

    def convert(self, evaluator: str, rare_threshold: Any = None) -> int:
        raise ValueError(f"a {STRUCTURED} model has no kernel classifiers to convert")

    def _configure(self, beam: int | None = None) -> None:
        self.set_beam(beam)

    def set_beam(self, beam: int | None) -> None:
        """Parse with this beam width (None: the model's own, config.beam)."""
        self.beam = beam_width(self.config.beam if beam is None else beam)

    def _search(self, one_root: bool = False) -> Any:
        """The beam search in the system the model learned in (config.single_root), or, with
        one_root, the one that attaches a single root last."""
        from polyparse.parser.dependency.beam_search import BeamSearch

        n_labels = len(self.labels.learned())
        return BeamSearch(self.beam, n_labels, int(self.info["root_label"]),
                          np.asarray(self.info["left_labels"], dtype=np.int32),
                          np.asarray(self.info["right_labels"], dtype=np.int32),
                          self.config.single_root or one_root)

    @property
    def finds_sentence_ends(self) -> bool:
        # A pipeline's training may have found on dev that the cuts do not pay.
        return self.config.sentence_runs > 1 and self.info.get("sentence_ends", True)

    def parse(self, sentences: Iterable[Sentence], sentence_ends: bool = False) -> list[Tree]:
        """Heads and labels for each sentence (deprojectivised); see DependencyModel.parse."""
        if not self.trained:
            raise RuntimeError("the parser is not trained (train it or load a model)")
        sentences = list(sentences)
        if not sentences:
            return []
        trees = self._parse(sentences, one_root=False)
        if self.config.sentence_runs > 1 and not (sentence_ends and self.finds_sentence_ends):
            # One root a sentence: searched again, attaching the root last, are only the
            # sentences given several (the search of the system the model learned in is the
            # better one: 87.20 LAS on el_gdt test against 85.45 searching all again).
            several = [i for i, (heads, _) in enumerate(trees) if heads.count(0) > 1]
            again = self._parse([sentences[i] for i in several], one_root=True) if several else []
            for i, tree in zip(several, again):
                trees[i] = tree
        return trees

    def _parse(self, sentences: list[Sentence], one_root: bool) -> list[Tree]:
        corpus = self.encode(sentences)
        heads, labels = self._search(one_root).parse(self.weights, *corpus.columns,
                                                     corpus.offsets)
        return decoded_trees(heads, labels, corpus.offsets.tolist(), self.labels.learned())

    # ----- model files ----------------------------------------------------------------------

    def _file_parts(self, extra_header: dict | None
                    ) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
        if not self.trained:
            raise RuntimeError("the parser is not trained (train it or load a model)")
        w = self.weights
        arrays = {"weights/keys": w.keys,
                  "weights/row_lengths": np.diff(w.row_ptr).astype(np.uint16),
                  "weights/classes": w.classes.astype(np.uint16),
                  "weights/values": w.values}
        extras = self.file_extras() if extra_header is None else extra_header
        header = {"format": MODEL_FORMAT, "format_version": MODEL_VERSION,
                  "config": file_config(self.config), "words": self.words.learned(),
                  "tags": self.tags.learned(), "lemmas": self.lemmas.learned(),
                  "feats": self.feats.learned(), "labels": self.labels.learned(),
                  "info": {**self.info, "n_classes": int(w.n_classes)}, **extras}
        if self.config.morph:
            header.update(morph_header(self.morph_names, self.morph_values, self.suffixes))
        return header, arrays

    @classmethod
    def _from_file_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray],
                         source: str, deferred: dict[str, Callable[[], np.ndarray]]
                         ) -> BeamParser:
        from polyparse.classifiers.structured.weight_table import AveragedWeights

        parser = cls(BeamConfig(**{"morph": False, **header["config"]}))
        if parser.config.morph:
            parser.morph_names, parser.morph_values, parser.suffixes = morph_strings(header)
        parser.words = StringInterner(header["words"])
        parser.tags = StringInterner(header["tags"])
        parser.lemmas = StringInterner(header["lemmas"])
        parser.feats = StringInterner(header["feats"])
        parser.labels = StringInterner(header["labels"])
        parser.info = dict(header["info"])
        n_classes = int(parser.info.pop("n_classes"))
        if n_classes != 2 + 2 * len(parser.labels.learned()):
            raise ValueError(f"{n_classes} weight classes for {len(parser.labels.learned())} "
                             "labels")
        lengths = arrays["weights/row_lengths"].astype(np.int64)
        row_ptr = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=row_ptr[1:])
        parser.weights = AveragedWeights(arrays["weights/keys"], row_ptr,
                                         arrays["weights/classes"].astype(np.int32),
                                         arrays["weights/values"], n_classes)
        return parser

    def runtime_settings(self) -> dict[str, Any]:
        """The beam width parse() uses, which the file does not hold when set_beam changed it,
        and whether the file it was loaded from is compressed."""
        return {"beam": self.beam, "compressed": self.compressed}

    def apply_runtime_settings(self, settings: dict[str, Any]) -> None:
        self.set_beam(settings.get("beam"))
        self.compressed = bool(settings.get("compressed", False))

