"""Accuracy of a Japanese bunsetsu dependency parser against gold trees, over plain data.

A sentence is given by three plain values, so that scoring depends on no reader:

- ``chunk_starts``: the index (from 0) of the first morpheme of each bunsetsu, strictly
  increasing from 0; bunsetsu ``i`` spans the morphemes ``[chunk_starts[i], end)`` where ``end``
  is the next start, or ``n_morphemes`` for the last bunsetsu;
- ``heads``: the index (from 0) of the bunsetsu each bunsetsu depends on, ``-1`` for none (the
  root, KNP's ``-1D``);
- ``n_morphemes``: the number of morphemes of the sentence.

The measures, in percent (0.0 when nothing is counted):

- **Dependency accuracy** (Uchimoto et al. 1999; Kudo & Matsumoto 2002; Sassano
  2004): correct heads over all bunsetsu except the last of each sentence. The last bunsetsu of
  a head-final sentence has no head, so counting it would only add a free point; a sentence of
  one bunsetsu adds nothing.
- **Sentence accuracy**: the sentences whose heads are all right (the last bunsetsu excepted,
  as above) and, when chunking ran, whose bunsetsu are all right; a sentence of one bunsetsu
  with the right bunsetsu counts as right.
- **Chunk precision, recall and F1**: a system bunsetsu is right when its morpheme span
  ``(start, end)`` is exactly a gold bunsetsu's span (the CoNLL 2000 chunking measure).
- **Dependency accuracy over predicted bunsetsu** (the convention of CaboCha and J.DepP when
  they chunk their input): the dependency of gold bunsetsu ``i`` (not the last of its sentence)
  is right when a system bunsetsu has exactly its span and that system bunsetsu's head has
  exactly the span of ``i``'s gold head (or both have no head). The denominator stays the gold
  bunsetsu except the last of each sentence, so with the gold bunsetsu it is the plain
  dependency accuracy. As precision, recall and F1 (``dependency_precision``, ``_recall``,
  ``_f1``): the same right dependencies over the system's bunsetsu except the last of each
  sentence, and over the gold's.
- **By characters** (raw text, whose morphemes are not the gold ones): spans count characters
  instead of morphemes (``char_tree``), so a bunsetsu is right when its characters are a gold
  bunsetsu's, and its dependency when its head's characters are too. White space is not
  counted: raw text may hold a space that the gold surfaces lack ("Ad Planner" against the
  morphemes Ad and Planner), or lack one they hold.

References: Kiyotaka Uchimoto, Satoshi Sekine and Hitoshi Isahara, Japanese dependency structure
analysis based on maximum entropy models, EACL 1999. Taku Kudo and Yuji Matsumoto, Japanese
dependency analysis using cascaded chunking, CoNLL 2002. Manabu Sassano, Linear-time dependency
analysis for Japanese, COLING 2004.
"""
from __future__ import annotations

from collections.abc import Sequence
from itertools import pairwise

__all__ = ["METRICS", "BunsetsuEvaluationError", "BunsetsuTree", "char_tree", "chunk_scores",
           "chunk_spans", "dependency_scores", "evaluate_bunsetsu", "text_characters"]

# What each key of the scores means (evaluate_bunsetsu's, chunk_scores' and `ja evaluate
# --json`'s).
METRICS = {
    "dependency_accuracy": "percent of the gold bunsetsu (but the last of each sentence) with "
                           "the right head",
    "sentence_accuracy": "percent of the sentences whose heads (and bunsetsu) are all right",
    "bunsetsu": "gold bunsetsu scored (all but the last of each sentence)",
    "correct": "scored bunsetsu with the right head",
    "sentences": "gold sentences",
    "sentences_correct": "sentences whose heads (and bunsetsu) are all right",
    "chunk_precision": "percent of the system's bunsetsu that are gold bunsetsu (same span)",
    "chunk_recall": "percent of the gold bunsetsu that the system found (same span)",
    "chunk_f1": "F1 of chunk precision and recall",
    "gold_chunks": "gold bunsetsu", "system_chunks": "system bunsetsu",
    "correct_chunks": "system bunsetsu with a gold bunsetsu's span",
    "dependency_precision": "right dependencies over the system's bunsetsu (but the last of "
                            "each sentence)",
    "dependency_recall": "right dependencies over the gold bunsetsu (but the last of each "
                         "sentence)",
    "dependency_f1": "F1 of dependency precision and recall",
    "system_bunsetsu": "system bunsetsu scored (all but the last of each sentence)",
}

