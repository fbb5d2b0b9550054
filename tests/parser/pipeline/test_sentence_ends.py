"""A parser trained on runs of sentences cuts raw text's segments where it finds sentence ends
(the parser stage with sentence_ends; parser/tokenize/block_cuts.py): the pieces are numbered
on, hold their own `# text`, give back the text, keep multiword tokens whole, and pass UD's
validator; CoNLL-U input and text of one sentence a line are never cut."""
from __future__ import annotations

from pathlib import Path

import pytest

from polyparse.parser.dependency.beam_config import BeamConfig
from polyparse.parser.dependency.beam_parser import BeamParser
from polyparse.parser.dependency.training import train_beam_parser
from polyparse.parser.formats.conll import Sentence, read_conll, write_conll
from polyparse.parser.pipeline.word_stages import ParseTrees, parse_pipeline
from polyparse.parser.tokenize.block_cuts import cut_block, token_starts
from polyparse.parser.tokenize.conllu_blocks import sentence_of, set_word_columns, text_of_blocks
from polyparse.parser.tokenize.segmenter import TokenizedSentence
from tests.parser.dependency.synthetic import write_treebank


@pytest.fixture(scope="module")
def runs_parser(tmp_path_factory: pytest.TempPathFactory) -> BeamParser:
    folder = tmp_path_factory.mktemp("ends")
    train = list(read_conll(write_treebank(folder / "train.conllu", 200, seed=1)))
    parser, _ = train_beam_parser(train, BeamConfig(beam=4, epochs=4, seed=3, sentence_runs=3))
    return parser


@pytest.fixture(scope="module")
def gold(tmp_path_factory: pytest.TempPathFactory) -> list[Sentence]:
    folder = tmp_path_factory.mktemp("ends_test")
    return list(read_conll(write_treebank(folder / "test.conllu", 30, seed=5)))


def segment(sentences: list[Sentence], sent_id: int, joined_word: bool = False) -> Sentence:
    """The sentences as one tagged segment of raw text, as the tokenizer gives it: tokens
    separated by one space, a line break after the last; joined_word: the last word of the
    first sentence and the first of the second are one multiword token."""
    forms = [form for sentence in sentences for form in sentence.form]
    tokens, words = list(forms), [[form] for form in forms]
    if joined_word:
        cut = len(sentences[0])
        tokens[cut - 1:cut + 1] = [forms[cut - 1] + forms[cut]]
        words[cut - 1:cut + 1] = [[forms[cut - 1], forms[cut]]]
    spaces = [" "] * (len(tokens) - 1) + ["\n"]
    block = sentence_of(TokenizedSentence(tokens, spaces, words, sent_id == 1), str(sent_id))
    set_word_columns(block, **{column: [v for s in sentences for v in getattr(s, column)]
                               for column in ("lemma", "upos", "xpos")})
    return block


def test_segments_are_cut_at_the_sentence_ends_the_parser_finds(
        runs_parser: BeamParser, gold: list[Sentence], tmp_path: Path) -> None:
    pairs = [gold[i:i + 2] for i in range(0, len(gold), 2)]
    segments = [segment(pair, k) for k, pair in enumerate(pairs, 1)]
    stage = ParseTrees(runs_parser, sentence_ends=True)
    stage.begin("<test>")
    out = stage(segments)
    assert [s.form for s in out][:2] == [gold[0].form, gold[1].form]
    assert sum(s.form in [g.form for g in gold] for s in out) >= 0.9 * len(gold)
    assert all(s.head.count(0) == 1 for s in out)
    ids = [line for s in out for line in s.lines if line.startswith("# sent_id")]
    assert ids == [f"# sent_id = {k}" for k in range(1, len(out) + 1)]
    for piece in out:
        text = next(line for line in piece.lines if line.startswith("# text = "))
        assert text == "# text = " + " ".join(piece.form)
    assert text_of_blocks([s.lines for s in out]) == text_of_blocks([s.lines for s in segments])
    assert stage.done() is not None and "sentence ends" in stage.done()
    path = tmp_path / "out.conllu"
    with path.open("w", encoding="utf-8") as handle:
        for piece in out:
            write_conll(piece, piece.head, piece.deprel, handle)
    from tests.parser.cli.test_ud_validator import ud_errors

    assert ud_errors(path) == ""


def test_a_multiword_token_is_never_cut(runs_parser: BeamParser,
                                        gold: list[Sentence]) -> None:
    joined = segment(gold[:2], 1, joined_word=True)
    assert token_starts(joined).count(False) == 1
    stage = ParseTrees(runs_parser, sentence_ends=True)
    out = stage([joined])
    assert len(out) == 1 and out[0].head.count(0) == 1
    assert out[0].lines == joined.lines


