"""Bunsetsu dependency accuracy, sentence accuracy and chunk F1 (parser.bunsetsu.evaluate),
against hand-worked examples and a plain reference that sees bunsetsu as sets of morphemes."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyparse.parser.bunsetsu.evaluate import (
    BunsetsuEvaluationError,
    chunk_scores,
    chunk_spans,
    dependency_scores,
    evaluate_bunsetsu,
)

# ---------------------------------------------------------------------------------------------
# The reference: a bunsetsu is the frozenset of its morphemes, a dependency the pair
# (bunsetsu, head bunsetsu or None); a gold dependency is right when the system holds the same
# pair. Written without spans, dictionaries of spans or the module's helpers.


def morpheme_sets(starts: list[int], n_morphemes: int) -> list[frozenset[int]]:
    owner = []
    for m in range(n_morphemes):
        owner.append(sum(1 for s in starts if s <= m) - 1)
    return [frozenset(m for m in range(n_morphemes) if owner[m] == b)
            for b in range(len(starts))]


def reference(gold: list, system: list, chunked: bool) -> dict:
    total = right = whole = system_total = 0
    gold_chunks = system_chunks = both_chunks = 0
    for (g_starts, g_heads, n), (s_starts, s_heads, _) in zip(gold, system):
        g_sets = morpheme_sets(g_starts, n)
        s_sets = morpheme_sets(s_starts, n)
        s_pairs = {(s_sets[j], s_sets[h] if h >= 0 else None) for j, h in enumerate(s_heads)}
        ok = 0
        for i in range(len(g_sets) - 1):
            total += 1
            pair = (g_sets[i], g_sets[g_heads[i]] if g_heads[i] >= 0 else None)
            ok += pair in s_pairs
        right += ok
        whole += (g_sets == s_sets) and ok == max(len(g_sets) - 1, 0)
        system_total += max(len(s_sets) - 1, 0)
        gold_chunks += len(g_sets)
        system_chunks += len(s_sets)
        both_chunks += len(set(g_sets) & set(s_sets))
    result = {
        "dependency_accuracy": 100 * right / total if total else 0.0,
        "sentence_accuracy": 100 * whole / len(gold) if gold else 0.0,
        "bunsetsu": total, "correct": right,
        "sentences": len(gold), "sentences_correct": whole,
    }
    if chunked:
        p = 100 * both_chunks / system_chunks if system_chunks else 0.0
        r = 100 * both_chunks / gold_chunks if gold_chunks else 0.0
        result.update({
            "chunk_precision": p, "chunk_recall": r,
            "chunk_f1": 2 * p * r / (p + r) if p + r else 0.0,
            "gold_chunks": gold_chunks, "system_chunks": system_chunks,
            "correct_chunks": both_chunks,
        })
        # Dependencies as precision (over the system's bunsetsu but the last) and recall.
        dp = 100 * right / system_total if system_total else 0.0
        dr = 100 * right / total if total else 0.0
        result.update({
            "dependency_precision": dp, "dependency_recall": dr,
            "dependency_f1": 2 * dp * dr / (dp + dr) if dp + dr else 0.0,
            "system_bunsetsu": system_total,
        })
    return result


def assert_scores_equal(found: dict, expected: dict) -> None:
    assert found.keys() == expected.keys()
    for key, value in expected.items():
        assert found[key] == pytest.approx(value), key


@st.composite
def chunking(draw: st.DrawFn, n_morphemes: int) -> list[int]:
    inner = draw(st.sets(st.integers(1, n_morphemes - 1))) if n_morphemes > 1 else set()
    return [0, *sorted(inner)]


@st.composite
def heads_for(draw: st.DrawFn, n_bunsetsu: int) -> list[int]:
    """Head-final trees most of the time, any heads in range (malformed trees) otherwise."""
    if draw(st.booleans()):
        return [draw(st.integers(i + 1, n_bunsetsu - 1)) for i in range(n_bunsetsu - 1)] + [-1]
    return draw(st.lists(st.integers(-1, n_bunsetsu - 1), min_size=n_bunsetsu,
                         max_size=n_bunsetsu))


@st.composite
def sentence_pair(draw: st.DrawFn, chunked: bool) -> tuple[tuple, tuple]:
    n = draw(st.integers(1, 9))
    g_starts = draw(chunking(n))
    s_starts = draw(chunking(n)) if chunked and draw(st.booleans()) else list(g_starts)
    g_heads = draw(heads_for(len(g_starts)))
    if s_starts == g_starts and draw(st.booleans()):
        s_heads = [h if draw(st.integers(0, 3)) else draw(st.integers(-1, len(g_heads) - 1))
                   for h in g_heads]
    else:
        s_heads = draw(heads_for(len(s_starts)))
    return (g_starts, g_heads, n), (s_starts, s_heads, n)


def corpus(chunked: bool) -> st.SearchStrategy:
    return st.lists(sentence_pair(chunked), max_size=8)


@settings(max_examples=300, deadline=None)
@given(corpus(chunked=False))
def test_gold_chunks_match_the_reference_and_dependency_scores(pairs: list) -> None:
    gold = [g for g, _ in pairs]
    system = [s for _, s in pairs]
    found = evaluate_bunsetsu(gold, system)
    assert_scores_equal(found, reference(gold, system, chunked=False))
    assert found == dependency_scores([g[1] for g in gold], [s[1] for s in system])


@settings(max_examples=300, deadline=None)
@given(corpus(chunked=True))
def test_predicted_chunks_match_the_reference(pairs: list) -> None:
    gold = [g for g, _ in pairs]
    system = [s for _, s in pairs]
    found = evaluate_bunsetsu(gold, system, chunked=True)
    assert_scores_equal(found, reference(gold, system, chunked=True))
    chunks = chunk_scores([g[0] for g in gold], [s[0] for s in system], [g[2] for g in gold])
    assert {key: found[key] for key in chunks} == chunks


@settings(max_examples=100, deadline=None)
@given(corpus(chunked=True))
def test_a_system_equal_to_gold_scores_full_marks(pairs: list) -> None:
    gold = [g for g, _ in pairs]
    found = evaluate_bunsetsu(gold, gold, chunked=True)
    assert found["correct"] == found["bunsetsu"]
    assert found["sentences_correct"] == found["sentences"] == len(gold)
    assert found["correct_chunks"] == found["gold_chunks"] == found["system_chunks"]


# ---------------------------------------------------------------------------------------------
# Worked by hand.

def test_dependency_accuracy_leaves_out_the_last_bunsetsu() -> None:
    # 太郎は / 京都大学に / 行った : heads 2 2 -1; the system attaches 太郎は to 京都大学に.
    scores = dependency_scores([[2, 2, -1], [-1]], [[1, 2, -1], [-1]])
    assert scores == {"dependency_accuracy": 50.0, "sentence_accuracy": 50.0, "bunsetsu": 2,
                      "correct": 1, "sentences": 2, "sentences_correct": 1}


def test_the_last_bunsetsu_head_is_never_scored() -> None:
    scores = dependency_scores([[1, -1]], [[1, 0]])
    assert (scores["dependency_accuracy"], scores["sentence_accuracy"]) == (100.0, 100.0)


def test_single_bunsetsu_sentences_count_as_right_and_add_no_bunsetsu() -> None:
    scores = dependency_scores([[-1], [-1], [1, -1]], [[-1], [-1], [-1, -1]])
    assert scores["bunsetsu"] == 1 and scores["correct"] == 0
    assert scores["sentences_correct"] == 2
    assert scores["sentence_accuracy"] == pytest.approx(200 / 3)
    assert scores["dependency_accuracy"] == 0.0


def test_nothing_to_count_gives_zero() -> None:
    assert dependency_scores([], [])["dependency_accuracy"] == 0.0
    assert dependency_scores([[-1]], [[-1]])["dependency_accuracy"] == 0.0
    assert chunk_scores([], [], [])["chunk_f1"] == 0.0


def test_chunk_spans() -> None:
    assert chunk_spans([0, 2, 3], 5) == [(0, 2), (2, 3), (3, 5)]
    assert chunk_spans([], 0) == []


def test_chunk_scores_by_hand() -> None:
    # gold (0,2) (2,3) (3,5) | (0,1); system (0,2) (2,5) | (0,1)
    scores = chunk_scores([[0, 2, 3], [0]], [[0, 2], [0]], [5, 1])
    assert scores["correct_chunks"] == 2
    assert scores["chunk_precision"] == pytest.approx(100 * 2 / 3)
    assert scores["chunk_recall"] == pytest.approx(100 * 2 / 4)
    assert scores["chunk_f1"] == pytest.approx(100 * 4 / 7)


def test_predicted_chunks_by_hand() -> None:
    # Morphemes 0..5. Gold bunsetsu (0,2) (2,3) (3,4) (4,6), heads 1 3 3 -1.
    # System bunsetsu (0,2) (2,4) (4,6), heads 1 2 -1.
    # Gold 0 (0,2): system has (0,2); gold head (2,3), system head (2,4): wrong.
    # Gold 1 (2,3) and gold 2 (3,4): no system bunsetsu with their spans: wrong.
    gold = [([0, 2, 3, 4], [1, 3, 3, -1], 6)]
    system = [([0, 2, 4], [1, 2, -1], 6)]
    scores = evaluate_bunsetsu(gold, system, chunked=True)
    assert (scores["bunsetsu"], scores["correct"]) == (3, 0)
    # The last bunsetsu split in two: only gold 0 can be right, as no system bunsetsu spans (4,6).
    split_last = [([0, 2, 3, 4, 5], [1, 4, 4, 4, -1], 6)]
    scores = evaluate_bunsetsu(gold, split_last, chunked=True)
    assert (scores["bunsetsu"], scores["correct"]) == (3, 1)
    assert scores["sentences_correct"] == 0
    assert scores["correct_chunks"] == 3 and scores["system_chunks"] == 5


def test_spans_not_indices_decide() -> None:
    # Gold (0,2) (2,3) (3,5), heads 2 2 -1; system (0,1) (1,2) (2,3) (3,5), heads 1 3 3 -1.
    # Gold 0 (0,2) has no system twin: wrong. Gold 1 (2,3) -> (3,5) is system 2 (2,3) -> (3,5):
    # right, though its index differs.
    scores = evaluate_bunsetsu([([0, 2, 3], [2, 2, -1], 5)], [([0, 1, 2, 3], [1, 3, 3, -1], 5)],
                               chunked=True)
    assert (scores["bunsetsu"], scores["correct"], scores["correct_chunks"]) == (2, 1, 2)
    assert scores["dependency_accuracy"] == 50.0


def test_chunk_keys_only_when_chunked() -> None:
    gold = [([0, 1], [1, -1], 2)]
    assert "chunk_f1" not in evaluate_bunsetsu(gold, gold)
    assert evaluate_bunsetsu(gold, gold, chunked=True)["chunk_f1"] == 100.0


def test_right_heads_in_a_wrongly_chunked_sentence_do_not_make_it_right() -> None:
    # Gold (0,1) (1,2) (2,3), heads 2 2 -1; system splits nothing else but merges the end:
    # (0,1) (1,3), heads 1 -1. Gold 0 -> (2,3) but system 0 -> (1,3): wrong; gold 1 unmatched.
    scores = evaluate_bunsetsu([([0, 1, 2], [2, 2, -1], 3)], [([0, 1], [1, -1], 3)],
                               chunked=True)
    assert scores["correct"] == 0 and scores["sentences_correct"] == 0
    # One bunsetsu in gold, two in the system: nothing to score, but the sentence is wrong.
    scores = evaluate_bunsetsu([([0], [-1], 2)], [([0, 1], [1, -1], 2)], chunked=True)
    assert scores["bunsetsu"] == 0 and scores["sentences_correct"] == 0


# ---------------------------------------------------------------------------------------------
# Data that cannot be scored together: one line naming the sentence.

@pytest.mark.parametrize("gold, system, chunked, message", [
    ([([0], [-1], 1)], [], False, "gold has 1 sentences, system 0"),
    ([([0], [-1], 1), ([0, 1], [1, -1], 2)], [([0], [-1], 1), ([0], [-1], 3)], True,
     "sentence 2: gold has 2 morphemes, system 3"),
    ([([0, 1], [1, -1], 2)], [([0], [-1], 2)], False,
     "sentence 1: the system's bunsetsu differ from the gold ones (score it as chunked)"),
    ([([0, 1], [2, -1], 2)], [([0, 1], [1, -1], 2)], False,
     "sentence 1: gold head 2 of bunsetsu 0 is outside the sentence (2 bunsetsu)"),
    ([([0, 1], [1, -1], 2)], [([0, 1], [1], 2)], False,
     "sentence 1: system has 2 bunsetsu starts but 1 heads"),
    ([([1], [-1], 2)], [([0], [-1], 2)], True,
     "sentence 1: gold's first bunsetsu starts at morpheme 1, not 0"),
    ([([0], [-1], 2)], [([0, 2], [1, -1], 2)], True,
     "sentence 1: system bunsetsu starts at morpheme 2, outside the sentence (2 morphemes)"),
    ([([0], [-1], 3)], [([0, 2, 1], [-1, -1, -1], 3)], True,
     "sentence 1: system bunsetsu starts are not increasing (2 then 1)"),
    ([([], [], 2)], [([0], [-1], 2)], True, "sentence 1: gold has 2 morphemes but no bunsetsu"),
])
def test_mismatches_raise_one_line(gold: list, system: list, chunked: bool,
                                   message: str) -> None:
    with pytest.raises(ValueError) as error:
        evaluate_bunsetsu(gold, system, chunked=chunked)
    assert str(error.value) == message
    assert "\n" not in str(error.value)


def test_dependency_scores_mismatches() -> None:
    with pytest.raises(BunsetsuEvaluationError, match="^sentence 2: gold has 2 bunsetsu, system 1$") \
            as error:
        dependency_scores([[-1], [1, -1]], [[-1], [-1]])
    assert error.value.sentence == 2
    with pytest.raises(BunsetsuEvaluationError, match="^gold has 1 sentences, system 2$"):
        dependency_scores([[-1]], [[-1], [-1]])
    with pytest.raises(BunsetsuEvaluationError, match="system head -2 of bunsetsu 0"):
        dependency_scores([[1, -1]], [[-2, -1]])


def test_chunk_scores_mismatches() -> None:
    with pytest.raises(BunsetsuEvaluationError, match="^2 sentences but 1 morpheme counts$"):
        chunk_scores([[0], [0]], [[0], [0]], [1])
    with pytest.raises(BunsetsuEvaluationError, match="^sentence 1: system bunsetsu starts"):
        chunk_scores([[0]], [[0, 0]], [2])


# ---------------------------------------------------------------------------------------------
# Trees by characters (raw text): white space is not counted.


def test_char_tree_counts_no_white_space():
    from polyparse.parser.bunsetsu.evaluate import char_tree

    # Ad|Planner を|使う: the gold surfaces without the space, raw text's with it.
    gold = char_tree(["Ad", "Planner", "を", "使う"], [0, 3], [1, -1])
    assert gold == ([0, 10], [1, -1], 12)
    assert char_tree(["Ad", " ", "Planner", "を", "使う"], [0, 4], [1, -1]) == gold
    assert char_tree(["Ad", " ", "Planner", "を", "使う"], [0, 2, 4], [2, 2, -1]) == \
        ([0, 2, 10], [2, 2, -1], 12)
    # JUMAN's escaped half-width space and a full-width one.
    assert char_tree(["Ad", "\\ ", "Planner", "を", "　", "使う"], [0, 5], [1, -1]) == gold


def test_a_bunsetsu_of_white_space_alone_joins_its_neighbour():
    from polyparse.parser.bunsetsu.evaluate import char_tree

    # A, ␣, B, C: the space's bunsetsu joins B's, which keeps B's head; A's head (the space)
    # becomes the joined bunsetsu.
    assert char_tree(["A", " ", "B", "C"], [0, 1, 2, 3], [1, 3, 3, -1]) == \
        ([0, 1, 2], [1, 2, -1], 3)
    # Last: it joins the one before, and the joined bunsetsu is the root.
    assert char_tree(["A", "B", "　"], [0, 1, 2], [1, 2, -1]) == ([0, 1], [1, -1], 2)
    assert char_tree(["　"], [0], [-1]) == ([], [], 0)
