"""The morphology classifiers (FEATS, XPOS apart, lemma scripts): the compiled `morph` templates
and loop against plain-Python references and against the linear classifiers' own predictions,
FEATS strings as UD writes them, bad model arrays refused."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.classifiers.backends import new_classifier
from polyparse.classifiers.model_file import ModelFileError
from polyparse.features.vocab import FeatureVocab
from polyparse.parser.formats.tokens import sentences_from_text
from polyparse.parser.tagging.config import TaggerConfig
from polyparse.parser.tagging.morphology import (
    FEATURE,
    Morphology,
    feats_string,
    feature_pairs,
    target_labels,
)
from polyparse.parser.tagging.tag_decoder import training_keys
from polyparse.parser.tagging.tag_templates import template_names, token_keys
from polyparse.parser.tagging.tagger import Tagger, feature_rows
from tests.parser.tagging.reference import reference_morph_keys, reference_morph_predict
from tests.parser.tagging.synthetic import synthetic_conllu
from tests.parser.tagging.test_tag_templates import random_sentences


@pytest.mark.parametrize("template_set", ["morph", "morph+splits"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_morph_keys_equal_reference(template_set: str, seed: int) -> None:
    lexicon, entry, offsets, gold, _ = random_sentences(seed)
    splits = template_set == "morph+splits"
    for k in range(len(offsets) - 1):
        words, tags = entry[offsets[k]:offsets[k + 1]], gold[offsets[k]:offsets[k + 1]]
        for i in range(len(words)):
            got = token_keys(lexicon, words, np.zeros_like(tags), tags, i, template_set)
            assert got.tolist() == reference_morph_keys(lexicon, list(words), list(tags), i,
                                                        splits)
            assert len(got) == len(template_names(template_set))
    keys = training_keys(lexicon, entry, offsets, np.zeros_like(gold), gold, template_set)
    expected = [reference_morph_keys(lexicon, list(entry[a:b]), list(gold[a:b]), i, splits)
                for a, b in zip(offsets[:-1], offsets[1:]) for i in range(b - a)]
    assert keys.tolist() == expected


def test_feats_strings() -> None:
    assert feature_pairs("_") == []
    assert feature_pairs("Case=Nom|Number[psor]=Sing") == [("Case", "Nom"),
                                                           ("Number[psor]", "Sing")]
    # Sorted as UD's validator sorts them: by the lowercased Name=Value.
    assert feats_string([("Number[psor]", "Sing"), ("Number", "Plur"), ("abbr", "Yes")]) == \
        "abbr=Yes|Number=Plur|Number[psor]=Sing"
    assert feats_string([]) == "_"


def test_targets_of_training_words() -> None:
    feats = ["Case=Nom|Number=Sing", "_", "Number=Plur"]
    per_feature = target_labels(feats, None, "per-feature")
    assert [(t.kind, t.name, t.values) for t, _ in per_feature] == [
        (FEATURE, "Case", ["", "Nom"]), (FEATURE, "Number", ["", "Plur", "Sing"])]
    assert [labels.tolist() for _, labels in per_feature] == [[1, 0, 0], [2, 0, 1]]
    joint, xpos = target_labels(feats, ["NN", "DT", "NN"], "joint")[::-1]
    assert joint[0].values == sorted(feats) and xpos[0].values == ["DT", "NN"]
    assert target_labels(feats, None, "none") == []


def trained(feats: str, xpos: str, min_weight: float) -> Tagger:
    tagger = Tagger(TaggerConfig(feats=feats, xpos=xpos, min_weight=min_weight,
                                 dictionary_min_count=3))
    tagger.train(sentences_from_text(synthetic_conllu(80, seed=1, features=True)))
    return tagger


def test_morphology_predicts_as_its_classifiers() -> None:
    """The compiled loop over a model without dropped weights chooses what each group's
    `linear` classifier, trained again here on the group's rows, predicts."""
    tagger = trained("per-feature", "apart", 0.0)
    morphology, lexicon = tagger.morphology, tagger.lexicon
    assert morphology is not None and lexicon is not None
    sentences = sentences_from_text(synthetic_conllu(80, seed=1, features=True))
    classes = {c: i for i, c in enumerate(tagger.classes)}
    gold = np.asarray([classes[(u, "_")] for s in sentences for u in s.upos], dtype=np.int32)
    tags = [[f"{u}\t{x}" for u, x in zip(s.upos, s.xpos)] for s in sentences]
    table, entry, offsets = lexicon.encode_training(
        [(s.form, t, s.feats) for s, t in zip(sentences, tags)], 1, 2)
    keys = training_keys(table, entry, offsets, np.zeros_like(gold), gold, "morph")
    vocab = FeatureVocab.count(keys, 1)
    matrix = feature_rows(vocab, keys)
    targets = target_labels([f for s in sentences for f in s.feats],
                            [x for s in sentences for x in s.xpos], "per-feature")
    forms = [s.form for s in sentences_from_text(synthetic_conllu(15, seed=9))]
    forms.append(["Unseen", "words", "zzz", "run", "."])
    test_table, test_entry, test_offsets, test_classes = tagger._encoded_classes(forms)
    test_keys = training_keys(test_table, test_entry, test_offsets,
                              np.zeros_like(test_classes), test_classes, "morph")
    test_matrix = feature_rows(vocab, test_keys)
    got = morphology.predict(test_table, test_entry, test_offsets, test_classes)
    checked = 0
    for t, (target, labels) in enumerate(targets):
        assert morphology.targets[t] == target
        for group in np.unique(test_classes):
            rows = np.flatnonzero(gold == group)
            found = np.unique(labels[rows])
            words = np.flatnonzero(test_classes == group)
            if found.size == 1:
                expected = (np.full(words.size, -1) if target.values[found[0]] == target.empty
                            else np.full(words.size, found[0]))
            else:
                clf = new_classifier("linear", C=0.1, seed=0).fit(matrix.take(rows),
                                                                   labels[rows])
                expected = clf.predict(test_matrix.take(words))
                checked += 1
            assert got[words, t].tolist() == expected.tolist()
    assert checked >= 3


