"""parser/srl/feature_vocab.py: ids from 1 in order of first appearance; features.vocab files."""
from __future__ import annotations

from pathlib import Path

import pytest

from polyparse.parser.srl.feature_vocab import FeatureVocabError, FirstSeenVocab


def test_ids_count_from_one_in_order_of_first_appearance() -> None:
    vocab = FirstSeenVocab()
    assert vocab.vector(["pt=NP", "lem=join", "path=NP^S!VP!VB"]) == [1, 2, 3]
    assert vocab.vector(["pt=NN", "lem=join", "pt=NP"]) == [1, 2, 4]
    assert vocab.features() == ["pt=NP", "lem=join", "path=NP^S!VP!VB", "pt=NN"]
    assert len(vocab) == 4 and vocab.n_features == 5


def test_a_frozen_vocabulary_drops_unseen_features() -> None:
    vocab = FirstSeenVocab(["a", "b", "c"], frozen=True)
    assert vocab.vector(["c", "x", "a"]) == [1, 3]
    assert len(vocab) == 3 and "x" not in vocab


def test_write_and_read_back(tmp_path: Path) -> None:
    vocab = FirstSeenVocab(["pt=NP", "hw=o'neill", "subcat=VP>VB_NP"])
    path = tmp_path / "features.vocab"
    vocab.write(path)
    assert path.read_text(encoding="utf-8") == "1\tpt=NP\n2\thw=o'neill\n3\tsubcat=VP>VB_NP\n"
    again = FirstSeenVocab.read(path)
    assert again.frozen and again.ids == vocab.ids


@pytest.mark.parametrize("text, problem", [
    ("1\tpt=NP\n3\tpt=NN\n", "2: id '3', expected 2 (ids count from 1 line by line)"),
    ("1\tpt=NP\n2 pt=NN\n", "2: expected ID<TAB>FEATURE"),
    ("1\tpt=NP\n2\tpt=NP\n", "2: feature 'pt=NP' is already id 1"),
])
def test_bad_vocabulary_files(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "features.vocab"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(FeatureVocabError) as caught:
        FirstSeenVocab.read(path)
    assert str(caught.value) == f"{path}:{problem}"
