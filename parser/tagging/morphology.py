"""Morphology: the FEATS of every word (and its XPOS, when the tagger's classes are UPOS alone)
by linear classifiers that run after the tagger, chosen by the tag it gave the word.

Each word is one row of the `morph` templates (parser/tagging/tag_templates.pyx: its affixes and
ambiguity classes, its tag and its neighbours' tags, words and endings; `morph+splits`, with
TaggerConfig.word_splits, also its splits into known words). The tagger's class of a
word is its group, and each group has one classifier per target (one-vs-rest linear SVMs,
classifiers/linear/), trained on the group's words alone (Mueller, Schmid & Schuetze 2013's
MarMoT and UDPipe's tagger also read the POS before the features; the split by tag is the
dependency parser's per-POS split). The targets (FEATS_MODES):

- `per-feature`: one target per feature name, whose values are those the feature took plus
  "absent"; a group gets a classifier only for the features its words had in training, so that
  a feature is never given to a tag that never had it, and the predicted values make the FEATS
  string (sorted as UD sorts them);
- `joint`: one target, the whole FEATS string, over the strings that the group's words had;
- `none`: no features.

XPOS is one more target when the tagger predicts UPOS alone (TaggerConfig.xpos), and the lemma's
edit script another (parser/tagging/lemmas.py). A target that took one value in a group's
training words gets it without scores; a word whose label is -1 is not a training row of that
target. Training rows read the gold
tags of the words and their neighbours. The compiled loop is parser/tagging/morph_decoder.pyx.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from polyparse.classifiers.backends import new_classifier
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.tagging.morph_decoder import MorphDecoder
from polyparse.parser.tagging.tag_decoder import training_keys
from polyparse.parser.tagging.tag_templates import SPLITS_SUFFIX, template_names

MISSING = "_"
# The template set of models trained before the word splits (their header does not name it).
TEMPLATE_SET = "morph"
# The template sets a model's morphology may name.
MORPH_SETS = (TEMPLATE_SET, TEMPLATE_SET + SPLITS_SUFFIX)
# Kinds of targets: a feature name (its values, "" for absent), the FEATS string, XPOS, the
# lemma's edit script.
FEATURE, FEATS, XPOS, LEMMA = "feature", "feats", "xpos", "lemma"
KINDS = (FEATURE, FEATS, XPOS, LEMMA)
# The lemma scripts ranked for each word (parser/tagging/lemmas.py chooses among them).
RANKED_SCRIPTS = 10
# Rows of predicted values whose strings are kept (columns()).
MADE_ROWS = 1 << 16
ARRAY_NAMES = ("vocab/keys", "vocab/counts", "group_slots", "group_outputs", "slot_target",
               "slot_value_ptr", "slot_values", "slot_output", "weight_ptr", "weight_outputs",
               "weight_values", "intercept")


class Target(NamedTuple):
    """What one classifier of a group predicts: kind (FEATURE, FEATS or XPOS), name (the
    feature's name, or FEATS / XPOS) and the values it takes (strings, in a fixed order)."""

    kind: str
    name: str
    values: list[str]

    @property
    def empty(self) -> str | None:
        """The value that stands for none: an absent feature, FEATS "_", XPOS "_" (a lemma
        script: None, every script is one)."""
        if self.kind == LEMMA:
            return None
        return "" if self.kind == FEATURE else MISSING


class MorphColumns(NamedTuple):
    """What the morphology classifiers give the words: XPOS and FEATS strings and the best
    lemma edit scripts of the words asked for (their indices, best first, -1 past the last,
    and their decision values), each None when it is not a target."""

    xpos: list[str] | None
    feats: list[str] | None
    scripts: list[tuple[list[int], list[float]]] | None


def feature_pairs(feats: str) -> list[tuple[str, str]]:
    """The (name, value) pairs of a FEATS string ("_": none)."""
    if feats == MISSING:
        return []
    return [(pair.partition("=")[0], pair.partition("=")[2]) for pair in feats.split("|")]


def feats_string(pairs: Sequence[tuple[str, str]]) -> str:
    """The FEATS string of (name, value) pairs, sorted as UD's validator wants them (by the
    lowercased `Name=Value`); "_" for none."""
    if not pairs:
        return MISSING
    return "|".join(sorted((f"{name}={value}" for name, value in pairs), key=str.lower))


def target_labels(feats: Sequence[str], xpos: Sequence[str] | None, mode: str
                  ) -> list[tuple[Target, np.ndarray]]:
    """The targets of training words with these FEATS (and XPOS, when it is a target) and the
    value index of every word for each; values sorted, so that the same words give the same
    targets."""
    found: list[tuple[str, str, list[str]]] = []
    if xpos is not None:
        found.append((XPOS, "XPOS", list(xpos)))
    if mode == "joint":
        found.append((FEATS, "FEATS", list(feats)))
    elif mode == "per-feature":
        pairs = [dict(feature_pairs(f)) for f in feats]
        for name in sorted({name for word in pairs for name in word}):
            found.append((FEATURE, name, [word.get(name, "") for word in pairs]))
    out = []
    for kind, name, labels in found:
        values = sorted(set(labels))
        index = {value: i for i, value in enumerate(values)}
        ids = np.fromiter((index[label] for label in labels), dtype=np.int32, count=len(labels))
        out.append((Target(kind, name, values), ids))
    return out


def linear_entries(clf: Any, n_ranks: int) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    np.ndarray]:
    """The weights of a fitted `linear` classifier as (rank, output, weight) entries, sorted by
    rank then output, and its intercepts."""
    scorer = clf.scorer
    arrays = scorer.arrays
    ranks = np.arange(n_ranks, dtype=np.uint64)
    rows = scorer.index.lookup((ranks << np.uint64(32)) | ranks)
    present = np.flatnonzero(rows >= 0)
    rows = rows[present]
    n_outputs = arrays["intercept"].size
    if "weights" in arrays:
        dense = arrays["weights"][rows]
        at_rank, output = np.nonzero(dense)
        values = dense[at_rank, output]
    else:
        row_ptr = arrays["row_ptr"]
        lengths = row_ptr[rows + 1] - row_ptr[rows]
        picked = (np.repeat(row_ptr[rows] - np.concatenate([[0], np.cumsum(lengths)[:-1]]),
                            lengths) + np.arange(int(lengths.sum())))
        at_rank = np.repeat(np.arange(rows.size), lengths)
        output, values = arrays["columns"][picked], arrays["values"][picked]
        keep = values != 0
        at_rank, output, values = at_rank[keep], output[keep], values[keep]
    order = np.lexsort((output, at_rank))
    assert n_outputs >= 1
    return (present[at_rank[order]].astype(np.int64), output[order].astype(np.int64),
            values[order].astype(np.float32), arrays["intercept"].astype(np.float32))


