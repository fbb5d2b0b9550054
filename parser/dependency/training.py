"""Training a dependency parser from gold trees and scoring it on development trees."""
from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.beam_parser import BeamParser
from polyparse.parser.dependency.config import ParserConfig
from polyparse.parser.dependency.dependency_model import DependencyModel
from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.dependency.evaluate import Scores, evaluate
from polyparse.parser.formats.conll import Sentence

if TYPE_CHECKING:
    from concurrent.futures import Executor


def train_dependency_model(train: Iterable[Sentence], config: ParserConfig | BeamConfig,
                           dev: Iterable[Sentence] | None = None,
                           log: Callable[[str], None] = lambda message: None,
                           progress: bool | str = False,
                           warn: Callable[[str], None] = lambda message: None,
                           executor: Executor | None = None
                           ) -> tuple[DependencyModel, Scores | None]:
    """The parser a configuration asks for (parser/dependency/training_config.py), trained on
    gold trees, and its scores on dev: a BeamConfig trains the beam-search parser, a
    ParserConfig the greedy one (on the executor's workers when given)."""
    if isinstance(config, BeamConfig):
        return train_beam_parser(train, config, dev, log, progress, warn)
    return train_parser(train, config, dev, log, progress, warn, executor)


def train_parser(train: Iterable[Sentence], config: ParserConfig,
                 dev: Iterable[Sentence] | None = None,
                 log: Callable[[str], None] = lambda message: None,
                 progress: bool | str = False,
                 warn: Callable[[str], None] = lambda message: None,
                 executor: Executor | None = None
                 ) -> tuple[DependencyParser, Scores | None]:
    """A parser trained on gold trees, and its scores on dev (None without dev); warn is told,
    in one line, of dev words whose labels training never saw; executor: where the classifiers
    train (default: threads; DependencyParser.train).

    config.single_root is set from the data: UD trees (one root each) are parsed with the root
    attached last; treebanks with several roots in some sentence (CoNLL-X) are not.
    """
    train, dev = _checked(train, dev, warn)
    config = replace(config, single_root=all(s.head.count(0) == 1 for s in train))
    parser = DependencyParser(config)
    log(f"training on {len(train)} sentences")
    parser.train(train, log=log, progress=progress, executor=executor)
    return parser, dev_scores(parser, dev, log)


def train_beam_parser(train: Iterable[Sentence], config: BeamConfig,
                      dev: Iterable[Sentence] | None = None,
                      log: Callable[[str], None] = lambda message: None,
                      progress: bool | str = False,
                      warn: Callable[[str], None] = lambda message: None
                      ) -> tuple[BeamParser, Scores | None]:
    """A beam-search parser trained on gold trees (the epoch with the best dev UAS kept), and
    its scores on dev; as train_parser, with a progress bar over the sentences of each
    epoch."""
    from polyparse.features.progress import progress_bar, progress_label

    train, dev = _checked(train, dev, warn)
    single_root = all(s.head.count(0) == 1 for s in train)
    # Runs of sentences (parser/dependency/sentence_runs.py) for UD trees only.
    runs = config.sentence_runs if single_root else 1
    if runs > 1:
        from polyparse.parser.dependency.sentence_runs import sentence_runs

        sentences = len(train)
        train = sentence_runs(train, runs, config.seed)
        log(f"{sentences} sentences, alone and in runs of 1 to {runs}: {len(train)} trees")
    config = replace(config, single_root=single_root and runs == 1, sentence_runs=runs)
    parser = BeamParser(config)
    units = "trees" if runs > 1 else "sentences"
    log(f"training on {len(train)} {units}, beam {config.beam}, {config.update} update")
    bar = progress_bar(total=config.epochs * len(train), unit=" sentences",
                       desc=progress_label(progress), disable=None if progress else True)
    try:
        parser.train(train, dev, log=log, progress=bar.update, score=attachment)
    finally:
        bar.close()
    log(f"kept epoch {parser.info['best_epoch']} of {len(parser.info['epochs'])}")
    return parser, dev_scores(parser, dev, log)


def attachment(gold: Sequence[Sentence], parsed: list[tuple[list[int], list[str]]]
               ) -> tuple[float, float]:
    """UAS and LAS of parses (heads, labels) of gold sentences."""
    scores = evaluate(gold, [with_tree(s, h, d) for s, (h, d) in zip(gold, parsed)])
    return scores.UAS, scores.LAS


def _checked(train: Iterable[Sentence], dev: Iterable[Sentence] | None,
             warn: Callable[[str], None]) -> tuple[list[Sentence], list[Sentence] | None]:
    train = list(train)
    if not train:
        raise ValueError("no training sentences")
    if dev is not None:
        dev = list(dev)
        message = unseen_labels_message(train, dev)
        if message:
            warn(message)
    return train, dev


def dev_scores(parser: DependencyModel, dev: list[Sentence] | None,
               log: Callable[[str], None]) -> Scores | None:
    """The parser's scores on dev (None without dev), logged with its speed."""
    if dev is None:
        return None
    started = time.perf_counter()
    parsed = parser.parse(dev)
    seconds = time.perf_counter() - started
    scores = evaluate(dev, [with_tree(s, h, d) for s, (h, d) in zip(dev, parsed)])
    log(f"dev: UAS {scores.UAS:.2f} LAS {scores.LAS:.2f} "
        f"({len(dev) / max(seconds, 1e-9):.0f} sentences/s)")
    return scores


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