@pytest.mark.parametrize("feats, xpos", [("per-feature", "joint"), ("joint", "apart"),
                                         ("none", "apart")])
@pytest.mark.parametrize("min_weight", [0.0, 0.05])
def test_compiled_loop_equals_reference(feats: str, xpos: str, min_weight: float) -> None:
    tagger = trained(feats, xpos, min_weight)
    assert tagger.morphology is not None
    forms = [s.form for s in sentences_from_text(synthetic_conllu(15, seed=9))]
    forms.append(["Unseen", "words", "zzz", "run", "."])
    table, entry, offsets, classes = tagger._encoded_classes(forms)
    got = tagger.morphology.predict(table, entry, offsets, classes)
    expected = reference_morph_predict(tagger.morphology, table, entry.tolist(),
                                       offsets.tolist(), classes.tolist())
    assert got.tolist() == expected


def test_dropped_weights_leave_a_smaller_model_that_tags_alike() -> None:
    full, pruned = trained("per-feature", "joint", 0.0), trained("per-feature", "joint", 0.05)
    assert full.morphology is not None and pruned.morphology is not None
    assert (pruned.morphology.arrays["weight_values"].size
            < full.morphology.arrays["weight_values"].size)
    assert np.abs(pruned.morphology.arrays["weight_values"]).min() >= 0.05
    forms = [s.form for s in sentences_from_text(synthetic_conllu(30, seed=5))]
    same = sum(a == b for a, b in zip(full.tag_forms(forms), pruned.tag_forms(forms)))
    assert same >= 0.9 * len(forms)


def test_inconsistent_arrays_are_refused() -> None:
    tagger = trained("per-feature", "joint", 0.0)
    morphology = tagger.morphology
    assert morphology is not None
    for name, change in [("group_outputs", lambda a: a[:-1]),
                         ("slot_values", lambda a: a + 1000),
                         ("weight_outputs", lambda a: a + 1000),
                         ("weight_ptr", lambda a: a[:-1])]:
        arrays = dict(morphology.arrays)
        arrays[name] = change(arrays[name])
        with pytest.raises(ModelFileError):
            Morphology(morphology.targets, arrays)
    arrays = dict(morphology.arrays)
    del arrays["intercept"]
    with pytest.raises(ModelFileError, match="intercept"):
        Morphology(morphology.targets, arrays)
