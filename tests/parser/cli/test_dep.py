"""`polyparse dep`: the command line on good and bad input (one line, non-zero exit, no output)."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from polyparse.classifiers.evaluators.evaluator_model import KernelEvaluatorModel
from polyparse.parser.cli.main import main
from polyparse.parser.dependency.dependency_parser import DependencyParser
from polyparse.parser.models import bundled
from tests.parser.dependency.synthetic import write_treebank

CONLL = Path(__file__).resolve().parents[2] / "data" / "conll"


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("model")
    train = write_treebank(folder / "train.conllu", 200, seed=4)
    path = folder / "syn.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(path),
                 "--split-threshold", "100"]) == 0
    return path


def one_error_line(capsys: pytest.CaptureFixture, code: int, *expected: str) -> str:
    err = capsys.readouterr().err.strip()
    assert code != 0
    assert len(err.splitlines()) == 1, err
    assert "Traceback" not in err
    for text in expected:
        assert text in err
    return err


def test_parse_and_evaluate(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    test = write_treebank(tmp_path / "test.conllu", 30, seed=9)
    out = tmp_path / "pred.conllu"
    assert main(["dep", "parse", "--model", str(model), str(test), "-o", str(out)]) == 0
    assert main(["dep", "evaluate", str(test), str(out), "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["UAS"] > 90 and scores["LAS"] > 90 and scores["punct"] == "none"
    comments = [line for line in out.read_text().splitlines() if line.startswith("#")]
    assert comments == [line for line in test.read_text().splitlines() if line.startswith("#")]


@pytest.mark.parametrize("fixture, where", [
    ("wrong_columns.conllu", "wrong_columns.conllu:"),
    ("bad_id.conllu", "bad_id.conllu:"),
    ("head_outside.conllu", "head_outside.conllu:"),
    ("cycle.conllu", "cycle.conllu:"),
    ("no_root.conllu", "no_root.conllu:"),
    ("latin1.conllu", "latin1.conllu:"),
    ("empty.conllu", "empty.conllu"),
])
def test_bad_training_data(fixture: str, where: str, tmp_path: Path,
                           capsys: pytest.CaptureFixture) -> None:
    target = tmp_path / "out.model"
    code = main(["dep", "train", "--train", str(CONLL / fixture), "--model", str(target)])
    one_error_line(capsys, code, where)
    assert not target.exists() and list(tmp_path.iterdir()) == []


# An empty input is no error for a parse: test_input_paths.py checks it.
@pytest.mark.parametrize("fixture", ["wrong_columns.conllu", "latin1.conllu",
                                     "range_beyond.conllu"])
def test_bad_parse_input_leaves_no_output(fixture: str, model: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "pred.conllu"
    code = main(["dep", "parse", "--model", str(model), str(CONLL / fixture), "-o", str(out)])
    one_error_line(capsys, code, fixture)
    assert list(tmp_path.iterdir()) == []


def test_range_over_words_that_do_not_exist(tmp_path: Path,
                                            capsys: pytest.CaptureFixture) -> None:
    """A multiword range 1-3 over a two-word sentence was parsed with exit 0 into an invalid
    output: it is bad CoNLL-U, one line naming file and line, for every command reading it."""
    path = CONLL / "range_beyond.conllu"
    for command in (["dep", "parse", str(path)], ["tag", "tag", str(path)],
                    ["dep", "evaluate", str(path), str(path)]):
        err = one_error_line(capsys, main(command))
        assert err.endswith(f"{path}:3: multiword range 1-3 covers words that do not exist: "
                            "the sentence has 2 words"), err


@pytest.mark.parametrize("damage", ["truncate", "text", "missing"])
def test_bad_model_file(damage: str, model: Path, tmp_path: Path,
                        capsys: pytest.CaptureFixture) -> None:
    bad = tmp_path / "bad.model"
    if damage == "truncate":
        bad.write_bytes(model.read_bytes()[: model.stat().st_size // 2])
    elif damage == "text":
        bad.write_text("this is not a model\n")
    test = write_treebank(tmp_path / "test.conllu", 3)
    out = tmp_path / "pred.conllu"
    code = main(["dep", "parse", "--model", str(bad), str(test), "-o", str(out)])
    one_error_line(capsys, code, "bad.model")
    assert not out.exists()


def test_kernel_svm_parser_and_eval_modes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    train = write_treebank(tmp_path / "train.conllu", 200, seed=4)
    test = write_treebank(tmp_path / "test.conllu", 30, seed=9)
    model = tmp_path / "kernel.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(model), "--split-threshold",
                 "100", "--classifier", "kernel-svm", "--degree", "2", "--gamma", "0.2",
                 "--coef0", "0.4", "-C", "1"]) == 0
    outputs = {}
    for mode in ("naive", "pki", "pke", "split"):
        out = tmp_path / f"{mode}.conllu"
        assert main(["dep", "parse", "--model", str(model), str(test), "-o", str(out),
                     "--eval-mode", mode]) == 0
        outputs[mode] = out.read_text()
    assert len(set(outputs.values())) == 1
    default = tmp_path / "default.conllu"
    assert main(["dep", "parse", "--model", str(model), str(test), "-o", str(default),
                 "--rare-threshold", "3"]) == 0
    assert default.read_text() == outputs["naive"]
    capsys.readouterr()
    assert main(["dep", "evaluate", str(test), str(default), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["UAS"] > 90


def test_bad_rare_threshold(model: Path, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    test = write_treebank(tmp_path / "test.conllu", 3, seed=9)
    with pytest.raises(SystemExit) as exit_info:
        main(["dep", "parse", "--model", str(model), str(test), "--rare-threshold", "1.5"])
    assert exit_info.value.code == 2
    assert "--rare-threshold" in capsys.readouterr().err


def test_compressed_model_parses_the_same(model: Path, tmp_path: Path) -> None:
    train = write_treebank(tmp_path / "train.conllu", 200, seed=4)
    test = write_treebank(tmp_path / "test.conllu", 20, seed=9)
    packed = tmp_path / "packed.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(packed),
                 "--split-threshold", "100", "--compress"]) == 0
    assert packed.stat().st_size < model.stat().st_size
    outputs = []
    for path in (model, packed):
        out = tmp_path / f"{path.stem}.conllu"
        assert main(["dep", "parse", "--model", str(path), str(test), "-o", str(out)]) == 0
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]


def test_parse_without_model_and_without_bundled_model(tmp_path: Path, capsys,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:

    monkeypatch.setattr(bundled, "bundled_model", lambda: None)
    test = write_treebank(tmp_path / "test.conllu", 2, seed=9)
    code = main(["dep", "parse", str(test), "-o", str(tmp_path / "out.conllu")])
    one_error_line(capsys, code, "no model given")
    assert not (tmp_path / "out.conllu").exists()


def test_pa_slicing_parser_from_the_command_line(tmp_path: Path, capsys) -> None:
    train = write_treebank(tmp_path / "train.conllu", 200, seed=4)
    test = write_treebank(tmp_path / "test.conllu", 30, seed=9)
    model = tmp_path / "pa.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(model), "--split-threshold",
                 "100", "--classifier", "pa-slicing", "--variant", "perceptron",
                 "--iterations", "5", "--strategy", "split", "--compress"]) == 0
    out = tmp_path / "pred.conllu"
    assert main(["dep", "parse", "--model", str(model), str(test), "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["dep", "evaluate", str(test), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["UAS"] > 90


def test_same_command_same_bytes_with_dev_scores(tmp_path: Path) -> None:
    train = write_treebank(tmp_path / "train.conllu", 150, seed=4)
    dev = write_treebank(tmp_path / "dev.conllu", 20, seed=5)
    model = tmp_path / "m.model"
    digests = []
    for _ in range(2):
        assert main(["dep", "train", "--train", str(train), "--dev", str(dev), "--model",
                     str(model), "--split-threshold", "100", "--classifier", "pa-slicing",
                     "--iterations", "3", "--compress"]) == 0
        digests.append(model.read_bytes())
    assert digests[0] == digests[1]


@pytest.mark.parametrize("evaluator", ["split", "pki", "pke"])
def test_converted_kernel_parser_gives_the_same_trees(evaluator: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    train = write_treebank(tmp_path / "train.conllu", 200, seed=4)
    test = write_treebank(tmp_path / "test.conllu", 40, seed=9)
    kernel = tmp_path / "pa.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(kernel),
                 "--classifier", "pa-slicing", "--iterations", "3",
                 "--split-threshold", "100"]) == 0
    converted = tmp_path / f"{evaluator}.model"
    assert main(["dep", "convert", "--model", str(kernel), "--to", evaluator, "--output",
                 str(converted)]) == 0
    capsys.readouterr()
    assert main(["dep", "parse", "--model", str(kernel), str(test), "--eval-mode",
                 evaluator]) == 0
    expected = capsys.readouterr().out
    assert main(["dep", "parse", "--model", str(converted), str(test)]) == 0
    assert capsys.readouterr().out == expected
    loaded = DependencyParser.load(str(converted))
    assert loaded.info["converted"]["evaluator"] == evaluator
    assert any(isinstance(clf, KernelEvaluatorModel) for clf in loaded.classifiers.values())
    for mode in ("naive", "pki", "pke", "split"):
        code = main(["dep", "parse", "--model", str(converted), str(test), "--eval-mode", mode])
        if evaluator == "pki" or mode == evaluator:
            assert code == 0 and capsys.readouterr().out == expected
        else:
            one_error_line(capsys, code, "keep no support vectors")
    again = tmp_path / "again.model"
    code = main(["dep", "convert", "--model", str(converted), "--to", "split", "--output",
                 str(again)])
    if evaluator != "pki":
        one_error_line(capsys, code, "already converted")
        return
    assert code == 0
    capsys.readouterr()
    assert main(["dep", "parse", "--model", str(again), str(test)]) == 0
    assert capsys.readouterr().out == expected


def test_convert_needs_a_kernel_model(model: Path, tmp_path: Path,
                                      capsys: pytest.CaptureFixture) -> None:
    code = main(["dep", "convert", "--model", str(model), "--to", "split", "--output",
                 str(tmp_path / "x.model")])
    one_error_line(capsys, code, "has no kernel classifiers")
    assert list(tmp_path.iterdir()) == []


def test_evaluate_of_conll2007_basque_says_clas_needs_ud_relations(
        corpora: Path, capsys: pytest.CaptureFixture) -> None:
    """CoNLL 2007 Basque's relations are not UD's: CLAS, MLAS and BLEX print 0.00, with a note
    saying why (text) and the same note under "notes" (JSON)."""
    test = str(corpora / "conll2007" / "eus.test")
    options = ["--format", "conllx", "--encoding", "iso-8859-1"]
    assert main(["dep", "evaluate", test, test, *options]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "CLAS 0.00  MLAS 0.00  BLEX 0.00" in lines[0]
    assert lines[1].startswith("note: CLAS, MLAS and BLEX need UD relations: all 10096 gold "
                               "words have relations that are not UD's (ncmod, PUNC, auxmod")
    assert main(["dep", "evaluate", test, test, *options, "--json"]) == 0
    scores = json.loads(capsys.readouterr().out)
    assert scores["CLAS"] == 0.0 and scores["notes"] == [lines[1][len("note: "):]]


def test_a_kernel_parser_of_degree_four_parses_by_default(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture) -> None:
    """The split evaluator expands degrees 1 to 3: a degree-4 model is evaluated by pki when no
    --eval-mode is given (it ended in a traceback), and naive gives the same trees."""
    train = write_treebank(tmp_path / "train.conllu", 120, seed=4)
    test = write_treebank(tmp_path / "test.conllu", 20, seed=9)
    model = tmp_path / "kernel.model"
    assert main(["dep", "train", "--train", str(train), "--model", str(model), "--split-threshold",
                 "1000", "--classifier", "kernel-svm", "--degree", "4", "--gamma", "0.2"]) == 0
    outputs = []
    for mode in ([], ["--eval-mode", "naive"]):
        out = tmp_path / f"out{len(outputs)}.conllu"
        assert main(["dep", "parse", "--model", str(model), str(test), "-o", str(out),
                     *mode]) == 0
        outputs.append(out.read_text())
    assert outputs[0] == outputs[1]
    capsys.readouterr()
    code = main(["dep", "parse", "--model", str(model), str(test), "--eval-mode", "split"])
    one_error_line(capsys, code, "split")
