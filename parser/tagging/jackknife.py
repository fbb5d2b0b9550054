"""Jackknifing: each training sentence tagged by a tagger that never saw it.

A parser trained on gold tags meets predicted ones when it parses raw text; trained on tags as
wrong as those it will meet, it learns not to trust them too far. The sentences are cut into K
folds of consecutive sentences, and each fold is tagged by a tagger trained on the other K - 1
(as the CoNLL 2009 shared task made its predicted columns). Consecutive sentences keep a
document's sentences together, so that a fold's tagger has not seen the names and topics of
the documents it tags.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from polyparse.parser.formats.conll import Sentence
    from polyparse.parser.tagging.config import TaggerConfig


def fold_bounds(n: int, folds: int) -> list[int]:
    """Fold k holds sentences bounds[k] to bounds[k + 1] - 1: consecutive, sizes within one."""
    return [k * n // folds for k in range(folds + 1)]


def jackknifed(sentences: Sequence[Sentence], folds: int, config: TaggerConfig,
               log: Callable[[str], None] = lambda message: None,
               keep_feats: bool = True) -> list[Sentence]:
    """The sentences with the tags of taggers (TaggerConfig config) trained without their
    fold (fold_bounds: consecutive sentences); keep_feats: the sentences' FEATS are kept, else
    they are the taggers' (blank when the taggers predict none)."""
    from polyparse.parser.tagging.conll_files import with_tags
    from polyparse.parser.tagging.tagger import Tagger

    out: list[Sentence] = list(sentences)
    bounds = fold_bounds(len(sentences), folds)
    for fold in range(folds):
        held = range(bounds[fold], bounds[fold + 1])
        tagger = Tagger(config)
        tagger.train([*sentences[:held.start], *sentences[held.stop:]])
        tags = tagger.tag([sentences[i] for i in held])
        words = upos = xpos = 0
        for i, columns in zip(held, tags):
            gold = sentences[i]
            words += len(gold)
            upos += sum(a == b for a, b in zip(gold.upos, columns.upos))
            xpos += sum(a == b for a, b in zip(gold.xpos, columns.xpos))
            out[i] = with_tags(gold, columns, keep_feats=keep_feats)
        log(f"fold {fold + 1} of {folds}: {len(held)} sentences, UPOS "
            f"{100.0 * upos / max(words, 1):.2f} %, XPOS {100.0 * xpos / max(words, 1):.2f} %")
    return out
