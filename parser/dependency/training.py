"""Training a dependency parser from gold trees and scoring it on development trees."""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import TYPE_CHECKING

from parser.dependency.config import ParserConfig
from parser.dependency.dependency_parser import DependencyParser
from parser.dependency.evaluate import Scores, evaluate
from parser.formats.conll import Sentence

if TYPE_CHECKING:
    from concurrent.futures import Executor


def train_parser(train: Iterable[Sentence], config: ParserConfig,
                 dev: Iterable[Sentence] | None = None,
                 log: Callable[[str], None] = lambda message: None,
                 progress: bool = False,
                 warn: Callable[[str], None] = lambda message: None,
                 executor: Executor | None = None
                 ) -> tuple[DependencyParser, Scores | None]:
    """A parser trained on gold trees, and its scores on dev (None without dev); warn is told,
    in one line, of dev words whose labels training never saw; executor: where the classifiers
    train (default: threads; DependencyParser.train).

    config.single_root is set from the data: UD trees (one root each) are parsed with the root
    attached last; treebanks with several roots in some sentence (CoNLL-X) are not.
    """
    train = list(train)
    if not train:
        raise ValueError("no training sentences")
    if dev is not None:
        dev = list(dev)
        message = unseen_labels_message(train, dev)
        if message:
            warn(message)
    config = replace(config, single_root=all(s.head.count(0) == 1 for s in train))
    parser = DependencyParser(config)
    log(f"training on {len(train)} sentences")
    parser.train(train, log=log, progress=progress, executor=executor)
    if dev is None:
        return parser, None
    started = time.perf_counter()
    parsed = parser.parse(dev)
    seconds = time.perf_counter() - started
    scores = evaluate(dev, [with_tree(s, h, d) for s, (h, d) in zip(dev, parsed)])
    log(f"dev: UAS {scores.UAS:.2f} LAS {scores.LAS:.2f} "
        f"({len(dev) / max(seconds, 1e-9):.0f} sentences/s)")
    return parser, scores


def unseen_labels_message(train: list[Sentence], dev: list[Sentence]) -> str | None:
    """One line on the dev words whose labels no training word has (their LAS is lost whatever
    the parser does), or None when there are none."""
    seen = {label for sentence in train for label in sentence.deprel}
    unseen = Counter(label for sentence in dev for label in sentence.deprel
                     if label not in seen)
    if not unseen:
        return None
    words = sum(unseen.values())
    total = sum(len(sentence.deprel) for sentence in dev)
    shown = ", ".join(f"{label} ({count})" for label, count in unseen.most_common(5))
    more = f" and {len(unseen) - 5} more" if len(unseen) > 5 else ""
    return (f"{words} of the dev file's {total} words have labels the training file never has: "
            f"{shown}{more}; the parser cannot give them")


def with_tree(sentence: Sentence, heads: list[int], deprels: list[str]) -> Sentence:
    """A copy of the sentence whose words carry the given heads and labels."""
    return replace(sentence, head=list(heads), deprel=list(deprels))
