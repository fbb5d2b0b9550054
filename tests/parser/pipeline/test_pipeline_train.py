"""`polyparse pipeline train` and polyparse.train_pipeline: a tokenizer, a tagger and a parser
learned from one treebank, in one pipeline file that `dep parse --format raw`, `tag tag`,
`tokenize tokenize` and polyparse.load_parser read. On the synthetic treebanks of made-up
languages (tests/parser/segmentation/synthetic.py: a script without spaces, tokens holding
spaces, multiword tokens) and on the toy tagged grammar (tests/parser/tagging/synthetic.py)."""
from __future__ import annotations

import pickle
import subprocess
from pathlib import Path

import pytest

import polyparse
from polyparse.classifiers.pipeline_file import LAYERS, pipeline_bytes, pipeline_layers
from polyparse.parser.dependency.evaluate import evaluate
from polyparse.parser.formats.conll import read_conll
from tests.parser.cli.user_runs import POLYPARSE
from tests.parser.segmentation import synthetic
from tests.parser.tagging.synthetic import synthetic_conllu


def polyparse_run(*argv: str | Path) -> subprocess.CompletedProcess:
    return subprocess.run([POLYPARSE, *map(str, argv)], capture_output=True, text=True,
                          check=False)


def text_of(conllu: Path) -> str:
    """The raw text of a treebank: its `# text` lines, one paragraph a sentence."""
    return "".join(line[len("# text = "):] + "\n\n"
                   for line in conllu.read_text(encoding="utf-8").splitlines()
                   if line.startswith("# text = "))


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, Path]:
    """The toy grammar's train and test files (tags, FEATS, lemmas and trees) and the pipeline
    the command line learned from train."""
    folder = tmp_path_factory.mktemp("toy")
    train, test, model = folder / "train.conllu", folder / "test.conllu", folder / "toy.model"
    train.write_text(synthetic_conllu(300, seed=1, features=True), encoding="utf-8")
    test.write_text(synthetic_conllu(60, seed=2, features=True), encoding="utf-8")
    done = polyparse_run("pipeline", "train", "--train", train, "--dev", test, "--model", model,
                         "--folds", "3", "--quiet")
    assert done.returncode == 0, done.stderr
    return train, test, model


def test_one_file_holds_the_three_layers_and_dep_parse_runs_them_on_raw_text(
        toy: tuple[Path, Path, Path]) -> None:
    _, test, model = toy
    layers = pipeline_layers(model.read_bytes(), str(model))
    assert list(layers) == list(LAYERS)
    raw = test.with_suffix(".txt")
    raw.write_text(text_of(test), encoding="utf-8")
    done = polyparse_run("dep", "parse", "--model", model, "--format", "raw", raw, "-o",
                         test.with_suffix(".out"), "--quiet")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    parsed = list(read_conll(test.with_suffix(".out")))
    scores = evaluate(list(read_conll(test)), parsed).as_dict()
    assert scores["Tokens"] > 99.0
    assert scores["UPOS"] > 90.0 and scores["UFeats"] > 90.0
    assert scores["Lemmas"] > 90.0 and scores["LAS"] > 80.0
    assert all("_" not in sentence.upos for sentence in parsed)


def test_dev_scores_of_each_layer_are_kept_in_the_file(toy: tuple[Path, Path, Path]) -> None:
    from polyparse.classifiers.model_file import decode_model

    _, _, model = toy
    header, _ = decode_model(model.read_bytes(), str(model))
    assert set(header["dev_scores"]) == {"tokenizer", "tagger", "parser"}
    assert header["folds"] == 3 and header["training_command"].startswith("polyparse pipeline")


def test_conllu_input_skips_the_layers_it_already_has(toy: tuple[Path, Path, Path]) -> None:
    """CoNLL-U with tags is parsed on its own tags; words without UPOS are tagged first."""
    _, test, model = toy
    done = polyparse_run("dep", "parse", "--model", model, test, "--quiet")
    assert done.returncode == 0, done.stderr
    parsed = list(read_conll(None, stream=__import__("io").BytesIO(done.stdout.encode()),
                             name="out"))
    assert [s.upos for s in parsed] == [s.upos for s in read_conll(test)]
    blank = test.with_suffix(".untagged")
    blank.write_text("".join(
        "\t".join(c[:2] + ["_"] * 4 + c[6:]) + "\n" if len(c := line.split("\t")) == 10
        else line + "\n" for line in test.read_text(encoding="utf-8").splitlines()),
        encoding="utf-8")
    done = polyparse_run("dep", "parse", "--model", model, blank, "--quiet")
    assert done.returncode == 0, done.stderr
    assert "\tDET\t" in done.stdout