class Morphology:
    """The targets, the feature vocabulary of the `morph` templates and every group's
    classifiers as MorphDecoder's arrays (ARRAY_NAMES); predict() and the model arrays."""

    def __init__(self, targets: Sequence[Target], arrays: dict[str, np.ndarray],
                 template_set: str = TEMPLATE_SET) -> None:
        self.targets = list(targets)
        self.template_set = template_set
        missing = [name for name in ARRAY_NAMES if name not in arrays]
        if missing:
            raise ModelFileError(f"the morphology model lacks {', '.join(missing)}")
        self.arrays = dict(arrays)
        self._made: dict[bytes, tuple[str, str]] = {}
        self._tag_targets = [t for t, target in enumerate(self.targets) if target.kind != LEMMA]
        self.vocab = FeatureVocab(arrays["vocab/keys"], arrays["vocab/counts"])
        try:
            self.decoder = MorphDecoder(self.vocab.index, template_set, len(self.targets),
                                        *(arrays[name] for name in ARRAY_NAMES[2:]))
        except ValueError as error:
            raise ModelFileError(f"the morphology model is inconsistent: {error}") from None
        if arrays["weight_ptr"].size != len(self.vocab) + 1:
            raise ModelFileError("the morphology weights do not fit its features")
        for target in self.targets:
            if not target.values:
                raise ModelFileError(f"the morphology target {target.name} has no values")
        slot_values, value_ptr = arrays["slot_values"], arrays["slot_value_ptr"]
        sizes = np.asarray([len(t.values) for t in self.targets], dtype=np.int64)
        of_value = np.repeat(arrays["slot_target"], np.diff(value_ptr))
        if slot_values.size and (slot_values.min() < 0
                                 or np.any(slot_values >= sizes[of_value])):
            raise ModelFileError("a morphology slot names values its target does not have")

    @property
    def n_groups(self) -> int:
        return int(self.arrays["group_slots"].size - 1)

    @classmethod
    def learn(cls, table: np.ndarray, entry: np.ndarray, offsets: np.ndarray,
              groups: np.ndarray, n_groups: int, targets: Sequence[tuple[Target, np.ndarray]],
              classifier_params: dict[str, Any], min_feature_count: int = 1,
              min_weight: float = 0.0, threads: int = 1,
              log: Callable[[str], None] = lambda message: None,
              template_set: str = TEMPLATE_SET) -> Morphology:
        """Train the classifiers of every group (the tagger's gold class of every word: groups,
        0 .. n_groups - 1) and target (each with the value index of every word) on the `morph`
        rows of the words (the tagger's lexicon table, entries and sentence offsets); weights
        below min_weight in magnitude are dropped (parser/tagging/compact.py); template_set:
        one of MORPH_SETS."""
        keys = training_keys(table, entry, offsets, np.zeros_like(groups), groups,
                             template_set)
        vocab = FeatureVocab.count(keys, min_feature_count)
        ranks = np.sort(vocab.transform(keys), axis=1)
        present = ranks >= 0
        indptr = np.zeros(ranks.shape[0] + 1, dtype=np.int64)
        np.cumsum(present.sum(axis=1), out=indptr[1:])
        matrix = BinaryMatrix(indptr, ranks[present].astype(np.int32), len(vocab))
        del keys, ranks, present
        order = np.argsort(groups, kind="stable")
        bounds = np.searchsorted(groups[order], np.arange(n_groups + 1))
        jobs = []
        constant: dict[tuple[int, int], int] = {}
        for group in range(n_groups):
            rows = order[bounds[group]:bounds[group + 1]]
            for t, (target, labels) in enumerate(targets):
                chosen = rows[labels[rows] >= 0]
                found = np.unique(labels[chosen])
                if found.size > 1:
                    jobs.append((group, t, chosen, labels[chosen]))
                elif found.size == 1 and target.values[found[0]] != target.empty:
                    constant[(group, t)] = int(found[0])
        log(f"morphology: {len(vocab)} features, {len(jobs)} classifiers over {n_groups} "
            f"tags and {len(targets)} targets")

        def fit(job: tuple) -> Any:
            clf = new_classifier("linear", **classifier_params)
            return clf.fit(matrix.take(job[2]), job[3])

        from polyparse.features.worker_threads import interruptible_pool

        by_size = sorted(range(len(jobs)), key=lambda j: -jobs[j][2].size)
        fitted: list[Any] = [None] * len(jobs)
        with interruptible_pool(max(1, threads)) as pool:
            for j, clf in zip(by_size, pool.map(fit, (jobs[j] for j in by_size))):
                fitted[j] = clf
        models = {(job[0], job[1]): clf for job, clf in zip(jobs, fitted)}
        arrays = _decoder_arrays(n_groups, len(targets), constant, models, len(vocab),
                                 min_weight)
        arrays.update(_used_features(vocab, arrays))
        return cls([target for target, _ in targets], arrays, template_set)

    def predict(self, table: np.ndarray, entry: np.ndarray, offsets: np.ndarray,
                groups: np.ndarray) -> np.ndarray:
        """(words, targets) value indices, -1 for a target's empty value."""
        return self.decoder.predict(table, entry, offsets, groups)

    def columns(self, table: np.ndarray, entry: np.ndarray, offsets: np.ndarray,
                groups: np.ndarray, scripted: np.ndarray | None = None) -> MorphColumns:
        """The XPOS and FEATS of every word and the RANKED_SCRIPTS best lemma scripts of the
        words at the positions scripted (ascending; None: every word) (predict's arguments;
        the strings of a row of values are made once and kept)."""
        lemma = [t.kind for t in self.targets].index(LEMMA) if self.predicts(LEMMA) else -1
        scripts = None
        if lemma >= 0:
            predicted, ranked, scores = self.decoder.predict(
                table, entry, offsets, groups, lemma, RANKED_SCRIPTS, scripted)
            scripts = list(zip(ranked.tolist(), scores.tolist()))
        else:
            predicted = self.decoder.predict(table, entry, offsets, groups)
        made = self._made
        rows = [(MISSING, MISSING)] * predicted.shape[0]
        if self._tag_targets:
            tags = np.ascontiguousarray(predicted[:, self._tag_targets])
            keys = tags.view(np.dtype((np.void, 4 * tags.shape[1]))).ravel().tolist()
            rows = [made.get(key) or self._strings(key) for key in keys]
        return MorphColumns([row[0] for row in rows] if self.predicts(XPOS) else None,
                            [row[1] for row in rows] if self.predicts_feats else None,
                            scripts)

    def _strings(self, key: bytes) -> tuple[str, str]:
        """The XPOS and FEATS strings of one row of values of the targets but the lemma's, as
        the bytes of its int32 values (kept for the next time)."""
        xpos, feats, pairs = MISSING, MISSING, []
        row = np.frombuffer(key, dtype=np.int32).tolist()
        for t, index in zip(self._tag_targets, row):
            target = self.targets[t]
            value = self._value(t, index)
            if target.kind == XPOS:
                xpos = value
            elif target.kind == FEATS:
                feats = value
            elif value:
                pairs.append((target.name, value))
        if pairs:
            feats = feats_string(pairs)
        if len(self._made) < MADE_ROWS:
            self._made[key] = (xpos, feats)
        return xpos, feats

    def _value(self, target: int, index: int) -> str:
        t = self.targets[target]
        return (t.empty or "") if index < 0 else t.values[index]

    @property
    def predicts_feats(self) -> bool:
        return any(t.kind in (FEATS, FEATURE) for t in self.targets)

    def predicts(self, kind: str) -> bool:
        """Whether a target is of this kind (FEATURE, FEATS, XPOS)."""
        return any(t.kind == kind for t in self.targets)

    def to_header(self) -> dict[str, Any]:
        return {"template_set": self.template_set,
                "templates": list(template_names(self.template_set)),
                "targets": [{"kind": t.kind, "name": t.name, "values": t.values}
                            for t in self.targets]}

    @classmethod
    def from_parts(cls, header: dict[str, Any], arrays: dict[str, np.ndarray]) -> Morphology:
        template_set = str(header.get("template_set", TEMPLATE_SET))
        if (template_set not in MORPH_SETS
                or header.get("templates") != list(template_names(template_set))):
            raise ModelFileError("the morphology classifiers were trained on other templates "
                                 "than this polyparse has; train the tagger again")
        targets = [Target(str(t["kind"]), str(t["name"]), [str(v) for v in t["values"]])
                   for t in header["targets"]]
        if any(t.kind not in KINDS for t in targets):
            raise ModelFileError("the morphology model has a target of an unknown kind")
        return cls(targets, arrays, template_set)