# (chunk_starts, heads, n_morphemes) of one sentence.
BunsetsuTree = tuple[Sequence[int], Sequence[int], int]
Span = tuple[int, int]


class BunsetsuEvaluationError(ValueError):
    """Gold and system data that cannot be scored together: one line naming the sentence (from
    1) in ``sentence`` when one sentence is at fault, None when the files as a whole are."""

    def __init__(self, message: str, sentence: int | None = None) -> None:
        super().__init__(message if sentence is None else f"sentence {sentence}: {message}")
        self.sentence = sentence


def percent(part: int, whole: int) -> float:
    """100 * part / whole, 0.0 when whole is 0."""
    return 100.0 * part / whole if whole else 0.0


def chunk_spans(chunk_starts: Sequence[int], n_morphemes: int) -> list[Span]:
    """The (start, end) morpheme span of each bunsetsu (end excluded)."""
    ends = list(chunk_starts[1:]) + [n_morphemes]
    return [(int(start), int(end)) for start, end in zip(chunk_starts, ends)]


def dependency_scores(gold_heads: Sequence[Sequence[int]],
                      system_heads: Sequence[Sequence[int]]) -> dict[str, float | int]:
    """Dependency and sentence accuracy of system heads on the gold bunsetsu (module notes).

    Returns ``dependency_accuracy`` and ``sentence_accuracy`` (percent) and the counts
    ``bunsetsu`` (the denominator: all bunsetsu but the last of each sentence), ``correct``,
    ``sentences`` and ``sentences_correct``. Raises BunsetsuEvaluationError when the numbers
    of sentences, or of bunsetsu in a sentence, differ, or a head is outside its sentence.
    """
    check_sentence_counts(len(gold_heads), len(system_heads))
    bunsetsu = correct = sentences_correct = 0
    for number, (gold, system) in enumerate(zip(gold_heads, system_heads), start=1):
        if len(gold) != len(system):
            raise BunsetsuEvaluationError(
                f"gold has {len(gold)} bunsetsu, system {len(system)}", number)
        check_heads(gold, "gold", number)
        check_heads(system, "system", number)
        scored = len(gold) - 1
        right = sum(1 for i in range(scored) if gold[i] == system[i])
        bunsetsu += max(scored, 0)
        correct += right
        sentences_correct += right == max(scored, 0)
    return {
        "dependency_accuracy": percent(correct, bunsetsu),
        "sentence_accuracy": percent(sentences_correct, len(gold_heads)),
        "bunsetsu": bunsetsu,
        "correct": correct,
        "sentences": len(gold_heads),
        "sentences_correct": sentences_correct,
    }


def chunk_scores(gold_chunk_starts: Sequence[Sequence[int]],
                 system_chunk_starts: Sequence[Sequence[int]],
                 n_morphemes: Sequence[int]) -> dict[str, float | int]:
    """Bunsetsu chunking precision, recall and F1 (exact spans; module notes).

    ``n_morphemes`` gives each sentence's number of morphemes, the same for gold and system.
    Returns ``chunk_precision``, ``chunk_recall`` and ``chunk_f1`` (percent) and the counts
    ``gold_chunks``, ``system_chunks`` and ``correct_chunks``.
    """
    check_sentence_counts(len(gold_chunk_starts), len(system_chunk_starts))
    if len(n_morphemes) != len(gold_chunk_starts):
        raise BunsetsuEvaluationError(
            f"{len(gold_chunk_starts)} sentences but {len(n_morphemes)} morpheme counts")
    gold_chunks = system_chunks = correct_chunks = 0
    for number, (gold, system, length) in enumerate(
            zip(gold_chunk_starts, system_chunk_starts, n_morphemes), start=1):
        check_chunk_starts(gold, length, "gold", number)
        check_chunk_starts(system, length, "system", number)
        gold_chunks += len(gold)
        system_chunks += len(system)
        correct_chunks += len(set(chunk_spans(gold, length)) & set(chunk_spans(system, length)))
    return chunk_counts_to_scores(gold_chunks, system_chunks, correct_chunks)


