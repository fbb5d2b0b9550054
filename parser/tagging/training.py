"""Scores of a tagger on tagged sentences (dev files after training, benchmarks)."""
from __future__ import annotations

from collections.abc import Sequence

from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.formats.conll import Sentence
from polyparse.parser.tagging.conll_files import with_tags
from polyparse.parser.tagging.tagger import Tagger


def tag_scores(tagger: Tagger, gold: Sequence[Sentence]) -> dict[str, float]:
    """UPOS, XPOS, UFeats, AllTags and Lemmas (CoNLL 2018 F1, the accuracy on gold words) of the
    tagger on the gold sentences' words, and the words scored."""
    system = [with_tags(sentence, columns) for sentence, columns in zip(gold, tagger.tag(gold))]
    scores = evaluate(gold, system).as_dict()
    return {key: scores[key] for key in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
                                         "words")}
