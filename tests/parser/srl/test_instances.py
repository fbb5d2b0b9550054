"""parser/srl/instances.py and statistics.py on the hand-written gold_conll fixture."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from polyparse.features.svmlight_tk import parse_svmlight_tk
from polyparse.parser.srl.feature_vocab import FirstSeenVocab
from polyparse.parser.srl.instances import file_instances, instance_count, tk_lines, tree_instances
from polyparse.parser.srl.statistics import BoundaryStatistics


@pytest.fixture()
def good(data_dir: Path) -> Path:
    return data_dir / "gold_conll" / "good.gold_conll"


def test_instances_per_predicate_in_pre_order(good: Path) -> None:
    groups = file_instances(good)
    assert [(g.predicate.roleset, len(g.instances)) for g in groups] == [
        ("give.01", 12), ("give_up.06", 5), ("say.01", 15), ("call_off.02", 11),
        ("rise.01", 3)]
    gave = groups[0].instances
    assert [(i.label, i.first, i.last) for i in gave[:5]] == [
        (1, 0, 0), (1, 0, 0), (1, 2, 2), (1, 2, 2), (-1, 3, 5)]
    # "gave up": the particle is not an argument of its own predicate
    assert [i.tree for i in groups[1].instances][2:4] == [
        "(VP (VBD-P gave) (PRT-B (RP up)))", "(VP (VBD-P gave) (PRT (RP-B up)))"]
    assert [i.label for i in groups[1].instances] == [1, 1, -1, -1, -1]
    assert instance_count(groups) == 46


def test_tk_lines_number_features_by_first_appearance(good: Path) -> None:
    vocab = FirstSeenVocab()
    lines = list(tk_lines(file_instances(good), vocab))
    assert lines[0] == "+1 |BT| (S (NP-B (NNP Ann)) (VP (VBD-P gave))) |ET| " \
                       "1:1 2:1 3:1 4:1 5:1 6:1 7:1\n"
    assert lines[4] == ("-1 |BT| (VP (VBD-P gave) (PRN-B (-LRB- -LRB-) (NP (CD one)) "
                        "(-RRB- -RRB-))) |ET| 2:1 5:1 7:1 11:1 14:1 15:1 16:1\n")
    assert vocab.features()[:7] == [
        "pt=NP", "lem=give", "path=NP^S!VP!VBD", "pos=before", "voice=active", "hw=ann",
        "subcat=VP>VBD_NP_PRN_NP"]
    frozen = FirstSeenVocab(vocab.features()[:7], frozen=True)
    assert list(tk_lines(file_instances(good), frozen))[4].endswith("|ET| 2:1 5:1 7:1\n")


def test_tree_instances_equal_what_the_tk_reader_gives(good: Path) -> None:
    groups = file_instances(good)
    vocab = FirstSeenVocab()
    text = "".join(tk_lines(groups, vocab))
    read = parse_svmlight_tk(text, n_features=vocab.n_features)
    built = tree_instances(groups, FirstSeenVocab(vocab.features(), frozen=True))
    assert np.array_equal(built.labels, read.labels)
    assert np.array_equal(built.instance_ptr, read.instance_ptr)
    assert np.array_equal(built.vectors.indptr, read.vectors.indptr)
    assert np.array_equal(built.vectors.indices, read.vectors.indices)
    assert built.vectors.n_features == read.vectors.n_features
    for name in ("tree_ptr", "label", "production", "child_ptr", "children", "is_word"):
        assert np.array_equal(getattr(built.forest, name), getattr(read.forest, name)), name
    assert [built.forest.to_brackets(t) for t in range(len(built.forest))] == \
        [i.tree for g in groups for i in g.instances]


def test_tree_instances_share_given_interners(good: Path) -> None:
    groups = file_instances(good)
    first = tree_instances(groups[:1], FirstSeenVocab())
    forest = first.forest
    more = tree_instances(groups, FirstSeenVocab(), forest.labels, forest.productions)
    assert more.forest.labels is forest.labels and more.forest.productions is forest.productions
    size = forest.n_nodes
    assert np.array_equal(more.forest.label[:size], forest.label)
    assert np.array_equal(more.forest.production[:size], forest.production)


def test_statistics(good: Path) -> None:
    statistics = BoundaryStatistics().add(file_instances(good))
    assert statistics.as_dict() == {
        "instances": 46, "positives": 17, "negatives": 29, "predicates": 5,
        "avg_tree_nodes": round(statistics.tree_nodes / 46, 2),
        "avg_tree_words": round(statistics.tree_words / 46, 2), "max_tree_nodes": 14,
        "argument_spans": 10, "argument_spans_matched_by_a_node": 9}
    # the largest PAF tree: "said" and its SBAR (VP VBD SBAR S NP NNP VP MD VP VB NP PRP PRT RP)
    assert statistics.tree_nodes == sum(line.count("(") for line in tk_lines(
        file_instances(good), FirstSeenVocab()))