def test_cut_block_renumbers_words_ranges_and_heads(gold: list[Sentence]) -> None:
    block = segment(gold[:3], 1)
    a, b = len(gold[0]), len(gold[1])
    heads = gold[0].head + [h + a if h else 0 for h in gold[1].head] + [
        h + a + b if h else 0 for h in gold[2].head]
    block.head[:] = heads
    pieces = cut_block(block, [0, a, a + b], ["1", "2", "3"])
    assert [p.head for p in pieces] == [g.head for g in gold[:3]]
    assert [p.lines[p.word_lines[0]].split("\t")[0] for p in pieces] == ["1", "1", "1"]
    assert pieces[0].lines[:2] == ["# newpar", "# sent_id = 1"]
    assert [p.lines[:2] for p in pieces[1:]] == [
        ["# sent_id = 2", "# text = " + " ".join(gold[1].form)],
        ["# sent_id = 3", "# text = " + " ".join(gold[2].form)]]


def test_conllu_input_and_lines_keep_one_root_a_sentence(
        runs_parser: BeamParser, gold: list[Sentence]) -> None:
    pairs = [segment(gold[i:i + 2], k) for k, i in enumerate(range(0, len(gold), 2), 1)]
    for pipeline in (parse_pipeline(runs_parser), parse_pipeline(runs_parser,
                                                                 sentence_ends=False)):
        out = pipeline.run(pairs)
        assert len(out) == len(pairs) and all(s.head.count(0) == 1 for s in out)


def unpunctuated(path: Path, n: int, seed: int) -> Path:
    """A synthetic treebank whose sentences lack their final full stop, with `# text`."""
    blocks = []
    for sentence in read_conll(write_treebank(path, n, seed)):
        words = [sentence.lines[i].split("\t") for i in sentence.word_lines][:-1]
        lines = [f"# sent_id = {len(blocks) + 1}",
                 "# text = " + " ".join(columns[1] for columns in words)]
        blocks.append("\n".join(lines + ["\t".join(columns) for columns in words]) + "\n\n")
    path.write_text("".join(blocks), encoding="utf-8")
    return path


def test_a_beam_pipeline_on_runs_chooses_on_dev_whether_the_parser_cuts(
        tmp_path: Path) -> None:
    """Text without sentence punctuation, one paragraph: the pipeline learned with
    --sentence-runs scores dev's raw text both ways, keeps its choice, and `dep parse
    --format raw` writes sentences numbered on that give back the text."""
    import subprocess

    from polyparse.classifiers.model_file import decode_model
    from tests.parser.cli.test_ud_validator import ud_errors
    from tests.parser.cli.user_runs import POLYPARSE

    train = unpunctuated(tmp_path / "train.conllu", 300, seed=1)
    dev = unpunctuated(tmp_path / "dev.conllu", 60, seed=2)
    model = tmp_path / "model"
    done = subprocess.run([POLYPARSE, "pipeline", "train", "--train", train, "--dev", dev,
                           "--model", model, "--classifier", "structured-perceptron",
                           "--beam", "4", "--epochs", "3", "--sentence-runs", "3", "--folds",
                           "0", "--quiet"], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    chosen = decode_model(model.read_bytes(), str(model))[0]["dev_scores"]["raw text"]
    assert set(chosen) == {"whole segments", "cut by the parser", "parser cuts"}
    assert chosen["parser cuts"] == (
        chosen["cut by the parser"]["LAS"] > chosen["whole segments"]["LAS"]
        and chosen["cut by the parser"]["Sentences"] >= chosen["whole segments"]["Sentences"])
    test = unpunctuated(tmp_path / "test.conllu", 40, seed=5)
    text = " ".join(line[len("# text = "):] for line in test.read_text().splitlines()
                    if line.startswith("# text = ")) + "\n"
    (tmp_path / "test.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "out.conllu"
    done = subprocess.run([POLYPARSE, "dep", "parse", "--model", model, "--format", "raw",
                           tmp_path / "test.txt", "-o", out], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    written = list(read_conll(out))
    ids = [line for s in written for line in s.lines if line.startswith("# sent_id")]
    assert ids == [f"# sent_id = {k}" for k in range(1, len(written) + 1)]
    assert text_of_blocks([s.lines for s in written]) == text
    assert ("the parser found sentence ends" in done.stderr) == (
        chosen["parser cuts"] and len(written) > 1)
    assert ud_errors(out) == ""
