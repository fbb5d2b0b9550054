"""BeamConfig: what a beam-search parser is trained with, checked when it is made (plain
Python: the command line reads the choices and defaults from here without loading NumPy)."""
from __future__ import annotations

from dataclasses import dataclass

from polyparse.classifiers.settings import check_choice, check_integer, check_seed
from polyparse.parser.dependency.choices import MAX_BEAM, TAG_COLUMNS, UPDATES

# Sentences searched between two progress reports.
PROGRESS_BLOCK = 1000


def beam_width(beam: int) -> int:
    """beam when it is a width a model can search with (1 to MAX_BEAM), else ValueError."""
    beam = check_integer("beam", beam)
    if not 1 <= beam <= MAX_BEAM:
        raise ValueError(f"the beam width must be 1 to {MAX_BEAM}, not {beam}")
    return beam


@dataclass
class BeamConfig:
    """beam: hypotheses kept at each step (1 to MAX_BEAM); update: max-violation or early; epochs:
    the most passes over the training sentences; patience: with dev sentences, epochs without
    a better dev UAS before training stops; tag_column: the tags the templates read;
    single_root: UD trees (one root, attached last); min_word_count: rarer forms, lemmas and
    FEATS strings are read as unknown; seed: the order of the sentences in each epoch; morph:
    the templates also read the atomic values of the treebank's most frequent FEATS features
    and the words' suffixes (parser/dependency/morph_columns.py; model files written before
    it existed read as False); min_feature_count: features met fewer times in the states of the
    training sentences' gold sequences get no weight (1: every feature may); sentence_runs:
    the parser learns from runs of 1 to sentence_runs consecutive training sentences, each run
    one tree with a root per sentence, so that it finds the sentence ends inside a segment of
    raw text (parser/dependency/sentence_runs.py; 1: single sentences; UD trees only)."""

    beam: int = 8
    update: str = "max-violation"
    epochs: int = 15
    patience: int = 3
    tag_column: str = "xpos"
    single_root: bool = True
    min_word_count: int = 1
    seed: int = 0
    morph: bool = True
    min_feature_count: int = 1
    sentence_runs: int = 1

    def __post_init__(self) -> None:
        self.beam = beam_width(self.beam)
        check_choice("update", self.update, UPDATES)
        self.epochs = check_integer("epochs", self.epochs, 1)
        self.patience = check_integer("patience", self.patience, 1)
        check_choice("tag column", self.tag_column, TAG_COLUMNS)
        self.min_word_count = check_integer("min_word_count", self.min_word_count, 1)
        self.seed = check_seed(self.seed)
        self.single_root = bool(self.single_root)
        self.morph = bool(self.morph)
        self.min_feature_count = check_integer("min_feature_count", self.min_feature_count, 1)
        self.sentence_runs = check_integer("sentence_runs", self.sentence_runs, 1)