def evaluate_bunsetsu(gold: Sequence[BunsetsuTree], system: Sequence[BunsetsuTree],
                      chunked: bool = False) -> dict[str, float | int]:
    """Score system sentences against gold ones, each ``(chunk_starts, heads, n_morphemes)``.

    Sentences pair up in order; both sides must have as many sentences and, sentence by
    sentence, as many morphemes. ``chunked`` says whether the system found its own bunsetsu:
    then dependencies are scored over predicted bunsetsu (module notes) and the result also
    holds the keys of chunk_scores; otherwise the system's bunsetsu must be the gold ones.
    Always returns the keys of dependency_scores. Raises BunsetsuEvaluationError (a
    ValueError) with one line naming the sentence at fault.
    """
    check_sentence_counts(len(gold), len(system))
    bunsetsu = correct = sentences_correct = system_scored = 0
    gold_chunks = system_chunks = correct_chunks = 0
    for number, (gold_sentence, system_sentence) in enumerate(zip(gold, system), start=1):
        gold_starts, gold_heads, length = gold_sentence
        system_starts, system_heads, system_length = system_sentence
        if length != system_length:
            raise BunsetsuEvaluationError(
                f"gold has {length} morphemes, system {system_length}", number)
        check_sentence(gold_starts, gold_heads, length, "gold", number)
        check_sentence(system_starts, system_heads, length, "system", number)
        same_chunks = list(gold_starts) == list(system_starts)
        if not chunked and not same_chunks:
            raise BunsetsuEvaluationError(
                "the system's bunsetsu differ from the gold ones (score it as chunked)", number)
        gold_spans = chunk_spans(gold_starts, length)
        system_spans = chunk_spans(system_starts, length)
        system_index = {span: i for i, span in enumerate(system_spans)}
        scored = len(gold_spans) - 1
        right = 0
        for i in range(scored):
            j = system_index.get(gold_spans[i])
            if j is not None and (head_span(gold_spans, gold_heads[i])
                                  == head_span(system_spans, system_heads[j])):
                right += 1
        bunsetsu += max(scored, 0)
        system_scored += max(len(system_spans) - 1, 0)
        correct += right
        sentences_correct += same_chunks and right == max(scored, 0)
        gold_chunks += len(gold_spans)
        system_chunks += len(system_spans)
        correct_chunks += len(system_index.keys() & set(gold_spans))
    scores: dict[str, float | int] = {
        "dependency_accuracy": percent(correct, bunsetsu),
        "sentence_accuracy": percent(sentences_correct, len(gold)),
        "bunsetsu": bunsetsu,
        "correct": correct,
        "sentences": len(gold),
        "sentences_correct": sentences_correct,
    }
    if chunked:
        scores.update(chunk_counts_to_scores(gold_chunks, system_chunks, correct_chunks))
        scores.update({
            "dependency_precision": percent(correct, system_scored),
            "dependency_recall": percent(correct, bunsetsu),
            "dependency_f1": percent(2 * correct, bunsetsu + system_scored),
            "system_bunsetsu": system_scored,
        })
    return scores


def text_characters(surface: str) -> str:
    """The characters of a surface that scoring by characters counts: all but white space
    (JUMAN's escaped half-width space, backslash and space, is white space)."""
    return "".join(surface.replace("\\ ", " ").split())


