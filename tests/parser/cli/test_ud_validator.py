"""Everything polyparse writes as CoNLL-U passes UD's own validator (udtools, the Python package
of the UD tools repository's validate.py, --level 2 for English): `dep parse` of CoNLL-U, of
tokens and of raw text, with the greedy and the beam-search parser, in one process and in
shards, `tag tag`, `tokenize tokenize`, and the Python API. (`ja parse` writes KNP and CaboCha,
not CoNLL-U.) The exact cases: EWT test (its empty nodes), a fixture with empty nodes and
DEPS, raw text holding each whitespace and control character UD's MISC may not hold raw, and
text in Unicode NFD.

A tokenizer's output has no trees: HEAD is "_", which level 2 reports as an invalid and an
unknown head on every word; every other check of the level applies to it.
"""
from __future__ import annotations

import io
import unicodedata
from pathlib import Path

import pytest
from udtools.argparser import parse_args_validator
from udtools.validator import Validator

import polyparse
from polyparse.parser.cli.main import main
from polyparse.parser.models.bundled import bundled_tagger
from polyparse.parser.tokenize.conllu_blocks import text_of_blocks
from tests.parser.dependency.synthetic import write_treebank

ENHANCED = Path(__file__).resolve().parents[2] / "data" / "conll" / "enhanced.conllu"
UNPARSED = ("invalid-head", "unknown-head")
# Characters that raw text may hold between words and that UD's MISC may not hold raw
# (whitespace of str.isspace beyond the ASCII space, tab and line break; control characters).
SEPARATORS = {
    "no-break space": "\u00a0", "thin space": "\u2009", "ideographic space": "\u3000",
    "line separator": "\u2028", "paragraph separator": "\u2029", "next line": "\u0085",
    "form feed": "\f", "vertical tab": "\v", "NUL": "\0", "BEL": "\a", "escape": "\x1b",
    "delete": "\x7f",
}


def ud_errors(path: Path, exclude: tuple[str, ...] = (), language: str = "en") -> str:
    """What UD's validator (level 2, the language's rules; English by default) says of a
    file: "" when it passes, else its messages and summary."""
    argv = ["--lang", language, "--level", "2", "--max-err", "0"]
    if exclude:
        argv += ["--exclude", *exclude]
    out = io.StringIO()
    args = parse_args_validator([*argv, str(path)])
    state = Validator(lang=language, level=2, args=args, output=out).validate_files([str(path)])
    return "" if state.passed() else out.getvalue() + str(state)


def raw_text(separator: str) -> str:
    """Two paragraphs whose words are separated by the character, once, twice and at the end
    of lines (where the sentence ends), and a multiword token."""
    s = separator
    return (f"The dog{s}barked. It wasn't{s}{s}late{s}\nHe {s}left.{s}\n\n"
            f"{s}A cat{s}sat.\n")


def test_the_validator_rejects_what_it_should(tmp_path: Path) -> None:
    """The oracle works: a no-break space written raw in MISC fails level 1."""
    bad = tmp_path / "bad.conllu"
    bad.write_text("# sent_id = 1\n# text = a b\n"
                   "1\ta\ta\tX\t_\t_\t0\troot\t_\tSpacesAfter=\u00a0\n"
                   "2\tb\tb\tX\t_\t_\t1\tdep\t_\t_\n\n", encoding="utf-8")
    assert "trailing-whitespace" in ud_errors(bad)
    assert ud_errors(ENHANCED) == ""


@pytest.mark.parametrize("options", [[], ["--keep-deps"], ["--workers", "2"]])
def test_dep_parse_of_empty_nodes_and_deps(options: list[str], tmp_path: Path) -> None:
    out = tmp_path / "out.conllu"
    assert main(["dep", "parse", str(ENHANCED), "-o", str(out), "--quiet", *options]) == 0
    assert ud_errors(out) == ""
    text = out.read_text(encoding="utf-8")
    assert ("5.1\tlikes" in text) == ("--keep-deps" in options)


def test_dep_parse_output_dir_parts(tmp_path: Path) -> None:
    folder = tmp_path / "parts"
    assert main(["dep", "parse", str(ENHANCED), "--output-dir", str(folder), "--quiet"]) == 0
    parts = sorted(path for path in folder.iterdir() if not path.name.startswith("_"))
    assert parts
    for part in parts:
        assert ud_errors(part) == "", part


def test_tag_tag_writes_feats_that_pass(tmp_path: Path) -> None:
    """The bundled tagger predicts FEATS: written sorted as the validator wants them."""
    out = tmp_path / "out.conllu"
    assert main(["tag", "tag", str(ENHANCED), "-o", str(out)]) == 0
    assert ud_errors(out) == ""
    words = [line.split("\t") for line in out.read_text(encoding="utf-8").splitlines()
             if line.split("\t")[0].isdigit()]
    assert len({word[5] for word in words} - {"_"}) >= 3


