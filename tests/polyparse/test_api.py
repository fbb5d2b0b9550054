"""`import polyparse`: the public Python face takes what users hold and fails clearly."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import conllu
import numpy as np
import pytest

import polyparse
from polyparse.parser.cli.main import main
from polyparse.parser.dependency.config import ParserConfig
from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.models.bundled import bundled_example
from tests.classifiers.kernel_svm.test_kernel_svm import random_problem
from tests.parser.dependency.synthetic import write_treebank


@pytest.fixture(scope="module")
def treebanks(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("treebanks")
    return (write_treebank(folder / "train.conllu", 200, seed=4),
            write_treebank(folder / "dev.conllu", 30, seed=9))


@pytest.fixture(scope="module")
def trained(treebanks: tuple[Path, Path]) -> tuple[polyparse.Parser, dict]:
    train, dev = treebanks
    return polyparse.train_parser(train, dev, split_threshold=100, classifier="linear", C=0.5)


def test_import_works_outside_the_checkout(tmp_path: Path) -> None:
    """The installed package (not the working tree) provides polyparse and its command."""
    env = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, "-c", "import polyparse, sys; p = polyparse.load_parser(); "
         "print(polyparse.__version__, type(p).__name__)"],
        cwd=tmp_path, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[1] == "Parser"


def test_every_input_kind_gives_the_command_line_trees(capsys: pytest.CaptureFixture) -> None:
    parser = polyparse.load_parser()
    example = bundled_example()
    assert main(["dep", "parse", str(example)]) == 0
    expected = capsys.readouterr().out
    text = example.read_text(encoding="utf-8")
    assert parser.parse(text) == expected
    tokenlists = conllu.parse(text)
    parsed = parser.parse(tokenlists)
    assert "".join(tokens.serialize() for tokens in parsed) == expected
    assert parser.parse(tokenlists[1]).serialize() == conllu.parse(expected)[1].serialize()
    assert [t.serialize() for t in parser.parse(iter(tokenlists))] == \
        [t.serialize() for t in parsed]
    tagged = [[(t["form"], t["upos"], t["xpos"]) for t in tokens] for tokens in tokenlists]
    from_tuples = parser.parse(tagged)
    assert [[(t["head"], t["deprel"]) for t in tokens] for tokens in from_tuples] == \
        [[(t["head"], t["deprel"]) for t in tokens] for tokens in parsed]
    assert parser.parse([]) == []


def test_training_from_files_and_from_tokenlists_agree(
        treebanks: tuple[Path, Path], trained: tuple[polyparse.Parser, dict],
        tmp_path: Path) -> None:
    parser, scores = trained
    assert scores["UAS"] > 90 and scores["LAS"] > 90
    train, dev = treebanks
    again, _ = polyparse.train_parser(conllu.parse(train.read_text()), split_threshold=100,
                                      classifier="linear", C=0.5)
    dev_text = dev.read_text()
    assert again.parse(dev_text) == parser.parse(dev_text)
    parser.save(tmp_path / "syn.model")
    loaded = polyparse.load_parser(tmp_path / "syn.model")
    assert loaded.parse(dev_text) == parser.parse(dev_text)
    system = tmp_path / "pred.conllu"
    system.write_text(loaded.parse(dev_text), encoding="utf-8")
    from_files = polyparse.evaluate(dev, system)
    assert from_files == polyparse.evaluate(conllu.parse(dev_text),
                                            conllu.parse(system.read_text()))
    assert from_files["UAS"] == scores["UAS"]


def test_settings_are_checked_before_any_data_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "missing.conllu"
    with pytest.raises(ValueError, match="degree applies to kernel-svm and pa-slicing, not linear"):
        polyparse.train_parser(missing, classifier="linear", degree=3)
    with pytest.raises(ValueError, match="unknown classifier 'bogus'"):
        polyparse.train_parser(missing, classifier="bogus")
    with pytest.raises(ValueError, match="C must be positive"):
        polyparse.train_parser(missing, C=0)
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        polyparse.train_parser(missing, classifier="pa-slicing", iterations=0)
    with pytest.raises(ValueError, match="unknown classifier 'bogus'"):
        ParserConfig(classifier="bogus")
    with pytest.raises(polyparse.InputError, match="No such file or directory"):
        polyparse.train_parser(missing)


def test_bad_input_raises_clear_exceptions(trained: tuple[polyparse.Parser, dict]) -> None:
    parser, _ = trained
    with pytest.raises(RuntimeError, match="not trained"):
        polyparse.Parser(DependencyParser(ParserConfig())).parse([["dog"]])
    with pytest.raises(polyparse.InputError, match=r"^<text>:1: "):
        parser.parse("1\tdog\n\n")
    with pytest.raises(TypeError, match="sentence 1 is a str"):
        parser.parse(["the dog"])
    with pytest.raises(TypeError, match=r"sentence 1 is the tuple \('the', 'DET'\), which reads "
                                        "as one tagged word; give a list of sentences"):
        parser.parse([("the", "DET"), ("dog", "NOUN")])
    with pytest.warns(polyparse.InputWarning, match="have no XPOS"):  # untagged, no tagger
        assert len(parser.parse([["the", "dog"], ("a", "cat", "barked", ".")])) == 2
    with pytest.raises(TypeError, match="sentence 1, word 2"):
        parser.parse([[("the", "DET"), 3]])
    with pytest.raises(ValueError, match="sentence 2 has no words"):
        parser.parse([[("the", "DET")], []])
    with pytest.raises(ValueError, match="holds a tab"):
        parser.parse([[("the\tdog", "DET")]])
    with pytest.raises(polyparse.InputError):
        polyparse.load_parser(Path(__file__))


def test_classifiers_train_save_load_and_convert(tmp_path: Path) -> None:
    X, y = random_problem(300, 40, [1, 2, 3], seed=2)
    clf = polyparse.train_classifier(X, y, "kernel-svm", degree=2, gamma=0.5, coef0=1.0)
    clf.save(tmp_path / "k.model")
    loaded = polyparse.load_classifier(tmp_path / "k.model")
    np.testing.assert_array_equal(loaded.decision_function(X), clf.decision_function(X))
    split = polyparse.convert_classifier(loaded, "split")
    np.testing.assert_allclose(split.decision_function(X), clf.decision_function(X),
                               rtol=1e-9, atol=1e-9)
    assert (split.predict(X) == clf.predict(X)).all()
    polyparse.write_svmlight(tmp_path / "x.svm", X, y)
    X_read, y_read = polyparse.read_svmlight(tmp_path / "x.svm")
    np.testing.assert_array_equal(loaded.predict(X_read), clf.predict(X))
    linear = polyparse.train_classifier(X, y, "linear")
    with pytest.raises(ValueError, match="holds a linear model"):
        polyparse.convert_classifier(linear, "split")
    with pytest.raises(ValueError, match="unknown classifier"):
        polyparse.train_classifier(X, y, "bogus")


def test_tokenize_and_parse_plain_text() -> None:
    import warnings

    import polyparse
    from polyparse.features.errors import InputWarning

    sentences = polyparse.tokenize("The dog barked. It wasn't late.\n\nA new one")
    assert [s.metadata["text"] for s in sentences] == ["The dog barked.", "It wasn't late.",
                                                       "A new one"]
    assert "newpar" in sentences[2].metadata
    assert [t["form"] for t in sentences[1]] == ["It", "wasn't", "was", "n't", "late", "."]
    assert polyparse.tokenize("a b\n", fmt="tokens")[0].metadata["text"] == "a b"
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parsed = polyparse.load_parser()("The dog barked. It was late.")
    assert not any(issubclass(w.category, InputWarning) for w in caught)
    assert len(parsed) == 2 and all(t["head"] is not None for s in parsed for t in s)
    assert [(t["form"], t["upos"], t["head"], t["deprel"]) for t in parsed[0]] == [
        ("The", "DET", 2, "det"), ("dog", "NOUN", 3, "nsubj"), ("barked", "VERB", 0, "root"),
        (".", "PUNCT", 3, "punct")]
    assert polyparse.load_parser()("  \n") == []


def test_plain_text_given_to_parse_says_to_call_the_parser() -> None:
    """parse("The dog barked.") said only "expected 10 tab-separated columns, found 1"."""
    parser = polyparse.load_parser()
    with pytest.raises(polyparse.InputError) as caught:
        parser.parse("The dog barked.")
    assert str(caught.value) == (
        "<text>:1: expected 10 tab-separated columns, found 1: parse() takes CoNLL-U; plain "
        "text goes through parser(text), which splits it into sentences and tokens, tags and "
        "parses it")
    with pytest.raises(polyparse.InputError) as caught:
        parser.parse("1\tdog\n\n")
    assert "parser(text)" not in str(caught.value)
    assert [token["form"] for token in parser("The dog barked.")[0]] == [
        "The", "dog", "barked", "."]


def test_bundled_english_model_by_name(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """load_parser("en_ewt") names the bundled model, as load_japanese_parser("ja_wac") does;
    so does dep parse --model en_ewt."""
    named, default = polyparse.load_parser("en_ewt"), polyparse.load_parser()
    assert named.to_bytes() == default.to_bytes() and named.tagger_path == default.tagger_path
    text = bundled_example().read_text(encoding="utf-8")
    assert named.parse(text) == default.parse(text)
    assert main(["dep", "parse", "--model", "en_ewt", str(bundled_example())]) == 0
    assert capsys.readouterr().out == default.parse(text)
    with pytest.raises(polyparse.InputError):
        polyparse.load_parser("en_ewt2")


def test_evaluate_takes_the_tokenlists_parse_gives() -> None:
    parser = polyparse.load_parser()
    sentence = parser.parse([[("The", "DET"), ("dog", "NOUN"), ("barked", "VERB"),
                              (".", "PUNCT")]])[0]
    scores = polyparse.evaluate(sentence, sentence)
    assert scores["UAS"] == scores["LAS"] == 100.0 and scores["words"] == 4
    assert polyparse.evaluate([sentence], sentence)["words"] == 4


def test_unknown_classifier_lists_every_classifier(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as caught:
        polyparse.train_parser(tmp_path / "missing.conllu", classifier="bogus")
    assert str(caught.value) == ("unknown classifier 'bogus' (available: poly2-linear, linear, "
                                 "kernel-svm, pa-slicing, structured-perceptron)")
