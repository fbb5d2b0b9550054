"""The bunsetsu parser over files: training sentences with the malformed ones set aside, parsed
sentences written back in their format, and the accuracy of parsed sentences or of a system
file against a gold one (what `polyparse ja` and polyparse.japanese share)."""
from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, BinaryIO, TextIO

from polyparse.features.errors import InputError
from polyparse.features.input_files import input_reader
from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.bunsetsu.evaluate import (
    BunsetsuEvaluationError,
    char_tree,
    evaluate_bunsetsu,
    text_characters,
)
from polyparse.parser.formats.bunsetsu import format_bunsetsu, read_bunsetsu
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence, malformed, without_bunsetsu

Source = str | os.PathLike | TextIO | BinaryIO | None


def training_sentences(paths: Iterable[str | os.PathLike], fmt: str = "knp",
                       encoding: str = "utf-8", strict: bool = False,
                       skipped: Callable[[BunsetsuSentence, str], None] = lambda s, p: None,
                       digests: list[str] | None = None, errors: str = "strict"
                       ) -> tuple[list[BunsetsuSentence], int]:
    """The well-formed sentences of the files (empty ones left out) and how many malformed ones
    were set aside, each reported to skipped(sentence, problem) (the problem is `file:line:
    what`); with strict the first malformed sentence raises InputError instead. Each file is
    read once (it may be a pipe); digests, when given, gets the sha256 of each file's bytes.
    errors: what a byte that is not valid in the encoding does ("strict" or "replace")."""
    kept: list[BunsetsuSentence] = []
    n_skipped = 0
    for path in paths:
        with input_reader(path) as reader:
            for sentence in read_bunsetsu(reader.stream, fmt, validate=False, encoding=encoding,
                                          name=reader.name, errors=errors):
                if not sentence.surface:
                    continue
                problem = malformed(sentence)
                if problem is None:
                    kept.append(sentence)
                elif strict:
                    raise InputError(problem)
                else:
                    n_skipped += 1
                    skipped(sentence, problem)
            if digests is not None:
                digests.append(reader.sha256())
    return kept, n_skipped


def parsed_blocks(parser: BunsetsuParser, sentences: list[BunsetsuSentence], fmt: str,
                  rechunk: bool = False) -> Iterator[str]:
    """Each sentence's block with the parser's heads (and, for sentences without bunsetsu
    lines or with rechunk, the chunker's bunsetsu), in fmt ("knp" or "cabocha"; see
    format_bunsetsu)."""
    results = parser.parse(sentences, chunk=True if rechunk else None)
    for sentence, (starts, heads) in zip(sentences, results):
        if rechunk and sentence.chunk_lines:
            sentence = without_bunsetsu(sentence)
        new_chunks = starts if not sentence.chunk_lines else None
        yield format_bunsetsu(sentence, heads, None, new_chunks, fmt)


def parsed_scores(gold: Sequence[BunsetsuSentence],
                  parsed: Sequence[tuple[Sequence[int], Sequence[int]]],
                  chunked: bool = False) -> dict[str, Any]:
    """Scores of (chunk_starts, heads) per gold sentence (parser/bunsetsu/evaluate.py)."""
    return evaluate_bunsetsu([(s.chunk_starts, s.heads, len(s.surface)) for s in gold],
                             [(starts, heads, len(s.surface))
                              for s, (starts, heads) in zip(gold, parsed)], chunked=chunked)


def _other_morphemes(k: int, gold: Any, system: Any, gold_name: str | os.PathLike,
                     system_name: str) -> str:
    """The line for sentence k of a system file whose morphemes are not the gold file's: both
    places, and the first morpheme that differs (scores over other morphemes mean nothing)."""
    i = next((i for i, (a, b) in enumerate(zip(gold.surface, system.surface)) if a != b),
             min(len(gold.surface), len(system.surface)))
    if i < min(len(gold.surface), len(system.surface)):
        where = system.start_line + system.morpheme_lines[i]
        what = f"'{system.surface[i]}' where the gold file has '{gold.surface[i]}'"
    else:
        where = system.start_line
        what = f"{len(system.surface)} morphemes where the gold file has {len(gold.surface)}"
    return (f"{system_name}:{where}: sentence {k} has other morphemes than the gold file's "
            f"({gold_name}:{gold.start_line}): {what}; both files must hold the same sentences "
            "and morphemes")


def file_scores(gold: str | os.PathLike, system: Source, fmt: str = "knp",
                encoding: str = "utf-8", chunked: bool = False,
                system_name: str | None = None, gold_format: str | None = None,
                by_characters: bool = False, errors: str = "strict") -> dict[str, Any]:
    """Scores of a system file (a path, "-"/None for standard input, or a stream) against a
    well-formed gold file (in gold_format, default fmt); chunk_f1 when chunked or when their
    bunsetsu differ anywhere. by_characters: bunsetsu are compared by their characters (the
    system's morphemes may differ from the gold ones, its text may not). InputError (one
    line) when the files do not pair up sentence by sentence. errors: what a byte that is not
    valid in the encoding does ("strict" or "replace")."""
    name = system_name or ("<stdin>" if system in (None, "-") else os.fspath(system))
    gold_sentences = list(read_bunsetsu(os.fspath(gold), gold_format or fmt,
                                        encoding=encoding, errors=errors))
    system_sentences = list(read_bunsetsu(None if system == "-" else system, fmt,
                                          encoding=encoding, name=name, errors=errors))
    return sentence_scores(gold_sentences, system_sentences, gold, name, chunked,
                           by_characters)


def sentence_scores(gold: Sequence[BunsetsuSentence], system: Sequence[BunsetsuSentence],
                    gold_name: str | os.PathLike, system_name: str, chunked: bool = False,
                    by_characters: bool = False) -> dict[str, Any]:
    """file_scores of the sentences read from the two files (named in messages)."""
    if len(gold) != len(system):
        raise InputError(f"{gold_name} has {len(gold)} sentences, {system_name} {len(system)}")
    if by_characters:
        return _character_scores(gold, system, gold_name, system_name)
    for k, (g, s) in enumerate(zip(gold, system), 1):
        if g.surface != s.surface:
            raise InputError(_other_morphemes(k, g, s, gold_name, system_name))
    chunked = chunked or any(g.chunk_starts != s.chunk_starts for g, s in zip(gold, system))
    try:
        return parsed_scores(gold, [(s.chunk_starts, s.heads) for s in system], chunked)
    except BunsetsuEvaluationError as error:
        raise InputError(f"{system_name}: {error}") from None


def _character_scores(gold: Sequence[BunsetsuSentence], system: Sequence[BunsetsuSentence],
                      gold_name: str | os.PathLike, system_name: str) -> dict[str, Any]:
    """Scores by characters (parser/bunsetsu/evaluate.py's char_tree) of sentences that pair
    up by their text, white space aside."""
    for k, (g, s) in enumerate(zip(gold, system), 1):
        if _characters(g) != _characters(s):
            raise InputError(
                f"{system_name}:{s.start_line}: sentence {k} has another text than the gold "
                f"file's ({gold_name}:{g.start_line}); scoring by characters needs the same "
                "text (white space aside)")
    try:
        return evaluate_bunsetsu(
            [char_tree(g.surface, g.chunk_starts, g.heads) for g in gold],
            [char_tree(s.surface, s.chunk_starts, s.heads) for s in system], chunked=True)
    except BunsetsuEvaluationError as error:
        raise InputError(f"{system_name}: {error}") from None


def _characters(sentence: BunsetsuSentence) -> str:
    """The text of a sentence as scoring by characters sees it: without white space."""
    return "".join(map(text_characters, sentence.surface))
