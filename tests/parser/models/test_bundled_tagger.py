"""The tagger that ships inside the package: `tag tag` and `dep parse` of untagged words with no
model option, and its accuracy on EWT (the bundled pipeline's tagger: parser/models/en_ewt.md)."""
from __future__ import annotations

from pathlib import Path

from polyparse.parser.cli.main import main
from polyparse.parser.formats.conll import read_conll
from polyparse.parser.models.bundled import bundled_example, bundled_tagger
from tests.parser.tagging.synthetic import blanked


def untagged(source: Path, target: Path) -> Path:
    """target: source with LEMMA, UPOS and XPOS written as _."""
    target.write_text(blanked(source.read_text(encoding="utf-8")), encoding="utf-8")
    return target


def test_the_package_holds_a_small_tagger() -> None:
    from polyparse.classifiers.pipeline_file import pipeline_layers

    tagger = bundled_tagger()
    assert tagger is not None
    # Stored compressed inside the bundled pipeline, which is to stay small.
    assert len(pipeline_layers(tagger.read_bytes(), str(tagger))["tagger"]) <= 7_000_000


def test_dep_parse_tags_untagged_words_with_the_bundled_tagger(tmp_path: Path, capsys) -> None:
    example = bundled_example()
    assert example is not None
    source = untagged(example, tmp_path / "untagged.conllu")
    tagged_parse, untagged_parse = tmp_path / "a.conllu", tmp_path / "b.conllu"
    assert main(["dep", "parse", str(example), "-o", str(tagged_parse)]) == 0
    assert main(["dep", "parse", str(source), "-o", str(untagged_parse)]) == 0
    err = capsys.readouterr().err
    assert "have no UPOS" not in err and "tagged 4 sentences without UPOS" in err
    gold, parsed = list(read_conll(example)), list(read_conll(untagged_parse))
    words = sum(len(s) for s in gold)
    right = sum(g == p for s, t in zip(gold, parsed) for g, p in zip(s.upos, t.upos))
    assert right >= 0.9 * words
    heads = sum(g == p for s, t in zip(list(read_conll(tagged_parse)), parsed)
                for g, p in zip(s.head, t.head))
    assert heads >= 0.9 * words


def test_tag_tag_without_model_on_ewt_test(corpora: Path, tmp_path: Path, capsys) -> None:
    import json

    test = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    source = untagged(test, tmp_path / "test.conllu")
    out = tmp_path / "tagged.conllu"
    assert main(["tag", "tag", str(source), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["tag", "evaluate", str(test), str(out), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["UPOS"] >= 94.8 and scores["XPOS"] >= 94.3 and scores["Lemmas"] >= 96.5
