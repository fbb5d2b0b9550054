"""Tokens, Sentences and Words scores of a tokenizer on a treebank's raw text, as the CoNLL 2018
shared task measured them (the text of conllu_to_text.pl, scored by conll18_ud_eval.py's
definitions in parser/dependency/evaluate.py)."""
from __future__ import annotations

import io
import os

from polyparse.features.input_files import input_name
from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.tokenize.model import TokenizerModel
from polyparse.parser.tokenize.reading import read_raw
from polyparse.parser.tokenize.treebank_text import raw_text

__all__ = ["raw_text_scores"]


def raw_text_scores(tokenizer: TokenizerModel, gold: str | os.PathLike) -> dict[str, float]:
    """F1 (and precision, recall) of Tokens, Sentences and Words on gold's raw text."""
    gold_sentences = list(read_conll(gold, require_deprel=False))
    system = list(read_raw(stream=io.StringIO(raw_text(gold_sentences)), tokenizer=tokenizer))
    scores = evaluate(gold_sentences, system, gold_name=input_name(gold),
                      system_name="<tokenized>")
    result: dict[str, float] = {}
    for name in ("Tokens", "Sentences", "Words"):
        result[name] = getattr(scores, name)
        result[f"{name}_precision"] = scores.precision[name]
        result[f"{name}_recall"] = scores.recall[name]
    return result
