"""The Python API's inputs: it says what the command line says of input
that cannot give the model what it needs (an InputWarning, which users can filter by its
category), takes CoNLL-U text and TokenLists wherever it takes files, and names what it
takes when given something else."""
from __future__ import annotations

import warnings

import pytest

import polyparse


@pytest.fixture(scope="module")
def parser(tmp_path_factory: pytest.TempPathFactory) -> polyparse.Parser:
    """The bundled pipeline's parser layer as a model file of its own: a parser without a
    tagger."""
    from polyparse.classifiers.pipeline_file import pipeline_layers

    bundled = polyparse.bundled_model()
    model = tmp_path_factory.mktemp("parser") / "parser.model"
    model.write_bytes(pipeline_layers(bundled.read_bytes(), str(bundled))["parser"])
    return polyparse.load_parser(model)


def test_untagged_words_warn(parser: polyparse.Parser) -> None:
    with pytest.warns(polyparse.InputWarning, match='4 of 4 words have no XPOS'):
        parser.parse([["The", "dog", "barked", "."]])


def test_the_bundled_parser_tags_untagged_words() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (tree,) = polyparse.load_parser().parse([["The", "dog", "barked", "."]])
    assert [token["upos"] for token in tree] == ["DET", "NOUN", "VERB", "PUNCT"]
    assert [token["deprel"] for token in tree] == ["det", "nsubj", "root", "punct"]


def test_tagged_words_do_not(parser: polyparse.Parser) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        (tree,) = parser.parse([[("The", "DET", "DT"), ("dog", "NOUN", "NN"),
                                 ("barked", "VERB", "VBD"), (".", "PUNCT", ".")]])
    assert [token["deprel"] for token in tree] == ["det", "nsubj", "root", "punct"]


def test_the_warning_can_be_filtered_by_its_category(parser: polyparse.Parser) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.simplefilter("ignore", polyparse.InputWarning)
        parser.parse([["The", "dog", "barked", "."]])


@pytest.mark.parametrize("given", [b"1\tdog", 3, 2.5, None, {"form": "dog"}])
def test_parse_names_what_it_takes(parser: polyparse.Parser, given: object) -> None:
    """Issue 22, C5: one TypeError that says what is accepted."""
    with pytest.raises(TypeError, match="parse takes CoNLL-U text"):
        parser.parse(given)


def test_empty_inputs_agree(parser: polyparse.Parser) -> None:
    assert parser.parse("") == "" and parser.parse([]) == []


@pytest.mark.parametrize("settings, problem", [
    ({"rare_threshold": -3}, "a rare_threshold count must be >= 0"),
    ({"rare_threshold": "many"}, "rare_threshold must be a count"),
    ({"eval_mode": "bogus"}, "unknown evaluation mode 'bogus'"),
])
def test_load_parser_checks_its_settings(settings: dict, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        polyparse.load_parser(**settings)


def test_load_parser_of_a_missing_model_or_a_folder(tmp_path) -> None:
    for path, problem in ((tmp_path / "none.model", "No such file or directory"),
                          (tmp_path, "is a folder, not a file")):
        with pytest.raises(polyparse.InputError, match=problem):
            polyparse.load_parser(path)


def treebank_text(corpus_file, n: int = 30) -> str:
    return "".join(block + "\n\n" for block in corpus_file.read_text(
        encoding="utf-8").split("\n\n")[:n])


def test_train_parser_and_evaluate_take_text_and_tokenlists(corpora) -> None:
    import conllu

    text = treebank_text(corpora / "en_ewt" / "en_ewt-ud-dev.conllu")
    from_text, _ = polyparse.train_parser(text, classifier="linear", split_column="none")
    from_lists, _ = polyparse.train_parser(conllu.parse(text), classifier="linear",
                                           split_column="none")
    assert from_text.to_bytes() == from_lists.to_bytes()
    assert polyparse.evaluate(text, conllu.parse(text))["LAS"] == 100.0


def test_tokenlists_with_fewer_fields(corpora, parser: polyparse.Parser) -> None:
    """A TokenList read with fewer fields parses when it has what the model reads (XPOS and
    FEATS), and names the missing column when it has not."""
    import conllu

    text = treebank_text(corpora / "en_ewt" / "en_ewt-ud-test.conllu", 5)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        few = parser.parse(conllu.parse(text, fields=["id", "form", "lemma", "upos", "xpos",
                                                      "feats"]))
    assert [[t["deprel"] for t in s] for s in few] == [
        [t["deprel"] for t in s] for s in parser.parse(conllu.parse(text))]
    with pytest.warns(polyparse.InputWarning, match="have no XPOS"):
        parser.parse(conllu.parse(text, fields=["id", "form"]))


def test_a_missing_training_file_is_an_input_error(tmp_path) -> None:
    with pytest.raises(polyparse.InputError, match="No such file or directory"):
        polyparse.train_parser(tmp_path / "none.conllu")


def test_every_public_function_and_method_has_a_docstring() -> None:
    """Issue 22, C5: the Python API's modules document every public name."""
    import ast
    from pathlib import Path

    missing = []
    for module in sorted(Path(polyparse.__file__).parent.glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if (isinstance(node, (ast.FunctionDef, ast.ClassDef))
                    and not node.name.startswith("_") and ast.get_docstring(node) is None):
                missing.append(f"{module.name}:{node.lineno} {node.name}")
    assert missing == []
