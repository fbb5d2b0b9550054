"""The model and example that ship inside the package: parsing with no --model, and the scores
parser/models/en_ewt.md documents."""
from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

from polyparse.parser.cli.main import main
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.models.bundled import bundled_example, bundled_model, bundled_tagger
from tests.parser.dependency.test_arc_eager import is_tree

NOTE = Path(__file__).resolve().parents[3] / "parser" / "models" / "en_ewt.md"
# sha256 of the bundled pipeline's parse of UD English-EWT 2.16 test (its gold tags), since the
# pipeline replaced the three bundled files (the kernel parser's: 8dca9067... before).
EWT_TEST_PARSE_SHA256 = "33c60aad4a7b4f1a0db303e5c01ce02cec35ba918f3f0ff4e1342b9f9ca84bc7"
# ... and of EWT test with every XPOS blanked, the bundled tagger filling it in (UPOS kept).
EWT_TEST_NO_XPOS_PARSE_SHA256 = "45a0f3d7ee2789c495f25d1f1e50654135129fa44c65e63de6073006be67cc92"


def test_the_package_holds_a_model_and_an_example() -> None:
    model, tagger, example = bundled_model(), bundled_tagger(), bundled_example()
    assert model is not None and tagger is not None and example is not None
    # Issue 25: the bundled English models take at most 15 MB: one pipeline file, whose
    # tagger the bundled tagger is.
    assert tagger == model and model.suffix == ".pipeline"
    assert model.stat().st_size <= 15_000_000


def test_parse_the_bundled_example_with_no_model_option(tmp_path: Path, capsys) -> None:
    assert main(["dep", "parse", str(bundled_example())]) == 0
    out = tmp_path / "parsed.conllu"
    out.write_text(capsys.readouterr().out, encoding="utf-8")
    parsed = list(read_conll(out, require_tree=True))
    original = list(read_conll(bundled_example()))
    assert [s.form for s in parsed] == [s.form for s in original]
    for sentence in parsed:
        assert is_tree(sentence.head) and sentence.head.count(0) == 1
    assert parsed[0].deprel[parsed[0].head.index(0)] == "root"


def documented_scores() -> tuple[float, float]:
    match = re.search(r"EWT test \*\*UAS ([\d.]+), LAS ([\d.]+)\*\*", NOTE.read_text())
    assert match, "en_ewt.md must state the test scores"
    return float(match.group(1)), float(match.group(2))


def test_bundled_model_scores_what_its_note_says(corpora: Path, tmp_path: Path, capsys) -> None:
    test = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    out = tmp_path / "pred.conllu"
    assert main(["dep", "parse", str(test), "-o", str(out)]) == 0
    assert capsys.readouterr().err == "", "EWT test's tags give the bundled parser all it reads"
    assert main(["dep", "evaluate", str(test), str(out), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    uas, las = documented_scores()
    assert (round(scores["UAS"], 2), round(scores["LAS"], 2)) == (uas, las)
    assert uas >= 86.8 and las >= 84.7
    assert hashlib.sha256(out.read_bytes()).hexdigest() == EWT_TEST_PARSE_SHA256
    upos_only = tmp_path / "upos-only.conllu"
    upos_only.write_text("".join(
        "\t".join(columns[:4] + ["_"] + columns[5:]) if len(columns) == 10 else line
        for line in test.read_text(encoding="utf-8").splitlines(keepends=True)
        for columns in [line.split("\t")]), encoding="utf-8")
    parsed_upos = tmp_path / "upos.conllu"
    assert main(["dep", "parse", str(upos_only), "-o", str(parsed_upos)]) == 0
    assert "without UPOS or XPOS" in capsys.readouterr().err
    assert hashlib.sha256(parsed_upos.read_bytes()).hexdigest() == EWT_TEST_NO_XPOS_PARSE_SHA256
    assert main(["dep", "evaluate", str(test), str(parsed_upos), "--json"]) == 0
    upos_scores = json.loads(capsys.readouterr().out)
    assert (f"UPOS alone) parses with UAS {upos_scores['UAS']:.2f}, LAS {upos_scores['LAS']:.2f}"
            in " ".join(NOTE.read_text().split()))


def test_the_gold_sample_scores_what_its_note_says(tmp_path: Path, capsys) -> None:
    """The README's first command scores the bundled parser on the bundled gold sample (EWT
    test's first 100 sentences) with nothing but the package; en_ewt_test_sample.md gives the
    figures."""
    from polyparse.parser.models.bundled import bundled_gold_sample

    sample = bundled_gold_sample()
    assert sample is not None and len(list(read_conll(sample, require_tree=True))) == 100
    parsed = tmp_path / "sample.parsed.conllu"
    assert main(["dep", "parse", str(sample), "-o", str(parsed)]) == 0
    assert main(["dep", "evaluate", str(sample), str(parsed), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    note = (sample.parent / "en_ewt_test_sample.md").read_text(encoding="utf-8")
    assert scores["words"] == 2202 and "100 sentences (2,202 words)" in note
    assert f"UAS {scores['UAS']:.2f} and LAS {scores['LAS']:.2f}" in note


def test_words_with_upos_but_no_xpos_get_the_taggers_xpos(tmp_path: Path, capsys) -> None:
    """The bundled parser reads XPOS: a file that gives UPOS alone has its XPOS filled in by the
    bundled tagger (its UPOS kept), so it parses nearly as well as with XPOS."""
    from polyparse.parser.models.bundled import bundled_gold_sample

    sample = bundled_gold_sample()
    assert sample is not None
    lines = []
    for line in sample.read_text(encoding="utf-8").splitlines():
        fields = line.split("\t")
        if len(fields) == 10 and fields[0].isdigit():
            fields[4] = "_"
        lines.append("\t".join(fields))
    upos_only = tmp_path / "upos_only.conllu"
    upos_only.write_text("\n".join(lines) + "\n", encoding="utf-8")
    parsed = tmp_path / "parsed.conllu"
    assert main(["dep", "parse", str(upos_only), "-o", str(parsed)]) == 0
    assert "100 sentences without UPOS or XPOS" in capsys.readouterr().err
    given, got = list(read_conll(sample)), list(read_conll(parsed))
    assert [s.upos for s in got] == [s.upos for s in given]
    assert all("_" not in s.xpos for s in got)
    assert main(["dep", "evaluate", str(sample), str(parsed), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["LAS"] > 75
