"""`polyparse tokenize` and `dep parse --format raw|tokens`: text in, CoNLL-U out; bad input and
options in one line; a closed pipe ends quietly; a paragraph is written as soon as it ends."""
from __future__ import annotations

import json
import signal
import sys
from pathlib import Path

import pytest

from polyparse.parser.cli.main import main
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.tokenize.conllu_blocks import text_of_blocks
from tests.parser.cli.user_runs import (
    POLYPARSE,
    check_a_closed_pipe_ends_quietly,
    check_a_signal_while_parsing_leaves_nothing,
    one_line,
    polyparse,
)

TEXT = ("The dog barked. It wasn't late, was it?\n"
        "Mr. Smith e-mailed john@example.com at 3:30.\n"
        "\n"
        "We're gonna  see (and hear) it all...\n")


def one_error_line(capsys: pytest.CaptureFixture, code: int, *expected: str) -> str:
    err = capsys.readouterr().err.strip()
    assert code != 0 and len(err.splitlines()) == 1 and "Traceback" not in err, err
    for text in expected:
        assert text in err, err
    return err


def test_tokenize_writes_conllu_that_gives_the_text_back(tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    source.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["tokenize", "tokenize", str(source), "-o", str(out)]) == 0
    sentences = list(read_conll(out, require_deprel=False))
    assert text_of_blocks(s.lines for s in sentences) == TEXT
    texts = [line[9:] for s in sentences for line in s.lines if line.startswith("# text = ")]
    assert texts == ["The dog barked.", "It wasn't late, was it?",
                     "Mr. Smith e-mailed john@example.com at 3:30.",
                     "We're gonna  see (and hear) it all..."]
    assert sentences[3].form[:4] == ["We", "'re", "gon", "na"]
    assert "# newpar" in sentences[3].lines and "# newpar" not in sentences[2].lines


def test_dep_parse_reads_raw_text_and_tokens(tmp_path: Path, capsys) -> None:
    source = tmp_path / "in.txt"
    source.write_text(TEXT, encoding="utf-8")
    out = tmp_path / "parsed.conllu"
    assert main(["dep", "parse", "--format", "raw", str(source), "-o", str(out)]) == 0
    parsed = list(read_conll(out, require_tree=True))
    assert len(parsed) == 4 and text_of_blocks(s.lines for s in parsed) == TEXT
    tokens = tmp_path / "tokens.txt"
    tokens.write_text("I do n't know .\nShe ca n't either\n", encoding="utf-8")
    assert main(["dep", "parse", "--format", "tokens", str(tokens), "-o", str(out)]) == 0
    assert [s.form for s in read_conll(out, require_tree=True)] == [
        ["I", "do", "n't", "know", "."], ["She", "ca", "n't", "either"]]


