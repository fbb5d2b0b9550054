"""`tokenize train`: a segmenter of any language learned from a treebank, used by
every command and function that reads raw text (`tokenize tokenize`, `dep parse --format raw
--tokenizer`, `polyparse.tokenize`), on the synthetic treebanks of made-up languages
(tests/parser/segmentation/synthetic.py: a script written without spaces, tokens that hold
spaces, multiword tokens) and on a real one."""
from __future__ import annotations

import io
import json
import os
import subprocess
from pathlib import Path

import pytest

from polyparse.parser.formats.conll import Sentence, read_conll
from polyparse.parser.segmentation.model import SegmenterModel
from polyparse.parser.segmentation.scoring import raw_text_scores
from polyparse.parser.tokenize.model import load_tokenizer
from tests.parser.cli.user_runs import POLYPARSE
from tests.parser.segmentation import synthetic


def polyparse(*argv: str, **run: object) -> subprocess.CompletedProcess:
    return subprocess.run([POLYPARSE, *argv], capture_output=True, text=True, check=False, **run)


def sentence_text(sentence: Sentence) -> str:
    return next(line[len("# text = "):] for line in sentence.lines
                if line.startswith("# text = "))


def covered(sentence: Sentence, line: str) -> bool:
    """Whether a word line's word is inside a multiword token's range."""
    word = int(line.split("\t")[0])
    for other in sentence.lines:
        first = other.split("\t")[0]
        if "-" in first:
            start, end = map(int, first.split("-"))
            if start <= word <= end:
                return True
    return False


def text_of(conllu: Path) -> str:
    """The raw text of a treebank: its `# text` lines, one paragraph a sentence."""
    return "".join(f"{sentence_text(sentence)}\n\n"
                   for sentence in read_conll(conllu, require_deprel=False))


@pytest.fixture(scope="module", params=["unspaced", "spaced_tokens", "multiword"])
def trained(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
            ) -> tuple[Path, Path, Path]:
    """A treebank of a made-up language (train, test) and the segmenter learned from it by
    the command line."""
    folder = tmp_path_factory.mktemp(request.param)
    make = getattr(synthetic, request.param)
    train, test = folder / "train.conllu", folder / "test.conllu"
    train.write_text(make(300, seed=1), encoding="utf-8")
    test.write_text(make(60, seed=2), encoding="utf-8")
    model = folder / "seg.model"
    result = polyparse("tokenize", "train", "--train", str(train), "--dev", str(test),
                       "--model", str(model))
    assert result.returncode == 0, result.stderr
    assert "dev: Tokens" in result.stderr
    return train, test, model


def test_the_learned_model_loads_as_a_tokenizer(trained: tuple[Path, Path, Path]) -> None:
    assert isinstance(load_tokenizer(trained[2]), SegmenterModel)
    # The bundled pipeline's tokenizer is a learned segmenter too.
    assert isinstance(load_tokenizer(), SegmenterModel)


def test_tokenize_gives_back_the_text_and_the_gold_tokens(trained: tuple[Path, Path, Path],
                                                          tmp_path: Path) -> None:
    _, test, model = trained
    raw = tmp_path / "test.txt"
    raw.write_text(text_of(test), encoding="utf-8")
    out = tmp_path / "out.conllu"
    result = polyparse("tokenize", "tokenize", "--model", str(model), str(raw), "-o", str(out))
    assert result.returncode == 0, result.stderr
    scored = polyparse("tokenize", "evaluate", str(test), str(out), "--json")
    assert scored.returncode == 0, scored.stderr
    scores = json.loads(scored.stdout)
    # The command scores what the library scores on the same text.
    library = raw_text_scores(load_tokenizer(model), test, text=raw.read_text("utf-8"))
    for metric in ("Tokens", "Sentences", "Words"):
        assert scores[metric] == pytest.approx(library[metric], abs=1e-9), metric
    assert scores["Tokens"] > 90.0 and scores["Words"] > 90.0 and scores["Sentences"] > 80.0
    # Every character of the text but whitespace is in a token, in order.
    system = list(read_conll(out, require_deprel=False))
    tokens = "".join(line.split("\t")[1] for sentence in system for line in sentence.lines
                     if line[:1].isdigit() and "." not in line.split("\t")[0]
                     and ("-" in line.split("\t")[0] or not covered(sentence, line)))
    assert "".join(tokens.split()) == "".join(raw.read_text("utf-8").split())


def test_the_python_function_takes_the_model(trained: tuple[Path, Path, Path]) -> None:
    import polyparse as api

    _, test, model = trained
    text = text_of(test)
    by_path = api.tokenize(text, model=model)
    by_model = api.tokenize(text, model=load_tokenizer(model))
    assert [s.serialize() for s in by_path] == [s.serialize() for s in by_model]
    assert len(by_path) >= 50


