"""Learning a segmenter from a UD treebank: train_segmenter(treebank) -> SegmenterModel.

The treebank's text (parser/segmentation/treebank_data.py) is cut into units; each decision of
parser/segmentation/boundary_decoder.pyx becomes a training row with the gold tokens and
sentences on its left (teacher forcing). Each of the three classifiers is the project's
`linear` backend (L2-regularized L2-loss SVM by dual coordinate descent, Hsieh et al. 2008,
classifiers/linear/) over the binary features of its keys (features seen fewer than
min_feature_count times left out), read back as explicit weights w and bias b: the decision
value of a row is b + sum of w over its features, exactly the backend's. The gap classifier is
learned only when some token of the treebank holds whitespace. The multiword splitter learns
from the tokens' words (parser/segmentation/multiword.py).
"""
from __future__ import annotations

import hashlib
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from polyparse.classifiers.settings import check_integer, check_positive, check_seed
from polyparse.parser.segmentation.boundary_decoder import (
    sentence_training_rows,
    token_training_rows,
)
from polyparse.parser.segmentation.boundary_templates import TokenTable
from polyparse.parser.segmentation.characters import character_arrays
from polyparse.parser.segmentation.linear_fit import fit_linear
from polyparse.parser.segmentation.model import SegmenterModel
from polyparse.parser.segmentation.multiword import MultiwordSplitter
from polyparse.parser.segmentation.text_units import KINDS, TextUnits
from polyparse.parser.segmentation.treebank_data import TreebankText, treebank_text
from polyparse.parser.tokenize.treebank_text import Treebank

__all__ = ["gold_units", "train_segmenter"]

# Settings chosen on the dev sets of the treebanks the benchmark reads, the same for every
# language (benchmarks/segmentation_ud.py).
DEFAULT_C = {"inner": 0.5, "gap": 0.5, "sentence": 0.1}
DEFAULT_MIN_FEATURE_COUNT = 1


def gold_units(units: TextUnits, data: TreebankText) -> np.ndarray:
    """Per unit of the treebank's text: 1 when a gold token starts at a character unit, or when
    a gap unit lies between two gold tokens (not inside one)."""
    n = len(units)
    starts = units.start[:n]
    gold = np.zeros(n, dtype=np.uint8)
    if data.starts.size:
        gold[np.searchsorted(starts, data.starts, side="right") - 1] = 1
    gaps = np.flatnonzero(units.kind[:n] != KINDS["char"])
    if gaps.size:
        positions = starts[gaps]
        token = np.searchsorted(data.starts, positions, side="right") - 1
        inside = (token >= 0) & (data.ends[np.maximum(token, 0)] > positions)
        gold[gaps] = ~inside
    return gold


def train_segmenter(train: Treebank, dev: Treebank | None = None, *,
                    C: dict[str, float] | None = None,
                    min_feature_count: int = DEFAULT_MIN_FEATURE_COUNT, seed: int = 1,
                    log: Callable[[str], None] | None = None) -> SegmenterModel:
    """Learn a segmenter from a CoNLL-U treebank (a path, or its sentences read by
    parser/formats/conll.py); dev, when given, is scored (Tokens, Sentences, Words F1 from its
    raw text) and the scores kept in the model's header."""
    say = log or (lambda message: None)
    started = time.perf_counter()
    settings = {**DEFAULT_C, **(C or {})}
    unknown = set(settings) - set(DEFAULT_C)
    if unknown:
        raise ValueError(f"unknown classifiers {sorted(unknown)}, expected inner, gap, sentence")
    settings = {name: check_positive(f"C of {name}", value) for name, value in settings.items()}
    min_feature_count = check_integer("min_feature_count", min_feature_count, 1)
    seed = check_seed(seed)
    data = treebank_text(train)
    if not data.tokens:
        raise ValueError("the treebank has no tokens")
    units = TextUnits(*character_arrays(data.text))
    regions = units.regions()
    spaced = data.has_spaces_in_tokens
    inner_keys, inner_labels, gap_keys, gap_labels, first, last, offsets = token_training_rows(
        units, regions, gold_units(units, data), spaced)
    if first.size != data.starts.size or np.any(units.start[first] != data.starts):
        raise ValueError("the treebank's tokens do not fit its text")
    sentence_keys, sentence_labels = sentence_training_rows(
        units, TokenTable(units, first, last), offsets, data.sentence_ends)
    say(f"{len(data.tokens)} tokens, {int(data.sentence_ends.sum())} sentences, "
        f"{len(data.text)} characters; rows: {len(inner_labels)} inner, {len(gap_labels)} gap, "
        f"{len(sentence_labels)} sentence")
    inner, inner_stats = fit_linear(inner_keys, inner_labels, settings["inner"],
                                    min_feature_count, seed)
    gap = None
    gap_stats: dict[str, Any] = {}
    if spaced:
        gap, gap_stats = fit_linear(gap_keys, gap_labels, settings["gap"], min_feature_count,
                                    seed)
    sentence, sentence_stats = fit_linear(sentence_keys, sentence_labels, settings["sentence"],
                                          min_feature_count, seed)
    splitter = MultiwordSplitter.learn(data.sentences(), seed)
    header = {
        "settings": {"C": settings, "min_feature_count": min_feature_count, "seed": seed},
        "training": {"sentences": int(data.sentence_ends.sum()), "tokens": len(data.tokens),
                     "characters": len(data.text), "sentence_gap": data.sentence_gap,
                     "text_sha256": hashlib.sha256(data.text.encode("utf-8",
                                                                    "surrogatepass")).hexdigest(),
                     "classifiers": {"inner": inner_stats, "gap": gap_stats,
                                     "sentence": sentence_stats},
                     "multiword_table": len(splitter.table),
                     "multiword_rules": len(splitter.rules),
                     "multiword_in_context": (len(splitter.context.analyses)
                                              if splitter.context else 0)},
        # The characters of the training text (whitespace aside), so that raw-text reading can
        # say when a text is mostly of characters the model never saw.
        "text_characters": "".join(sorted({c for c in set(data.text) if not c.isspace()})),
    }
    model = SegmenterModel(inner, gap, sentence, splitter, header)
    say(f"classifiers: inner {inner_stats.get('nonzero_weights', 0)} weights, gap "
        f"{gap_stats.get('nonzero_weights', 0)}, sentence "
        f"{sentence_stats.get('nonzero_weights', 0)}; multiword: {len(splitter.table)} "
        f"table entries, {len(splitter.rules)} rules")
    if dev is not None:
        from polyparse.parser.segmentation.scoring import raw_text_scores

        scores = raw_text_scores(model, dev)
        model.header["dev_scores"] = {name: round(scores[name], 2)
                                      for name in ("Tokens", "Sentences", "Words")}
        say(f"dev: {model.header['dev_scores']}")
    say(f"trained the segmenter in {time.perf_counter() - started:.1f} s")
    return model
