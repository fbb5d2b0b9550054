"""Tokens, Sentences and Words scores of a segmenter on a treebank's raw text, as the CoNLL 2018
shared task measured them: the text conllu_to_text.pl makes of the gold file
(parser/tokenize/treebank_text.py), segmented, scored by conll18_ud_eval.py's definitions
(parser/dependency/evaluate.py)."""
from __future__ import annotations

import os
import unicodedata
from collections.abc import Iterable

from polyparse.features.input_files import input_name
from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.formats.conll import Sentence, read_conll
from polyparse.parser.segmentation.model import SegmenterModel
from polyparse.parser.segmentation.sentences import SegmentedSentence
from polyparse.parser.tokenize.conllu_blocks import sentence_of
from polyparse.parser.tokenize.treebank_text import raw_text

__all__ = ["conllu_sentences", "raw_text_scores", "segmentation_scores"]

METRICS = ("Tokens", "Sentences", "Words")


def conllu_sentences(sentences: Iterable[SegmentedSentence]) -> list[Sentence]:
    """Segmented sentences as CoNLL-U Sentence objects (words untagged, without heads)."""
    return [sentence_of(sentence.tokenized(), str(number), new_document=number == 1)
            for number, sentence in enumerate(sentences, 1)]


def segmentation_scores(gold: list[Sentence], system: list[SegmentedSentence],
                        gold_name: str = "<gold>") -> dict[str, float]:
    """F1 (and precision, recall) of Tokens, Sentences and Words of system against gold."""
    scores = evaluate(gold, conllu_sentences(system), gold_name=gold_name,
                      system_name="<segmented>")
    result: dict[str, float] = {}
    for name in METRICS:
        result[name] = getattr(scores, name)
        result[f"{name}_precision"] = scores.precision[name]
        result[f"{name}_recall"] = scores.recall[name]
    return result


def raw_text_scores(model: SegmenterModel, gold: str | os.PathLike | Iterable[Sentence],
                    text: str | None = None) -> dict[str, float]:
    """segmentation_scores of the model on gold's raw text (text: that raw text as given, e.g.
    the shared task's `.txt` file, read in Unicode normalization form C as
    parser/formats/conll.py reads the gold file; default: made from gold)."""
    if isinstance(gold, (str, os.PathLike)):
        name = input_name(gold)
        gold_sentences = list(read_conll(gold, require_deprel=False))
    else:
        name = "<gold>"
        gold_sentences = list(gold)
    if text is None:
        text = raw_text(gold_sentences)
    elif not unicodedata.is_normalized("NFC", text):
        text = unicodedata.normalize("NFC", text)
    return segmentation_scores(gold_sentences, model.segment(text), name)
