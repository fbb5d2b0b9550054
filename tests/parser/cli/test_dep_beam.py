"""`polyparse dep` with the beam-search parser: train with --classifier structured-perceptron,
parse with the model's beam or --beam, and options that do not fit refused in one line before
any data is read."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

import polyparse
from polyparse.parser.cli.main import main
from polyparse.parser.dependency.choices import MAX_BEAM
from polyparse.parser.dependency.models import load_dependency_model
from tests.parser.cli.test_dep import one_error_line
from tests.parser.dependency.synthetic import write_treebank


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("beam-cli")
    return {"train": write_treebank(folder / "train.conllu", 120, seed=4),
            "dev": write_treebank(folder / "dev.conllu", 30, seed=6),
            "test": write_treebank(folder / "test.conllu", 30, seed=9),
            "folder": folder}


@pytest.fixture(scope="module")
def model(files: dict[str, Path]) -> Path:
    path = files["folder"] / "beam.model"
    assert main(["dep", "train", "--train", str(files["train"]), "--dev", str(files["dev"]),
                 "--model", str(path), "--classifier", "structured-perceptron", "--beam", "3",
                 "--epochs", "3", "--quiet"]) == 0
    return path


def test_train_parse_and_evaluate(model: Path, files: dict[str, Path], tmp_path: Path,
                                  capsys: pytest.CaptureFixture) -> None:
    parser = load_dependency_model(model)
    assert parser.config.beam == 3 and len(parser.info["epochs"]) <= 3
    assert "dev_scores" in parser.header and "training_command" in parser.header
    outputs = []
    for extra in ([], ["--beam", "1"], ["--beam", "3"]):
        out = tmp_path / f"pred{len(outputs)}.conllu"
        assert main(["dep", "parse", "--model", str(model), str(files["test"]), "-o", str(out),
                     *extra]) == 0
        outputs.append(out.read_text(encoding="utf-8"))
        assert main(["dep", "evaluate", str(files["test"]), str(out), "--json"]) == 0
        scores = json.loads(capsys.readouterr().out)
        assert scores["UAS"] > 90 and scores["LAS"] > 90
    assert outputs[0] == outputs[2]


@pytest.mark.parametrize("options, expected", [
    (["--classifier", "structured-perceptron", "-C", "0.5"], "-C does not apply"),
    (["--classifier", "structured-perceptron", "--features", "rich"], "--features does not"),
    (["--classifier", "structured-perceptron", "--threads", "2"], "--threads does not"),
    (["--classifier", "structured-perceptron", "--workers", "2"],
     "--workers does not apply to --classifier structured-perceptron, whose perceptron"),
    (["--classifier", "structured-perceptron", "--scheduler", "tcp://127.0.0.1:9"],
     "--scheduler does not apply to --classifier structured-perceptron"),
    (["--beam", "4"], "--beam does not apply to --classifier poly2-linear"),
    (["--classifier", "pa-slicing", "--epochs", "3"], "--epochs does not apply"),
    (["--classifier", "structured-perceptron", "--epochs", "0"], "epochs"),
])
def test_options_that_do_not_fit(options: list[str], expected: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture) -> None:
    target = tmp_path / "m.model"
    # The training file does not exist: the options are refused before anything is read.
    code = main(["dep", "train", "--train", str(tmp_path / "missing.conllu"), "--model",
                 str(target), *options])
    one_error_line(capsys, code, expected)
    assert not target.exists()


@pytest.mark.parametrize("command", [["dep", "train", "--train", "t.conllu", "--model", "m",
                                      "--classifier", "structured-perceptron"],
                                     ["dep", "parse", "t.conllu"]])
@pytest.mark.parametrize("beam", ["0", str(MAX_BEAM + 1), "wide"])
def test_a_beam_width_out_of_range_is_refused_as_the_option_is_read(
        command: list[str], beam: str, capsys: pytest.CaptureFixture) -> None:
    with pytest.raises(SystemExit) as ended:
        main([*command, "--beam", beam])
    assert ended.value.code == 2
    last = capsys.readouterr().err.strip().splitlines()[-1]
    assert last.endswith(f"argument --beam: the beam width must be 1 to {MAX_BEAM}, not "
                         f"{beam}") or "an integer" in last, last


def test_parse_in_shards(model: Path, files: dict[str, Path], tmp_path: Path) -> None:
    """A beam model parses in shards on two workers (its --beam with it) as in one process."""
    for beam in ("1", "3"):
        one = tmp_path / f"one{beam}.conllu"
        assert main(["dep", "parse", "--model", str(model), str(files["test"]), "-o", str(one),
                     "--beam", beam]) == 0
        parts = tmp_path / f"parts{beam}"
        assert main(["dep", "parse", "--model", str(model), str(files["test"]), "--beam", beam,
                     "--workers", "2", "--shard-size", "2K", "--output-dir", str(parts),
                     "--quiet"]) == 0
        written = sorted(parts.glob("part-*"))
        assert len(written) > 2 and (parts / "_SUCCESS").exists()
        assert b"".join(p.read_bytes() for p in written) == one.read_bytes()


def test_parse_options_that_do_not_fit(model: Path, files: dict[str, Path], tmp_path: Path,
                                       capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "out.conllu"
    code = main(["dep", "parse", "--model", str(model), str(files["test"]), "-o", str(out),
                 "--eval-mode", "pki"])
    one_error_line(capsys, code, "--eval-mode chooses kernel evaluators; a "
                                 "structured-perceptron model has none")
    code = main(["dep", "parse", str(files["test"]), "-o", str(out), "--beam", "4"])
    one_error_line(capsys, code, "--beam applies to structured-perceptron models")
    code = main(["dep", "convert", "--model", str(model), "--to", "split", "--output",
                 str(tmp_path / "c.model")])
    one_error_line(capsys, code, "no kernel classifiers")
    assert not out.exists()


def test_beam_parses_are_shown_and_reported(model: Path, files: dict[str, Path],
                                            tmp_path: Path) -> None:
    """A beam-search model's output is CoNLL-U like any other: dep show draws it, dep evaluate
    --html reports on it (beside another system), and the API's parses show in Jupyter."""
    outputs = []
    for beam in ("3", "1"):
        out = tmp_path / f"beam{beam}.conllu"
        assert main(["dep", "parse", "--model", str(model), str(files["test"]), "-o", str(out),
                     "--beam", beam]) == 0
        outputs.append(str(out))
    page = tmp_path / "trees.html"
    assert main(["dep", "show", outputs[0], "--format", "html", "-o", str(page)]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    report = tmp_path / "report.html"
    assert main(["dep", "evaluate", str(files["test"]), *outputs, "--html", str(report),
                 "--quiet"]) == 0
    assert report.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    words = [("the", "DET", "DT"), ("dog", "NOUN", "NN"), ("ran", "VERB", "VB")]
    parsed = polyparse.load_parser(model, beam=2).parse([words])
    assert parsed._repr_html_().count("<svg") == 1