def test_dep_parse_reads_raw_text_with_the_learned_tokenizer(
        trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    train, test, model = trained
    parser, tagger = tmp_path / "dep.model", tmp_path / "tag.model"
    result = polyparse("dep", "train", "--train", str(train), "--model", str(parser),
                       "--classifier", "linear", "--split-threshold", "100000")
    assert result.returncode == 0, result.stderr
    result = polyparse("tag", "train", "--train", str(train), "--model", str(tagger))
    assert result.returncode == 0, result.stderr
    raw = tmp_path / "test.txt"
    raw.write_text(text_of(test), encoding="utf-8")
    command = ["dep", "parse", "--format", "raw", "--tokenizer", str(model), "--model",
               str(parser), str(raw)]
    untagged = polyparse(*command)
    assert untagged.returncode == 2 and untagged.stdout == ""
    assert untagged.stderr.count("\n") == 1 and "--tagger" in untagged.stderr
    parsed = polyparse(*command, "--tagger", str(tagger))
    assert parsed.returncode == 0, parsed.stderr
    sentences = list(read_conll(None, stream=io.StringIO(parsed.stdout)))
    assert len(sentences) >= 50
    assert all(len(sentence.head) == len(sentence) for sentence in sentences)


def test_learned_is_accepted_and_changes_nothing(tmp_path: Path) -> None:
    """`--learned` chose the learned segmenter over the English rules, which are gone: it is
    accepted and changes nothing but the training command recorded; the rules' -C is no
    option any more."""
    from polyparse.classifiers.model_file import decode_model

    train = tmp_path / "train.conllu"
    train.write_text(synthetic.unspaced(20), encoding="utf-8")
    decoded = []
    for name, flags in (("plain.model", []), ("learned.model", ["--learned"])):
        result = polyparse("tokenize", "train", *flags, "--train", str(train), "--model",
                           str(tmp_path / name))
        assert result.returncode == 0, result.stderr
        header, arrays = decode_model(bytearray((tmp_path / name).read_bytes()), name)
        assert ("--learned" in header.pop("training_command")) == bool(flags)
        decoded.append((header, {key: value.tobytes() for key, value in arrays.items()}))
    assert decoded[0] == decoded[1]
    result = polyparse("tokenize", "train", "-C", "0.5", "--train", str(train), "--model",
                       str(tmp_path / "m"))
    assert result.returncode == 2 and "-C" in result.stderr
    assert not (tmp_path / "m").exists()


def test_a_real_treebank(tmp_path: Path) -> None:
    """UD Hungarian-Szeged (CoNLL 2018's UD 2.2 files and test text): learned and run from
    the command line, its scores are the segmentation benchmark's."""
    corpora = os.environ.get("POLYPARSE_CORPORA")
    folder = Path(corpora or "") / "ud22" / "hu_szeged"
    if not corpora or not folder.is_dir():
        pytest.skip("POLYPARSE_CORPORA with ud22/hu_szeged is not set")
    model = tmp_path / "hu.model"
    result = polyparse("tokenize", "train", "--train",
                       str(folder / "hu_szeged-ud-train.conllu"), "--model", str(model))
    assert result.returncode == 0, result.stderr
    out = tmp_path / "hu.conllu"
    result = polyparse("tokenize", "tokenize", "--model", str(model),
                       str(folder / "hu_szeged-ud-test.txt"), "-o", str(out))
    assert result.returncode == 0, result.stderr
    scores = json.loads(polyparse("tokenize", "evaluate", str(folder / "hu_szeged-ud-test.conllu"),
                                  str(out), "--json").stdout)
    # UDPipe 1.2 on this test text (CoNLL 2018): Tokens 99.81, Sentences 95.58, Words 99.81.
    assert scores["Tokens"] > 99.81 and scores["Sentences"] > 95.58 and scores["Words"] > 99.81


def test_text_of_characters_the_model_never_saw_gets_one_warning_line(
        trained: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """A model of one script on another's text still cuts it, and says so once; on its own
    language's text it says nothing."""
    train, test, model = trained
    foreign = tmp_path / "foreign.txt"
    foreign.write_text("Это текст на другом языке.\n\nИ ещё одно предложение.\n" * 3,
                       encoding="utf-8")
    result = polyparse("tokenize", "tokenize", "--model", str(model), str(foreign))
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("warning:") == 1 and "never occurred" in result.stderr
    assert result.stdout.count("# text = ") >= 1
    own = tmp_path / "own.txt"
    own.write_text(text_of(test), encoding="utf-8")
    result = polyparse("tokenize", "tokenize", "--model", str(model), str(own))
    assert result.returncode == 0 and "warning" not in result.stderr
