"""`--format lines`: text already split into sentences, one a line (UDPipe's presegmented
input). Each line is one sentence, its tokens found by the tokenizer (a segmenter learned for
any language: the bundled pipeline's, or one of a made-up script), never cut nor joined to the
next; a blank line starts a paragraph."""
from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

import polyparse
from polyparse.parser.formats.conll import Sentence, read_conll
from polyparse.parser.models.bundled import bundled_gold_sample
from tests.parser.cli.user_runs import POLYPARSE
from tests.parser.segmentation import synthetic


def polyparse_run(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([POLYPARSE, *argv], capture_output=True, text=True, check=False)


def texts(sentences: list[Sentence]) -> list[str]:
    return [next(line[len("# text = "):] for line in sentence.lines
                 if line.startswith("# text = ")) for sentence in sentences]


@pytest.fixture(scope="module")
def sample() -> tuple[Path, list[str]]:
    """The bundled gold sample (EWT test's first 100 sentences) and its sentences' texts."""
    gold = bundled_gold_sample()
    if gold is None:
        pytest.skip("this installation has no bundled gold sample")
    return gold, texts(list(read_conll(gold)))


def test_each_line_is_one_sentence_of_the_english_tokenizer(sample: tuple[Path, list[str]],
                                                            tmp_path: Path) -> None:
    gold, lines = sample
    source = tmp_path / "lines.txt"
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    out = tmp_path / "out.conllu"
    result = polyparse_run("tokenize", "tokenize", "--format", "lines", str(source), "-o",
                           str(out))
    assert result.returncode == 0, result.stderr
    system = list(read_conll(out, require_deprel=False))
    assert texts(system) == lines
    scores = json.loads(polyparse_run("tokenize", "evaluate", str(gold), str(out),
                                      "--json").stdout)
    assert scores["Sentences"] == 100.0 and scores["Tokens"] > 98.0
    # The same text read as paragraphs is cut where the tokenizer's sentence classifier says.
    raw = polyparse_run("tokenize", "tokenize", "--format", "raw", str(source))
    assert len(list(read_conll(None, stream=io.StringIO(raw.stdout),
                               require_deprel=False))) != len(lines)


def test_dep_parse_of_lines(sample: tuple[Path, list[str]], tmp_path: Path) -> None:
    gold, lines = sample
    source = tmp_path / "lines.txt"
    source.write_text("".join(f"{line}\n" for line in lines), encoding="utf-8")
    result = polyparse_run("dep", "parse", "--format", "lines", str(source), "--quiet")
    assert result.returncode == 0, result.stderr
    parsed = list(read_conll(None, stream=io.StringIO(result.stdout)))
    assert texts(parsed) == lines


def test_blank_lines_start_paragraphs_and_whitespace_lines_count_as_blank() -> None:
    text = "The dog barked. It was late.\n  \t\nMr. Smith isn't here.\nBye now\n\n\nOK.\n"
    sentences = polyparse.tokenize(text, fmt="lines")
    assert [s.metadata["text"] for s in sentences] == [
        "The dog barked. It was late.", "Mr. Smith isn't here.", "Bye now", "OK."]
    assert ["newpar" in s.metadata for s in sentences] == [True, True, False, True]
    words = [token["form"] for token in sentences[1] if isinstance(token["id"], int)]
    assert words == ["Mr.", "Smith", "is", "n't", "here", "."]


def test_a_learned_segmenter_keeps_each_line_one_sentence(tmp_path: Path) -> None:
    """A made-up script written without spaces, between words or sentences: one line is one
    sentence however the sentence classifier would cut it."""
    train = tmp_path / "train.conllu"
    train.write_text(synthetic.unspaced(300, seed=1), encoding="utf-8")
    model = tmp_path / "seg.model"
    result = polyparse_run("tokenize", "train", "--train", str(train), "--model", str(model))
    assert result.returncode == 0, result.stderr
    test = list(read_conll(None, stream=io.StringIO(synthetic.unspaced(40, seed=2)),
                           require_deprel=False))
    lines = texts(test)
    pairs = ["".join(lines[k:k + 2]) for k in range(0, len(lines), 2)]
    sentences = polyparse.tokenize("".join(f"{line}\n" for line in pairs), model=model,
                                   fmt="lines")
    assert [s.metadata["text"] for s in sentences] == pairs
    forms = "".join(token["form"] for sentence in sentences for token in sentence
                    if not isinstance(token["id"], int) or not any(
                        isinstance(other["id"], tuple) and other["id"][0] <= token["id"]
                        <= other["id"][2] for other in sentence))
    assert forms == "".join(pairs)