@pytest.mark.parametrize("name", SEPARATORS)
def test_raw_text_with_each_separator(name: str, tmp_path: Path) -> None:
    text = raw_text(SEPARATORS[name])
    source = tmp_path / "in.txt"
    source.write_text(text, encoding="utf-8")
    tokenized = tmp_path / "tokenized.conllu"
    assert main(["tokenize", "tokenize", str(source), "-o", str(tokenized)]) == 0
    assert ud_errors(tokenized, UNPARSED) == ""
    blocks = [block.split("\n") for block in
              tokenized.read_text(encoding="utf-8").strip("\n").split("\n\n")]
    assert text_of_blocks(blocks) == text, "every character accounted for"
    forms = [line.split("\t")[1] for block in blocks for line in block if line[:1].isdigit()]
    assert all(form.isprintable() and not any(c.isspace() for c in form) for form in forms)
    for fmt in ("raw", "tokens", "lines"):
        parsed = tmp_path / f"{fmt}.conllu"
        assert main(["dep", "parse", "--format", fmt, str(source), "-o", str(parsed),
                     "--quiet"]) == 0
        assert ud_errors(parsed) == "", fmt


def test_spaces_after_are_escaped_as_ud_does(tmp_path: Path) -> None:
    """UD's escapes (\\s \\t \\n \\r \\p \\\\) and \\u00A0 for the rest, never a raw character."""
    source = tmp_path / "in.txt"
    source.write_text("Dogs\u00a0bark \t loudly\u2028\u2028now.\n", encoding="utf-8")
    out = tmp_path / "out.conllu"
    assert main(["tokenize", "tokenize", str(source), "-o", str(out)]) == 0
    misc = [line.split("\t")[9] for line in out.read_text(encoding="utf-8").splitlines()
            if line[:1].isdigit()]
    assert misc == ["SpacesAfter=\\u00A0", "SpacesAfter=\\s\\t\\s",
                    "SpacesAfter=\\u2028\\u2028", "SpaceAfter=No", "SpacesAfter=\\n"]


def test_api_of_raw_text_with_separators(tmp_path: Path) -> None:
    parser = polyparse.load_parser()
    for name, separator in SEPARATORS.items():
        out = tmp_path / f"api-{len(name)}.conllu"
        out.write_text("".join(sentence.serialize() for sentence in
                               parser(raw_text(separator))), encoding="utf-8")
        assert ud_errors(out) == "", name


@pytest.mark.parametrize("fmt", ["raw", "conllu"])
def test_nfd_input_is_written_composed(fmt: str, tmp_path: Path) -> None:
    source = tmp_path / "in.txt"
    if fmt == "raw":
        source.write_text(unicodedata.normalize("NFD", "The café was naïve. Zoë left.\n"),
                          encoding="utf-8")
    else:
        source.write_text(unicodedata.normalize("NFD", ENHANCED.read_text(encoding="utf-8")
                                                .replace("Mary", "Zoë")), encoding="utf-8")
    assert not unicodedata.is_normalized("NFC", source.read_text(encoding="utf-8"))
    out = tmp_path / "out.conllu"
    assert main(["dep", "parse", "--format", fmt, str(source), "-o", str(out), "--quiet"]) == 0
    assert ud_errors(out) == ""
    assert unicodedata.is_normalized("NFC", out.read_text(encoding="utf-8"))
    if fmt == "conllu":
        tagged = tmp_path / "tagged.conllu"
        assert main(["tag", "tag", str(source), "-o", str(tagged)]) == 0
        assert ud_errors(tagged) == ""


def test_beam_search_parser_output(tmp_path: Path) -> None:
    train = write_treebank(tmp_path / "train.conllu", 80, seed=4)
    model = tmp_path / "beam.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(model), "--classifier",
                 "structured-perceptron", "--beam", "2", "--epochs", "1", "--quiet"]) == 0
    out = tmp_path / "out.conllu"
    assert main(["dep", "parse", "--model", str(model), str(ENHANCED), "-o", str(out),
                 "--quiet"]) == 0
    assert ud_errors(out) == ""
    source = tmp_path / "in.txt"
    source.write_text(raw_text("\u00a0"), encoding="utf-8")
    assert main(["dep", "parse", "--model", str(model), "--tagger", str(bundled_tagger()),
                 "--format", "raw", str(source), "-o", str(out), "--quiet"]) == 0
    assert ud_errors(out) == ""


@pytest.mark.parametrize("command", [["dep", "parse"], ["tag", "tag"]])
def test_ewt_test(command: list[str], corpora: Path, tmp_path: Path) -> None:
    """dep parse of EWT test gave three level-2 errors (24.1's DEPS kept while the words' were
    blanked); tag tag passes too."""
    out = tmp_path / "out.conllu"
    assert main([*command, str(corpora / "en_ewt" / "en_ewt-ud-test.conllu"), "-o", str(out),
                 "--quiet"]) == 0
    assert ud_errors(out) == ""