def _decoder_arrays(n_groups: int, n_targets: int, constant: dict[tuple[int, int], int],
                    models: dict[tuple[int, int], Any], n_ranks: int, min_weight: float
                    ) -> dict[str, np.ndarray]:
    """MorphDecoder's arrays: the slots of each group in target order, their outputs one
    contiguous range per group, the weights of all classifiers by feature rank (those below
    min_weight in magnitude left out)."""
    group_slots, group_outputs = [0], [0]
    slot_target: list[int] = []
    value_ptr = [0]
    slot_values: list[int] = []
    slot_output: list[int] = []
    intercepts: list[np.ndarray] = []
    entries: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    n_outputs = 0
    for group in range(n_groups):
        for t in range(n_targets):
            slot_output.append(n_outputs)
            if (group, t) in constant:
                slot_values.append(constant[(group, t)])
            elif (group, t) in models:
                clf = models[(group, t)]
                slot_values.extend(int(c) for c in clf.classes_)
                ranks, outputs, values, intercept = linear_entries(clf, n_ranks)
                kept = np.abs(values) >= min_weight
                entries.append((ranks[kept], outputs[kept] + n_outputs, values[kept]))
                intercepts.append(intercept)
                n_outputs += intercept.size
            else:
                slot_output.pop()
                continue
            slot_target.append(t)
            value_ptr.append(len(slot_values))
        group_slots.append(len(slot_target))
        group_outputs.append(n_outputs)
    if entries:
        ranks, outputs, values = (np.concatenate(part) for part in zip(*entries))
    else:
        ranks = outputs = np.zeros(0, dtype=np.int64)
        values = np.zeros(0, dtype=np.float32)
    order = np.lexsort((outputs, ranks))
    weight_ptr = np.zeros(n_ranks + 1, dtype=np.int64)
    np.cumsum(np.bincount(ranks, minlength=n_ranks), out=weight_ptr[1:])
    return {
        "group_slots": np.asarray(group_slots, dtype=np.int64),
        "group_outputs": np.asarray(group_outputs, dtype=np.int64),
        "slot_target": np.asarray(slot_target, dtype=np.int32),
        "slot_value_ptr": np.asarray(value_ptr, dtype=np.int64),
        "slot_values": np.asarray(slot_values, dtype=np.int32),
        "slot_output": np.asarray(slot_output, dtype=np.int64),
        "weight_ptr": weight_ptr,
        "weight_outputs": outputs[order].astype(np.int32),
        "weight_values": values[order].astype(np.float32),
        "intercept": (np.concatenate(intercepts) if intercepts
                      else np.zeros(0, dtype=np.float32)).astype(np.float32),
    }


def _used_features(vocab: FeatureVocab, arrays: dict[str, np.ndarray]
                   ) -> dict[str, np.ndarray]:
    """The vocabulary cut to the features that have weights (ranks kept in order, so still by
    frequency) and weight_ptr over it."""
    weight_ptr = arrays["weight_ptr"]
    used = np.flatnonzero(np.diff(weight_ptr) > 0)
    return {"vocab/keys": vocab.keys[used], "vocab/counts": vocab.counts[used],
            "weight_ptr": np.concatenate([[0], weight_ptr[used + 1]]).astype(np.int64)}