def char_tree(surfaces: Sequence[str], chunk_starts: Sequence[int], heads: Sequence[int]
              ) -> BunsetsuTree:
    """The tree of a sentence with its bunsetsu spans counted in characters other than white
    space (text_characters): each such character stands for a morpheme, so that a parse of
    raw text whose white space differs from the gold surfaces' (a space between two words
    that the gold file writes together) aligns all the same. A bunsetsu of white space alone
    is merged into the next one (into the one before when it is the last): the merged bunsetsu
    keeps the head of the later one, and its dependents point to the merged one; a sentence
    of white space alone has no bunsetsu."""
    offsets = [0]
    for surface in surfaces:
        offsets.append(offsets[-1] + len(text_characters(surface)))
    bounds = [offsets[start] for start in chunk_starts] + [offsets[-1]]
    # group[j]: the bunsetsu that bunsetsu j becomes; an empty one joins its neighbour.
    group: list[int] = []
    starts: list[int] = []
    for j in range(len(chunk_starts)):
        group.append(len(starts))
        if bounds[j] < bounds[j + 1]:
            starts.append(bounds[j])
    if not starts:
        return [], [], 0
    group = [min(g, len(starts) - 1) for g in group]
    later = {g: j for j, g in enumerate(group)}
    merged_heads = [group[heads[later[g]]] if heads[later[g]] >= 0 else -1
                    for g in range(len(starts))]
    return starts, merged_heads, offsets[-1]


def chunk_counts_to_scores(gold_chunks: int, system_chunks: int,
                           correct_chunks: int) -> dict[str, float | int]:
    """Precision = correct / system, recall = correct / gold, F1 = 2 correct / (gold + system)."""
    return {
        "chunk_precision": percent(correct_chunks, system_chunks),
        "chunk_recall": percent(correct_chunks, gold_chunks),
        "chunk_f1": percent(2 * correct_chunks, gold_chunks + system_chunks),
        "gold_chunks": gold_chunks,
        "system_chunks": system_chunks,
        "correct_chunks": correct_chunks,
    }


def head_span(spans: Sequence[Span], head: int) -> Span | None:
    """The span of bunsetsu head, None for no head (-1)."""
    return None if head < 0 else spans[head]


def check_sentence_counts(n_gold: int, n_system: int) -> None:
    if n_gold != n_system:
        raise BunsetsuEvaluationError(f"gold has {n_gold} sentences, system {n_system}")


def check_heads(heads: Sequence[int], side: str, number: int) -> None:
    """Every head is -1 or a bunsetsu of the sentence."""
    for i, head in enumerate(heads):
        if not -1 <= head < len(heads):
            raise BunsetsuEvaluationError(
                f"{side} head {head} of bunsetsu {i} is outside the sentence "
                f"({len(heads)} bunsetsu)", number)


def check_chunk_starts(chunk_starts: Sequence[int], n_morphemes: int, side: str,
                       number: int) -> None:
    """Starts rise strictly from 0 and stay inside the sentence; a sentence with morphemes
    has at least one bunsetsu."""
    if n_morphemes < 0:
        raise BunsetsuEvaluationError(f"{side} has {n_morphemes} morphemes", number)
    if not chunk_starts:
        if n_morphemes:
            raise BunsetsuEvaluationError(
                f"{side} has {n_morphemes} morphemes but no bunsetsu", number)
        return
    if chunk_starts[0] != 0:
        raise BunsetsuEvaluationError(
            f"{side}'s first bunsetsu starts at morpheme {chunk_starts[0]}, not 0", number)
    for previous, start in pairwise(chunk_starts):
        if start <= previous:
            raise BunsetsuEvaluationError(
                f"{side} bunsetsu starts are not increasing ({previous} then {start})", number)
    if chunk_starts[-1] >= n_morphemes:
        raise BunsetsuEvaluationError(
            f"{side} bunsetsu starts at morpheme {chunk_starts[-1]}, outside the sentence "
            f"({n_morphemes} morphemes)", number)


def check_sentence(chunk_starts: Sequence[int], heads: Sequence[int], n_morphemes: int,
                   side: str, number: int) -> None:
    if len(chunk_starts) != len(heads):
        raise BunsetsuEvaluationError(
            f"{side} has {len(chunk_starts)} bunsetsu starts but {len(heads)} heads", number)
    check_chunk_starts(chunk_starts, n_morphemes, side, number)
    check_heads(heads, side, number)