def test_each_layer_loads_alone_from_the_pipeline_file(toy: tuple[Path, Path, Path]) -> None:
    _, test, model = toy
    tagged = polyparse_run("tag", "tag", "--model", model, test, "--quiet")
    assert tagged.returncode == 0 and "\tNOUN\t" in tagged.stdout, tagged.stderr
    tokens = subprocess.run([POLYPARSE, "tokenize", "tokenize", "--model", str(model)],
                            input="the dog barked . a cat saw the fish .\n",
                            capture_output=True, text=True, check=False)
    assert tokens.returncode == 0 and "\tbarked\t" in tokens.stdout, tokens.stderr


def test_the_python_face_parses_text_and_pickles(toy: tuple[Path, Path, Path]) -> None:
    _, _, model = toy
    parser = polyparse.load_parser(model)
    trees = parser("The big dog saw a cat .")
    assert [token["upos"] for token in trees[0]][:4] == ["DET", "ADJ", "NOUN", "VERB"]
    again = pickle.loads(pickle.dumps(parser))
    assert again("The big dog saw a cat .")[0].serialize() == trees[0].serialize()


@pytest.mark.parametrize("language", ["unspaced", "spaced_tokens", "multiword"])
def test_made_up_languages_from_raw_text(language: str, tmp_path: Path) -> None:
    """A script without spaces, tokens with spaces inside and multiword tokens: tokens and
    multiword tokens as the treebank has them, every word tagged and in a tree."""
    make = getattr(synthetic, language)
    train, test = tmp_path / "train.conllu", tmp_path / "test.conllu"
    train.write_text(make(300, seed=1), encoding="utf-8")
    test.write_text(make(60, seed=2), encoding="utf-8")
    parser = polyparse.train_pipeline(train, tmp_path / "model", folds=0)
    system = tmp_path / "system.conllu"
    system.write_text("".join(tree.serialize() for tree in parser(text_of(test))),
                      encoding="utf-8")
    scores = evaluate(list(read_conll(test)), list(read_conll(system))).as_dict()
    # (As tests/parser/cli/test_tokenize_learned.py: the made-up languages are ambiguous.)
    assert scores["Tokens"] > 90.0 and scores["Words"] > 90.0 and scores["UPOS"] > 90.0
    assert scores["LAS"] > 80.0
    written = system.read_text(encoding="utf-8")
    if language == "multiword":
        assert "\tzla\t" in written and any(
            line.split("\t")[0].count("-") == 1 and line.split("\t")[1] == "zla"
            for line in written.splitlines())
    if language == "spaced_tokens":
        assert any(" " in line.split("\t")[1] for line in written.splitlines()
                   if line[:1].isdigit())


def test_the_same_seed_and_data_give_the_same_bytes(tmp_path: Path) -> None:
    """Two runs of one command (in two folders: the file records the command) agree to the
    byte."""
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "train.conllu").write_text(synthetic.multiword(120, seed=4),
                                                      encoding="utf-8")
        done = subprocess.run([POLYPARSE, "pipeline", "train", "--train", "train.conllu",
                               "--model", "model", "--folds", "2", "--quiet"],
                              capture_output=True, text=True, check=False, cwd=tmp_path / name)
        assert done.returncode == 0, done.stderr
    assert (tmp_path / "a" / "model").read_bytes() == (tmp_path / "b" / "model").read_bytes()


