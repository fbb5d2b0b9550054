"""DependencyModel: what every dependency parser offers its callers, whatever decodes it.

The greedy arc-eager parser with per-POS classifiers (dependency_parser.py) and the beam-search
parser with a structured perceptron (beam_parser.py) both train on gold trees, parse sentences
into (heads, labels), take runtime settings through configure(), tell which tags they read
(tag_coverage), and pickle through their model file's bytes (ParserModelBytes). Callers (the
command line, the Python API, the scale-out workers) use this interface and never ask which
kind they hold; what the two share of encoding and training is here too.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict
from typing import Any, ClassVar

import numpy as np

from polyparse.classifiers.model_bytes import ParserModelBytes
from polyparse.classifiers.settings import SettingNotTaken
from polyparse.features.interning import FIRST_ID, StringInterner
from polyparse.parser.dependency.projectivize import projectivize
from polyparse.parser.formats.conll import Sentence
from polyparse.parser.formats.tag_coverage import TagColumn, TagCoverage, column_read

Tree = tuple[list[int], list[str]]
# A column to encode: its interner, the sentence's strings, whether unseen ones are added.
Column = tuple[StringInterner, Callable[[Sentence], list[str]], bool]



# Settings a model file records only when they are not their default, so that the files
# written before each existed load and save back byte for byte.
RECORDED_WHEN_SET = ("min_feature_count", "sentence_runs")


def file_config(config: Any, leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """The configuration (a dataclass) a model file records: its fields but those left out
    and those of RECORDED_WHEN_SET at their default."""
    recorded = {key: value for key, value in asdict(config).items() if key not in leave_out}
    for name in RECORDED_WHEN_SET:
        if name in recorded and recorded[name] == getattr(type(config), name):
            del recorded[name]
    return recorded


class DependencyModel(ParserModelBytes):
    """The base of the dependency parsers (see the module notes).

    A subclass names its model format (MODEL_FORMAT), the runtime settings configure() takes
    (RUNTIME_SETTINGS) and why it refuses the others (refusal), and defines train, parse,
    _configure and trained."""

    RUNTIME_SETTINGS: ClassVar[tuple[str, ...]] = ()
    PIPELINE_LAYER = "parser"
    config: Any
    info: dict[str, Any]
    tags: StringInterner
    labels: StringInterner

    # ----- what callers use -----------------------------------------------------------------

    @property
    def trained(self) -> bool:
        raise NotImplementedError

    @property
    def finds_sentence_ends(self) -> bool:
        """Whether the model learned from runs of sentences (parser/dependency/
        sentence_runs.py) and cuts raw text with them (a pipeline's dev may have said no), so
        that parse(..., sentence_ends=True) may find sentence ends."""
        return False

    def parse(self, sentences: Iterable[Sentence], sentence_ends: bool = False) -> list[Tree]:
        """Heads and labels for each sentence (deprojectivised). A tree has one root per
        sentence of a UD model; with sentence_ends, a model that finds_sentence_ends gives a
        segment of raw text a root for each sentence it finds there."""
        raise NotImplementedError

    def configure(self, **runtime: Any) -> None:
        """Set how the model parses (greedy: eval_mode, rare_threshold; beam: beam); None means
        the model's default. SettingNotTaken for a setting given that this model cannot use,
        ValueError for a value it cannot take."""
        for name, value in runtime.items():
            if value is not None and name not in self.RUNTIME_SETTINGS:
                raise SettingNotTaken(name, self.refusal(name))
        self._configure(**{name: runtime.get(name) for name in self.RUNTIME_SETTINGS})

    def convert(self, evaluator: str, rare_threshold: Any = None) -> int:
        """Keep the model's kernel classifiers as an exact evaluator (split, pki or pke); how
        many were converted. ValueError when the model has none to convert."""
        raise NotImplementedError

    def refusal(self, setting: str) -> str:
        """Why this model does not take setting (the end of a sentence naming it)."""
        return "does not apply to this model"

    def _configure(self, **runtime: Any) -> None:
        raise NotImplementedError

    def columns_read(self) -> tuple[str, ...]:
        """The tag columns of config that the templates read (a subclass adds its own)."""
        return (self.config.tag_column,)

    def column_tags(self, column: str) -> list[str]:
        """The tags a column ("xpos" with missing ones read as UPOS, or "upos") held in
        training (models written before this was recorded: every tag they know)."""
        recorded = self.info.get("column_tags")
        if recorded is None:
            return list(self.tags.learned())
        return list(recorded[column])

    def tag_coverage(self) -> TagCoverage:
        """A counter of the input's words whose tags, in the columns the model reads, are
        missing or unknown to it (one warning line when they are more than a tenth)."""
        recorded = self.info.get("column_tags")
        columns = []
        for column in dict.fromkeys(column_read(c, recorded) for c in self.columns_read()):
            if column == "none":
                continue
            name = column.upper()
            fallback = " (a missing XPOS is read as the UPOS)" if column == "xpos" else ""
            columns.append(TagColumn(
                name, column, frozenset(self.column_tags(column)),
                f"the model reads {name}, so these words are parsed with little of its "
                f"accuracy{fallback}"))
        return TagCoverage(columns)

    # ----- what training and encoding share -------------------------------------------------

    @staticmethod
    def column_values(sentence: Sentence, column: str) -> list[str]:
        """The tags of a column: "upos", "xpos" (a missing XPOS read as the UPOS) or "none"
        (one tag for every word)."""
        if column == "upos":
            return sentence.upos
        if column == "none":
            return ["-"] * len(sentence)
        return [x if x != "_" else u for x, u in zip(sentence.xpos, sentence.upos)]

    @staticmethod
    def projectivized(sentences: Sequence[Sentence]) -> tuple[list[Tree], int, int]:
        """The gold trees made projective by lifting arcs (Nivre & Nilsson 2005), with the
        number of arcs lifted and of trees that had any."""
        trees = []
        lifted_arcs = lifted_trees = 0
        for sentence in sentences:
            heads, deprels, n_lifted = projectivize(sentence.head, sentence.deprel)
            trees.append((heads, deprels))
            lifted_arcs += n_lifted
            lifted_trees += n_lifted > 0
        return trees, lifted_arcs, lifted_trees

    @staticmethod
    def learn_frequent(interner: StringInterner, sentences: Sequence[Sentence], column: str,
                       least: int) -> None:
        """Add the strings of a sentence column ("form", "lemma", "feats") seen at least
        `least` times, in the order they first occur; rarer ones are read as unknown in
        training too, so that the templates learn weights for unknown strings."""
        counts = Counter(x for s in sentences for x in getattr(s, column))
        for s in sentences:
            for x in getattr(s, column):
                if counts[x] >= least:
                    interner.add(x)

    def recorded_column_tags(self, sentences: Sequence[Sentence]) -> dict[str, list[str]]:
        """The tags each tag column held in training (what tag_coverage compares with)."""
        return {column: sorted({tag for s in sentences for tag in self.column_values(s, column)})
                for column in ("xpos", "upos")}

    @staticmethod
    def encoded_columns(sentences: Sequence[Sentence], columns: Sequence[Column]
                        ) -> tuple[list[np.ndarray], np.ndarray]:
        """Each column's ids over every sentence (1, the root token, before each sentence's
        words) and the offsets where sentences start; a column is (interner, the sentence's
        strings, whether unseen strings are added)."""
        values: list[list[int]] = [[] for _ in columns]
        offsets = [0]
        for sentence in sentences:
            for out, (interner, strings, grow) in zip(values, columns):
                out.append(1)
                out.extend(interner.encode(strings(sentence), grow))
            offsets.append(len(values[0]))
        return ([np.asarray(column, dtype=np.int32) for column in values],
                np.asarray(offsets, dtype=np.int64))

    def tree_ids(self, trees: Sequence[Tree], grow: bool) -> tuple[np.ndarray, np.ndarray]:
        """Heads and label classes of the encoded trees, a -1 before each sentence for its
        root token; a label's class is its index among the learned labels (its interner id
        minus FIRST_ID)."""
        heads: list[int] = []
        labels: list[int] = []
        for tree_heads, deprels in trees:
            heads.append(-1)
            heads.extend(tree_heads)
            labels.append(-1)
            labels.extend(label - FIRST_ID for label in self.labels.encode(deprels, grow))
        return np.asarray(heads, dtype=np.int32), np.asarray(labels, dtype=np.int32)
