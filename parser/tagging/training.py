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
    return scores_of_tags(gold, tagged_sentences(tagger, gold))


def tagged_sentences(tagger: Tagger, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences with the tagger's UPOS, XPOS, FEATS and lemmas (their trees kept)."""
    return [with_tags(sentence, columns) for sentence, columns in
            zip(sentences, tagger.tag(sentences))]


def scores_of_tags(gold: Sequence[Sentence], system: Sequence[Sentence]) -> dict[str, float]:
    """tag_scores' figures of sentences already tagged (system) against gold."""
    scores = evaluate(gold, system).as_dict()
    return {key: scores[key] for key in ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
                                         "words")}