def test_bad_settings_are_refused_before_the_data_is_read(tmp_path: Path) -> None:
    missing = tmp_path / "missing.conllu"
    for argv, message in (
            (["--folds", "1"], "folds must be 0 (gold tags) or 2 to 100, not 1"),
            (["--classifier", "linear", "--beam", "4"], "--beam"),
            (["--feats", "joint", "-C", "-1"], "C")):
        done = polyparse_run("pipeline", "train", "--train", missing, "--model",
                             tmp_path / "m", *argv)
        assert done.returncode != 0 and message in done.stderr, done.stderr
        assert "missing.conllu" not in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_a_treebank_that_cannot_train_says_so_in_one_line(tmp_path: Path) -> None:
    untagged = tmp_path / "untagged.conllu"
    untagged.write_text(synthetic.multiword(20).replace("\tX\t", "\t_\t"), encoding="utf-8")
    done = polyparse_run("pipeline", "train", "--train", untagged, "--model", tmp_path / "m")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [
        f'polyparse: {untagged}:3: UPOS is missing ("_"); the tagger and the parser learn from '
        "tagged words"]
    assert not (tmp_path / "m").exists()


def test_a_pipeline_without_a_layer_or_corrupt_is_one_line(tmp_path: Path,
                                                            toy: tuple[Path, Path, Path]) -> None:
    _, test, model = toy
    layers = pipeline_layers(model.read_bytes(), str(model))
    no_tagger = tmp_path / "no_tagger.model"
    no_tagger.write_bytes(pipeline_bytes({"parser": layers["parser"]}))
    done = polyparse_run("tag", "tag", "--model", no_tagger, test)
    assert done.returncode != 0 and done.stderr.strip() == (
        f"polyparse: {no_tagger}: the pipeline has no tagger (its layers: parser)")
    corrupt = tmp_path / "corrupt.model"
    data = bytearray(model.read_bytes())
    data[len(data) // 2] ^= 0xFF
    corrupt.write_bytes(bytes(data))
    done = polyparse_run("dep", "parse", "--model", corrupt, test)
    assert done.returncode != 0 and "checksum mismatch" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


# Treebanks of ud22/ whose pipelines' output UD's validator checks: five scripts and writing
# systems (Latin with diacritics, Greek, Hangul, Gothic's transliteration without sentence
# punctuation, Vietnamese with spaces inside tokens).
VALIDATED = ("el_gdt", "got_proiel", "hu_szeged", "ko_gsd", "vi_vtb")


def head_blocks(path: Path, n: int) -> str:
    """The first n sentences of a CoNLL-U file, as text."""
    return "\n\n".join(path.read_text(encoding="utf-8").split("\n\n")[:n]).rstrip("\n") + "\n\n"


@pytest.mark.parametrize("treebank", VALIDATED)
def test_raw_text_of_other_languages_gives_conllu_that_ud_validates(
        treebank: str, corpora: Path, tmp_path: Path) -> None:
    """A pipeline learned from 250 sentences of a ud22 treebank parses 40 paragraphs of its
    test text; UD's validate.py (level 2, the treebank's language) accepts what is written."""
    from tests.parser.cli.test_ud_validator import ud_errors

    folder = corpora / "ud22" / treebank
    if not folder.is_dir():
        pytest.skip(f"{folder} is not there")
    train, model = tmp_path / "train.conllu", tmp_path / "model"
    train.write_text(head_blocks(folder / f"{treebank}-ud-train.conllu", 250), encoding="utf-8")
    done = polyparse_run("pipeline", "train", "--train", train, "--model", model, "--quiet")
    assert done.returncode == 0, done.stderr
    text = tmp_path / "test.txt"
    paragraphs = (folder / f"{treebank}-ud-test.txt").read_text(encoding="utf-8").split("\n\n")
    text.write_text("\n\n".join(paragraphs[:40]), encoding="utf-8")
    output = tmp_path / "out.conllu"
    done = polyparse_run("dep", "parse", "--model", model, "--format", "raw", text, "-o", output,
                         "--quiet")
    assert done.returncode == 0, done.stderr
    assert ud_errors(output, language=treebank.split("_")[0]) == ""


def test_the_tagger_of_a_greedy_pipeline_drops_small_weights_a_beam_one_keeps_them(
        toy: tuple[Path, Path, Path]) -> None:
    from polyparse.parser.dependency.training_config import training_config
    from polyparse.parser.pipeline.pipeline_training import (
        GREEDY_TAGGER_MIN_WEIGHT,
        pipeline_tagger_config,
    )
    from polyparse.parser.tagging.config import TaggerConfig
    from polyparse.parser.tagging.tagger import Tagger

    assert pipeline_tagger_config().min_weight == GREEDY_TAGGER_MIN_WEIGHT
    beam = training_config("structured-perceptron")
    assert pipeline_tagger_config(beam).min_weight == TaggerConfig.min_weight
    assert pipeline_tagger_config(beam, min_weight=0.5).min_weight == 0.5
    assert Tagger.load(toy[2]).config.min_weight == GREEDY_TAGGER_MIN_WEIGHT


def test_both_parsers_of_a_pipeline_drop_rare_features_unless_told() -> None:
    """A pipeline's parser, greedy or beam, keeps the features of DEFAULT_MIN_FEATURE_COUNT
    training states or more (dep train's beam parser keeps every feature); a count given is
    kept."""
    from polyparse.parser.dependency.beam_config import BeamConfig
    from polyparse.parser.pipeline.pipeline_training import (
        DEFAULT_MIN_FEATURE_COUNT,
        pipeline_parser_config,
    )

    assert BeamConfig.min_feature_count == 1 < DEFAULT_MIN_FEATURE_COUNT
    for classifier in (None, "structured-perceptron"):
        assert pipeline_parser_config(classifier).min_feature_count == DEFAULT_MIN_FEATURE_COUNT
        assert pipeline_parser_config(classifier, min_feature_count=1).min_feature_count == 1
    assert isinstance(pipeline_parser_config("structured-perceptron"), BeamConfig)


def test_word_splits_are_the_tagger_default_and_both_faces_turn_them_off(
        toy: tuple[Path, Path, Path], tmp_path: Path) -> None:
    """The pipeline's tagger reads word splits (its `+splits` templates) unless --no-word-splits
    or word_splits=False says otherwise."""
    from polyparse.parser.tagging.tagger import Tagger

    train = toy[0]
    assert Tagger.load(toy[2]).config.word_splits is True
    command, python = tmp_path / "command.model", tmp_path / "python.model"
    done = polyparse_run("pipeline", "train", "--train", train, "--model", command, "--folds",
                         "0", "--no-word-splits", "--quiet")
    assert done.returncode == 0, done.stderr
    polyparse.train_pipeline(train, python, folds=0, word_splits=False)
    for model in (command, python):
        tagger = Tagger.load(model)
        assert tagger.config.word_splits is False
        assert all("+splits" not in tagger_pass.template_set for tagger_pass in tagger.passes)


def test_refit_learns_every_layer_again_from_train_and_dev(tmp_path: Path) -> None:
    """--refit: dev scores the first fit and chooses the beam parser's epoch; the file's layers
    are then learned from train and dev together (dev's words known to the tagger and parser);
    without --dev it is refused in one line before anything is read."""
    from polyparse.classifiers.model_file import decode_model
    from polyparse.parser.pipeline.dependency_service import open_parser, parser_files

    train, dev = tmp_path / "train.conllu", tmp_path / "dev.conllu"
    train.write_text(synthetic.multiword(120, seed=4), encoding="utf-8")
    dev.write_text(synthetic.multiword(40, seed=5), encoding="utf-8")
    models = {}
    for name, extra in (("plain", []), ("refit", ["--refit"])):
        models[name] = tmp_path / name
        done = polyparse_run("pipeline", "train", "--train", train, "--dev", dev, "--model",
                             models[name], "--classifier", "structured-perceptron", "--beam",
                             "2", "--epochs", "4", "--folds", "2", "--quiet", *extra)
        assert done.returncode == 0, done.stderr
    header = decode_model(models["refit"].read_bytes(), "refit")[0]
    plain_header = decode_model(models["plain"].read_bytes(), "plain")[0]
    assert header["refit"] == "train and dev" and "refit" not in plain_header
    assert header["dev_scores"] == plain_header["dev_scores"]
    plain = open_parser(parser_files(models["plain"])).model
    refit = open_parser(parser_files(models["refit"])).model
    assert refit.config.epochs == plain.info["best_epoch"]
    assert refit.info["train_sentences"] > plain.info["train_sentences"]
    done = polyparse_run("pipeline", "train", "--train", tmp_path / "missing.conllu", "--model",
                         tmp_path / "m", "--refit")
    assert done.returncode != 0 and done.stderr.strip().splitlines() == [
        "polyparse: pipeline train: refit learns again from train and dev: give dev"]