def test_tokenize_evaluate(tmp_path: Path, capsys) -> None:
    gold = tmp_path / "gold.conllu"
    assert main(["tokenize", "tokenize", str(_write(tmp_path, TEXT)), "-o", str(gold)]) == 0
    capsys.readouterr()
    assert main(["tokenize", "evaluate", str(gold), str(gold), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["Tokens"] == scores["Sentences"] == scores["Words_recall"] == 100.0


def _write(folder: Path, text: str) -> Path:
    path = folder / "text.txt"
    path.write_text(text, encoding="utf-8")
    return path


def test_bad_input_is_one_line(tmp_path: Path, capsys) -> None:
    latin = tmp_path / "latin.txt"
    latin.write_bytes("Ol\xe9 amigo.\nSecond line \xff.\n".encode("latin-1"))
    one_error_line(capsys, main(["tokenize", "tokenize", str(latin)]), "latin.txt:1:",
                   "not valid utf-8")
    one_error_line(capsys, main(["dep", "parse", "--format", "raw", str(latin)]),
                   "latin.txt:1:")
    assert main(["tokenize", "tokenize", "--encoding", "latin-1", str(latin),
                 "-o", str(tmp_path / "ok.conllu")]) == 0


def test_options_are_checked_before_reading(tmp_path: Path, capsys) -> None:
    one_error_line(capsys, main(["dep", "parse", "--tokenizer", "x.model", "-"]),
                   "--tokenizer applies to --format raw or tokens")
    one_error_line(capsys, main(["dep", "parse", "--format", "raw", "--workers", "2",
                                 str(tmp_path / "missing.txt")]),
                   "--format raw is read in one process")
    one_error_line(capsys, main(["tokenize", "tokenize", str(tmp_path / "missing.txt")]),
                   "missing.txt")
    not_a_model = _write(tmp_path, "plain text\n")
    one_error_line(capsys, main(["tokenize", "tokenize", "--model", str(not_a_model),
                                 str(not_a_model)]), "text.txt")
    from polyparse.parser.models.bundled import bundled_japanese_model

    parser_model = bundled_japanese_model()
    one_error_line(capsys, main(["tokenize", "tokenize", "--model", str(parser_model),
                                 str(not_a_model)]), parser_model.name)
    one_error_line(capsys, main(["dep", "parse", "--format", "raw", "--tokenizer",
                                 str(parser_model), str(not_a_model)]), parser_model.name)


def rule_tokenizer_model(path: Path) -> Path:
    """A model file of the English rule tokenizer that polyparse once trained (format
    polyparse-tokenizer: a lexicon in the header, sentence-classifier weights)."""
    import numpy as np

    from polyparse.classifiers.model_file import encode_model, string_arrays

    header = {"format": "polyparse-tokenizer", "format_version": 1, "bias": -0.5,
              "whole": ["U.S."], "exceptions": {}, "hyphen_prefixes": ["non"],
              "multiword_lengths": {"gonna": [3, 2]}, "multiword_spelled": {}}
    arrays = {"weights": np.array([1.0]), **string_arrays("features", ["t=."])}
    path.write_bytes(bytes(encode_model(header, arrays, compress=True)))
    return path


def test_a_rule_tokenizer_model_is_refused_in_one_line(tmp_path: Path, capsys) -> None:
    """The English rules are gone: their model file, alone or as a pipeline's tokenizer, gets
    one line saying so and how to learn a tokenizer, from every command and from Python."""
    import polyparse as api
    from polyparse.classifiers.model_file import ModelFileError
    from polyparse.classifiers.pipeline_file import pipeline_bytes

    old = rule_tokenizer_model(tmp_path / "en_tokenizer.model")
    pipeline = tmp_path / "old.pipeline"
    pipeline.write_bytes(bytes(pipeline_bytes({"tokenizer": old.read_bytes()})))
    text = _write(tmp_path, "The dog barked.\n")
    expected = ("no longer reads", "polyparse tokenize train --train TREEBANK",
                "polyparse pipeline train")
    for model in (old, pipeline):
        one_error_line(capsys, main(["tokenize", "tokenize", "--model", str(model), str(text)]),
                       f"{model.name}: an English rule tokenizer's model", *expected)
    one_error_line(capsys, main(["dep", "parse", "--format", "raw", "--tokenizer", str(old),
                                 str(text)]), old.name, *expected)
    with pytest.raises(ModelFileError, match="no longer reads") as raised:
        api.tokenize("The dog barked.", model=old)
    assert len(str(raised.value).splitlines()) == 1
    result = polyparse("tokenize", "tokenize", "--model", str(old), str(text))
    assert result.stdout == ""
    one_line(result, old.name, *expected)


@pytest.mark.parametrize("command", [["tokenize", "tokenize"], ["dep", "parse", "--format",
                                                                   "raw"]])
def test_a_paragraph_is_written_when_it_ends_and_a_closed_pipe_ends_quietly(
        command: list[str]) -> None:
    first = b"One sentence here. And another one.\n\n"
    check_a_closed_pipe_ends_quietly([POLYPARSE, *command], first, b"\n\n", 2,
                                     b"More text.\n\n" * 1000)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_writing_leaves_nothing(tmp_path: Path, signum: int) -> None:
    check_a_signal_while_parsing_leaves_nothing(
        [POLYPARSE, "tokenize", "tokenize", "-", "-o", str(tmp_path / "out.conllu")],
        b"One sentence here. And another one.\n\n", tmp_path, signum,
        bar=b"tokenizing")


def test_the_command_runs_as_users_run_it(tmp_path: Path) -> None:
    result = polyparse("tokenize", "tokenize", "--format", "tokens", input="a b c\n")
    assert result.returncode == 0 and "# text = a b c" in result.stdout, result.stderr
    assert sys.executable
