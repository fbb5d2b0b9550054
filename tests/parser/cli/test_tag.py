"""`polyparse tag`: train, tag and evaluate on a synthetic treebank; bad input in one line;
only the UPOS, XPOS and LEMMA columns change; `dep parse` tags untagged input."""
from __future__ import annotations

import json
import signal
from pathlib import Path

import pytest

from polyparse.parser.cli.main import main
from tests.parser.cli.user_runs import (
    POLYPARSE,
    check_a_closed_pipe_ends_quietly,
    check_a_signal_while_parsing_leaves_nothing,
    one_line,
    polyparse,
)
from tests.parser.tagging.synthetic import blanked, synthetic_conllu

CONLL = Path(__file__).resolve().parents[2] / "data" / "conll"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("tagger")
    train = folder / "train.conllu"
    train.write_text(synthetic_conllu(150, seed=2), encoding="utf-8")
    path = folder / "syn.model"
    assert main(["tag", "train", "--train", str(train), "--model", str(path), "--quiet",
                 "--dictionary-min-count", "5"]) == 0
    return path


def test_tag_and_evaluate(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    gold = tmp_path / "gold.conllu"
    gold.write_text(synthetic_conllu(40, seed=11), encoding="utf-8")
    source = tmp_path / "input.conllu"
    source.write_text(blanked(gold.read_text()), encoding="utf-8")
    out = tmp_path / "tagged.conllu"
    assert main(["tag", "tag", "--model", str(model), str(source), "-o", str(out)]) == 0
    assert main(["tag", "evaluate", str(gold), str(out), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["UPOS"] > 95 and scores["XPOS"] > 95 and scores["Lemmas"] > 95
    assert scores["words"] == scores["system_words"] > 0
    # Every byte but the three tag columns of word lines is kept.
    for got, given in zip(out.read_text().splitlines(), source.read_text().splitlines()):
        a, b = got.split("\t"), given.split("\t")
        assert len(a) == len(b)
        if len(a) == 10:
            assert a[:2] + a[5:] == b[:2] + b[5:]
        else:
            assert got == given


def test_train_with_dev_writes_its_scores(tmp_path: Path) -> None:
    train, dev = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    train.write_text(synthetic_conllu(60, seed=3), encoding="utf-8")
    dev.write_text(synthetic_conllu(10, seed=4), encoding="utf-8")
    path = tmp_path / "m.model"
    assert main(["tag", "train", "--train", str(train), "--dev", str(dev), "--model",
                 str(path), "--classifier", "linear", "--templates", "two-pass",
                 "--quiet"]) == 0
    from polyparse.parser.tagging.tagger import Tagger

    tagger = Tagger.load(path)
    assert tagger.header["dev_scores"]["UPOS"] > 90
    assert [p.template_set for p in tagger.passes] == ["left+splits", "two-pass+splits"]


def test_same_seed_same_model(tmp_path: Path) -> None:
    train = tmp_path / "train.conllu"
    train.write_text(synthetic_conllu(50, seed=5), encoding="utf-8")
    paths = [tmp_path / "a.model", tmp_path / "b.model"]
    for path in paths:
        assert main(["tag", "train", "--train", str(train), "--model", str(path),
                     "--quiet"]) == 0
    assert paths[0].read_bytes() == paths[1].read_bytes()


def test_bad_input_is_one_line(model: Path, tmp_path: Path,
                               capsys: pytest.CaptureFixture) -> None:
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text(blanked(synthetic_conllu(3)), encoding="utf-8")
    target = tmp_path / "out.model"
    code = main(["tag", "train", "--train", str(untagged), "--model", str(target)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and len(err.splitlines()) == 1
    assert "untagged.conllu:3: UPOS is missing" in err
    assert not target.exists()
    code = main(["tag", "tag", "--model", str(model), str(CONLL / "wrong_columns.conllu")])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "wrong_columns.conllu:" in err and len(err.splitlines()) == 1
    code = main(["tag", "tag", "--model", str(CONLL / "good.conllu"), str(untagged)])
    err = capsys.readouterr().err.strip()
    assert code == 2 and "good.conllu" in err and len(err.splitlines()) == 1


def test_options_are_checked_before_the_data(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.conllu")
    one_line(polyparse("tag", "train", "--train", missing, "--model",
                       str(tmp_path / "m.model"), "--classifier", "linear",
                       "--min-pair-count", "2"), "--min-pair-count applies to poly2-linear, not linear")
    one_line(polyparse("tag", "train", "--train", missing, "--model",
                       str(tmp_path / "m.model"), "--dictionary-min-count", "-1"),
             "dictionary_min_count")
    for option, value, named in [("--min-weight", "-1", "min_weight"),
                                 ("--morph-C", "0", "morph_C"), ("--threads", "0", "threads")]:
        one_line(polyparse("tag", "train", "--train", missing, "--model",
                           str(tmp_path / "m.model"), option, value), named)
    one_line(polyparse("tag", "tag", "--model", missing, "-"), "missing.conllu")


def test_a_closed_pipe_ends_quietly(model: Path) -> None:
    if not hasattr(signal, "SIGPIPE"):
        pytest.skip("no SIGPIPE")
    block = synthetic_conllu(1, seed=1).encode()
    check_a_closed_pipe_ends_quietly([POLYPARSE, "tag", "tag", "--model", str(model), "-"],
                                     block, b"\n\n", 1, block * 20)


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_tagging_leaves_nothing(model: Path, tmp_path: Path, signum: int) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_while_parsing_leaves_nothing(
        [POLYPARSE, "tag", "tag", "--model", str(model), "-", "-o", str(folder / "t.conllu")],
        synthetic_conllu(20, seed=5).encode(), folder, signum,
        bar=b"tagging")


def test_dep_parse_tags_untagged_words(model: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture) -> None:
    from tests.parser.dependency.synthetic import write_treebank

    train = write_treebank(tmp_path / "dep.conllu", 100, seed=4)
    parser_model = tmp_path / "dep.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(parser_model),
                 "--quiet", "--tag-column", "upos", "--split-column", "upos"]) == 0
    source = tmp_path / "untagged.conllu"
    source.write_text(blanked(synthetic_conllu(5, seed=8)), encoding="utf-8")
    out = tmp_path / "parsed.conllu"
    capsys.readouterr()
    assert main(["dep", "parse", "--model", str(parser_model), "--tagger", str(model),
                 str(source), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "tagged 5 sentences" in err and "have no UPOS" not in err
    words = [line.split("\t") for line in out.read_text().splitlines() if "\t" in line]
    assert all(columns[3] != "_" and columns[4] != "_" for columns in words)
    # Without a tagger, the old warning.
    assert main(["dep", "parse", "--model", str(parser_model), str(source), "-o",
                 str(out)]) == 0
    assert "have no UPOS" in capsys.readouterr().err


def test_features_are_predicted_written_and_scored(tmp_path: Path,
                                                  capsys: pytest.CaptureFixture) -> None:
    """A treebank with FEATS gives a model that predicts them: tag train says so, its dev line
    scores them, tag tag writes them (sorted as UD sorts them) and tag evaluate scores them."""
    train, dev = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    train.write_text(synthetic_conllu(80, seed=3, features=True), encoding="utf-8")
    dev.write_text(synthetic_conllu(20, seed=4, features=True), encoding="utf-8")
    model = tmp_path / "m.model"
    assert main(["tag", "train", "--train", str(train), "--dev", str(dev), "--model",
                 str(model)]) == 0
    log = capsys.readouterr().err
    assert "the model predicts UPOS, XPOS, FEATS, LEMMA\n" in log
    dev_line = next(line for line in log.splitlines() if "dev: " in line)
    assert "dev: UPOS " in dev_line and " UFeats " in dev_line
    assert " AllTags " in dev_line and "not predicted" not in dev_line
    from polyparse.parser.tagging.tagger import Tagger

    scores = Tagger.load(model).header["dev_scores"]
    assert scores["UFeats"] > 95 and scores["AllTags"] > 90
    source = tmp_path / "input.conllu"
    source.write_text(blanked(dev.read_text()), encoding="utf-8")
    out = tmp_path / "tagged.conllu"
    assert main(["tag", "tag", "--model", str(model), str(source), "-o", str(out)]) == 0
    words = [line.split("\t") for line in out.read_text().splitlines() if "\t" in line]
    feats = {word[5] for word in words}
    assert "Definite=Def|PronType=Art" in feats and "Number=Plur" in feats
    assert main(["tag", "evaluate", str(dev), str(out), "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["UFeats"] == pytest.approx(scores["UFeats"])


def test_features_the_tagger_does_not_predict_are_not_scored_as_its_own(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    """tag tag kept the input's gold FEATS, so that tag evaluate and tag train's dev line gave
    UFeats 100.00 and AllTags = UPOS with nothing predicting features: a model trained with
    --feats none writes FEATS as _, and training says which columns the model predicts."""
    train, dev = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    train.write_text(synthetic_conllu(80, seed=3, features=True), encoding="utf-8")
    dev.write_text(synthetic_conllu(20, seed=4, features=True), encoding="utf-8")
    model = tmp_path / "m.model"
    assert main(["tag", "train", "--train", str(train), "--dev", str(dev), "--model",
                 str(model), "--feats", "none"]) == 0
    log = capsys.readouterr().err
    assert "the model predicts UPOS, XPOS, LEMMA; `tag tag` writes FEATS as _" in log
    dev_line = next(line for line in log.splitlines() if "dev: " in line)
    assert "dev: UPOS " in dev_line and "(not predicted: UFeats " in dev_line
    from polyparse.parser.tagging.tagger import Tagger

    scores = Tagger.load(model).header["dev_scores"]
    assert scores["UPOS"] > 90 and scores["UFeats"] < 80 and scores["AllTags"] < scores["UPOS"]
    out = tmp_path / "tagged.conllu"
    assert main(["tag", "tag", "--model", str(model), str(dev), "-o", str(out)]) == 0
    words = [line.split("\t") for line in out.read_text().splitlines() if "\t" in line]
    assert {word[5] for word in words} == {"_"}
    assert main(["tag", "evaluate", str(dev), str(out), "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["UFeats"] == pytest.approx(scores["UFeats"]) and evaluated["UFeats"] < 80
    assert evaluated["AllTags"] < evaluated["UPOS"]


def test_a_tagger_says_which_columns_it_predicts(tmp_path: Path) -> None:
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.tagging.config import TaggerConfig
    from polyparse.parser.tagging.tagger import Tagger

    text = synthetic_conllu(30, seed=6)
    bare = "\n".join("\t".join(c[:2] + ["_"] + c[3:4] + ["_"] + c[5:]) if len(c) == 10
                     else "\t".join(c) for c in (line.split("\t") for line in text.splitlines()))
    path = tmp_path / "bare.conllu"
    path.write_text(bare + "\n", encoding="utf-8")
    tagger = Tagger()
    tagger.train(list(read_conll(path)))
    assert tagger.columns == ("UPOS",)
    path.write_text(text, encoding="utf-8")
    tagger.train(list(read_conll(path)))
    assert tagger.columns == ("UPOS", "XPOS", "LEMMA")
    path.write_text(synthetic_conllu(30, seed=6, features=True), encoding="utf-8")
    tagger.train(list(read_conll(path)))
    assert tagger.columns == ("UPOS", "XPOS", "FEATS", "LEMMA")
    # XPOS apart from the tagger's classes is still predicted.
    apart = Tagger(TaggerConfig(xpos="apart"))
    apart.train(list(read_conll(path)))
    assert apart.columns == ("UPOS", "XPOS", "FEATS", "LEMMA")
    assert {xpos for _, xpos in apart.classes} == {"_"}
