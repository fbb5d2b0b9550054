"""The compiled tagging loop against a plain-Python greedy loop over the classifier's own
decision_function, for every backend the tests can train quickly."""
from __future__ import annotations

import numpy as np
import pytest

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.parser.formats.tokens import sentences_from_text
from polyparse.parser.tagging.config import TaggerConfig, classifier_options
from polyparse.parser.tagging.tagger import Tagger
from tests.parser.tagging.reference import reference_tag
from tests.parser.tagging.synthetic import synthetic_conllu


def trained(classifier: str, template_set: str = "left", dictionary: int = 3) -> Tagger:
    config = TaggerConfig(template_set=template_set, classifier=classifier,
                          classifier_params=classifier_options(classifier),
                          dictionary_min_count=dictionary)
    tagger = Tagger(config)
    tagger.train(sentences_from_text(synthetic_conllu(60, seed=1)))
    return tagger


def compiled_and_reference(tagger: Tagger, forms: list[list[str]]) -> tuple[list, list]:
    assert tagger.lexicon is not None
    table, entry, offsets = tagger.lexicon.encode(forms)
    expected = None
    for part in tagger.passes:
        clf = part.classifier
        ranks = {int(key): rank for rank, key in enumerate(part.vocab.keys.tolist())}

        def decision(row: list[int], clf=clf, vocab=part.vocab) -> np.ndarray:
            matrix = BinaryMatrix(np.array([0, len(row)], dtype=np.int64),
                                  np.asarray(row, dtype=np.int32), len(vocab))
            return np.atleast_1d(clf.decision_function(matrix)[0])

        expected = reference_tag(table, entry.tolist(), offsets.tolist(), ranks, decision,
                                 [int(c) for c in clf.classes_],
                                 tagger.lexicon.allowed_ptr.tolist(),
                                 tagger.lexicon.allowed.tolist(),
                                 right=expected,
                                 two_pass=part.template_set.startswith("two-pass"),
                                 one_vs_one=clf.backend == "kernel-svm",
                                 splits=part.template_set.endswith("+splits"))
    return tagger.tag_classes(forms).tolist(), expected


@pytest.mark.parametrize("classifier", ["poly2-linear", "linear", "pa-slicing", "kernel-svm"])
def test_compiled_loop_equals_reference(classifier: str) -> None:
    tagger = trained(classifier)
    forms = [s.form for s in sentences_from_text(synthetic_conllu(15, seed=9))]
    forms.append(["Unseen", "words", "zzz", "run", "."])
    got, expected = compiled_and_reference(tagger, forms)
    assert got == expected


def test_two_pass_equals_reference() -> None:
    tagger = trained("linear", "two-pass")
    assert [p.template_set for p in tagger.passes] == ["left+splits", "two-pass+splits"]
    forms = [s.form for s in sentences_from_text(synthetic_conllu(10, seed=4))]
    got, expected = compiled_and_reference(tagger, forms)
    assert got == expected


def test_tag_dictionary_restricts_frequent_words() -> None:
    tagger = trained("linear", dictionary=1)
    assert tagger.lexicon is not None
    tags = tagger.tag_forms([["the", "dog", "barked", "."]])[0]
    allowed = tagger.lexicon.allowed
    ptr = tagger.lexicon.allowed_ptr
    entry = tagger.lexicon.entries["the"]
    allowed_for_the = {tagger.classes[c] for c in allowed[ptr[entry]:ptr[entry + 1]]}
    assert (tags.upos[0], tags.xpos[0]) in allowed_for_the


@pytest.mark.parametrize("layout", ["dense", "sparse"])
@pytest.mark.parametrize("n_dense", [0, 7, 1 << 20])
def test_linear_rows_tag_as_the_scorer_does(layout: str, n_dense: int) -> None:
    from polyparse.classifiers.linear.poly2_linear import Poly2LinearScorer
    from polyparse.parser.tagging.tag_decoder import TagDecoder
    from polyparse.parser.tagging.tagger import linear_rows

    tagger = trained("linear", dictionary=0)
    assert tagger.lexicon is not None
    part = tagger.passes[0]
    scorer = part.classifier.scorer
    arrays = scorer.arrays
    if layout == "dense" and "weights" not in arrays:
        weights = np.zeros((len(scorer.index), scorer.n_outputs), dtype=np.float32)
        rows = np.repeat(np.arange(len(scorer.index)), np.diff(arrays["row_ptr"]))
        weights[rows, arrays["columns"]] = arrays["values"]
        scorer = Poly2LinearScorer(scorer.index, 1, arrays["intercept"], weights=weights)
    elif layout == "sparse" and "weights" in arrays:
        rows, columns = np.nonzero(arrays["weights"])
        row_ptr = np.zeros(len(scorer.index) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=len(scorer.index)), out=row_ptr[1:])
        scorer = Poly2LinearScorer(scorer.index, 1, arrays["intercept"], row_ptr=row_ptr,
                                   columns=columns.astype(np.int32),
                                   values=arrays["weights"][rows, columns])
    forms = [s.form for s in sentences_from_text(synthetic_conllu(20, seed=7))]
    forms.append(["Unseen", "words", "zzz", "run", "."])
    table, entry, offsets = tagger.lexicon.encode(forms)

    def decoder() -> TagDecoder:
        return TagDecoder(part.vocab.index, scorer, part.classifier.classes_.astype(np.int32),
                          "left", tagger.lexicon.allowed_ptr, tagger.lexicon.allowed)

    plain, fast = decoder(), decoder()
    fast.use_linear_rows(*linear_rows(scorer, len(part.vocab), n_dense))
    assert fast.tag(table, entry, offsets).tolist() == plain.tag(table, entry, offsets).tolist()
