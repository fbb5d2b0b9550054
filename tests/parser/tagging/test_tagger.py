"""Tagger model files: save/load and pickling give the same tags, the same seed the same bytes,
and a file of another kind fails in one sentence."""
from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from polyparse.classifiers.model_file import ModelFileError
from polyparse.parser.formats.tokens import sentences_from_text
from polyparse.parser.tagging.config import TaggerConfig
from polyparse.parser.tagging.conll_files import tag_missing, with_tags
from polyparse.parser.tagging.tagger import Tagger
from tests.parser.tagging.synthetic import synthetic_conllu

CONLL = Path(__file__).resolve().parents[2] / "data" / "conll"


@pytest.fixture(scope="module")
def tagger() -> Tagger:
    trained = Tagger(TaggerConfig(classifier="linear", classifier_params={"C": 0.1}))
    trained.train(sentences_from_text(synthetic_conllu(80, seed=3)))
    return trained


def test_save_load_and_pickle_tag_alike(tagger: Tagger, tmp_path: Path) -> None:
    forms = [s.form for s in sentences_from_text(synthetic_conllu(20, seed=6))]
    expected = tagger.tag_forms(forms)
    path = tmp_path / "t.model"
    tagger.save(str(path), compress=True)
    loaded = Tagger.load(path)
    assert loaded.compressed and loaded.tag_forms(forms) == expected
    assert pickle.loads(pickle.dumps(loaded)).tag_forms(forms) == expected
    assert Tagger.from_bytes(tagger.to_bytes()).tag_forms(forms) == expected


def test_same_seed_same_bytes(tagger: Tagger) -> None:
    again = Tagger(tagger.config)
    again.train(sentences_from_text(synthetic_conllu(80, seed=3)))
    assert again.to_bytes() == tagger.to_bytes()


def test_features_and_lemma_scripts_same_bytes_whatever_the_threads() -> None:
    sentences = sentences_from_text(synthetic_conllu(60, seed=4, features=True))
    models = []
    for threads in (1, 2):
        tagger = Tagger(TaggerConfig(threads=threads, xpos="apart", dictionary_min_count=3))
        tagger.train(sentences)
        assert tagger.columns == ("UPOS", "XPOS", "FEATS", "LEMMA")
        models.append(tagger.to_bytes())
    assert models[0] == models[1]
    loaded = Tagger.from_bytes(models[0])
    forms = [s.form for s in sentences_from_text(synthetic_conllu(10, seed=8))]
    assert loaded.tag_forms(forms) == tagger.tag_forms(forms)
    assert all(len(tags.feats or []) == len(tags.upos) for tags in loaded.tag_forms(forms))


def test_another_file_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(ModelFileError) as error:
        Tagger.load(CONLL / "good.conllu")
    assert "good.conllu" in str(error.value) and "\n" not in str(error.value)


def test_tag_missing_fills_only_missing_columns(tagger: Tagger) -> None:
    text = synthetic_conllu(2, seed=1)
    gold = sentences_from_text(text)
    lines = text.splitlines()
    blank = []
    for line in lines:
        columns = line.split("\t")
        if len(columns) == 10 and columns[0] == "2":
            columns[3] = "_"  # the second word of each sentence loses its UPOS only
        blank.append("\t".join(columns))
    sentences = sentences_from_text("\n".join(blank) + "\n")
    filled = tag_missing(tagger, sentences)
    for before, after, right in zip(sentences, filled, gold):
        assert after.xpos == before.xpos and after.lemma == before.lemma
        assert after.upos[0] == before.upos[0] and after.upos[1] != "_"
        assert after.upos == right.upos
    untouched = tag_missing(tagger, gold)
    assert [s.lines for s in untouched] == [s.lines for s in gold]
    retagged = with_tags(gold[0], tagger.tag(gold[:1])[0])
    assert retagged.lines[0] == gold[0].lines[0]
