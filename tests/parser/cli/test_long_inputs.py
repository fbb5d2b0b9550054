"""Issue 22, B8: SIGTERM and SIGINT end a parse inside one long sentence (thousands of bunsetsu
or tokens), clf predict inside its rows and clf train inside its solver, with the exit status of
a signal between sentences, no traceback and nothing written; srl predict inside its tree
scores, likewise.

The compiled loops check for signals every few thousand steps (features/signal_checks.pyx). The
test hook POLYPARSE_TEST_LONG_INPUT makes a loop say "ready" on stderr when it starts the long
sentence and wait for the signal, which is then pending inside the loop: a loop that did not
check would run to the end of the sentence and say "finished" (no timing is involved)."""
from __future__ import annotations

import io
import signal
from pathlib import Path

import numpy as np
import pytest

from polyparse.features.binary_matrix import BinaryMatrix
from polyparse.features.svmlight import write_svmlight
from polyparse.parser.formats.cabocha import knp_to_cabocha
from polyparse.parser.formats.knp import read_knp
from polyparse.parser.models.bundled import bundled_example
from tests.parser.bunsetsu.samples import Sentence, synthetic_sentences
from tests.parser.cli.user_runs import POLYPARSE, check_a_signal_inside_a_long_input, polyparse

# The long sentence: its bunsetsu (or tokens), and the length at which the hook speaks (no
# other sentence comes near it). Each is many times the loops' CHECK_STEPS.
LONG = 20_000
HOOK_LENGTH = 10_000
SIGNALS = [signal.SIGTERM, signal.SIGINT]
# Rows of a training file: the solvers take CHECK_STEPS steps long before they end.
TRAINING_ROWS = 4_000
GOLD_CONLL = Path(__file__).resolve().parents[2] / "data" / "gold_conll" / "good.gold_conll"


def knp_block(sentence: Sentence, sid: str, bunsetsu_lines: bool = True) -> str:
    lines = [f"# S-ID:{sid}"]
    chunk_of = {start: c for c, start in enumerate(sentence.chunk_starts)}
    for m, surface in enumerate(sentence.surface):
        if bunsetsu_lines and m in chunk_of:
            lines.append(f"* {sentence.heads[chunk_of[m]]}D")
        lines.append(f"{surface} {surface} {surface} {sentence.pos1[m]} 1 {sentence.pos2[m]} 1 "
                     f"* 0 {sentence.conj_form[m]} 0 NIL")
    return "\n".join(lines + ["EOS"]) + "\n"


def long_sentence(n_chunks: int) -> Sentence:
    """n_chunks synthetic bunsetsu in one sentence, each depending on the next."""
    long = Sentence(sent_id="long-1")
    for sentence in synthetic_sentences(7, n_chunks):
        long.chunk_starts.extend(len(long.surface) + start for start in sentence.chunk_starts)
        for name in ("surface", "pos1", "pos2", "conj_form"):
            getattr(long, name).extend(getattr(sentence, name))
        if len(long.chunk_starts) > n_chunks:
            break
    end = long.chunk_starts[n_chunks]
    del long.chunk_starts[n_chunks:]
    for name in ("surface", "pos1", "pos2", "conj_form"):
        del getattr(long, name)[end:]
    long.heads = list(range(1, n_chunks)) + [-1]
    return long


def long_conllu_sentence(n_tokens: int) -> str:
    """One CoNLL-U sentence of the bundled example's words, n_tokens of them, as a chain."""
    words = [line.split("\t") for line in bundled_example().read_text().splitlines()
             if line and not line.startswith("#")]
    lines = ["# sent_id = long-1"]
    for i in range(1, n_tokens + 1):
        _, form, lemma, upos, xpos, *_ = words[(i - 1) % len(words)]
        label = "root" if i == 1 else "dep"
        lines.append(f"{i}\t{form}\t{lemma}\t{upos}\t{xpos}\t_\t{i - 1}\t{label}\t_\t_")
    return "\n".join(lines) + "\n\n"


def svm_file(path: Path, n_rows: int, seed: int) -> Path:
    """A binary svmlight file: 12 of 200 features a row, labels from noisy weights."""
    rng = np.random.default_rng(seed)
    weights = rng.normal(size=200)
    rows = [np.sort(rng.choice(200, size=12, replace=False)) for _ in range(n_rows)]
    labels = [1 if weights[row].sum() + rng.normal() > 0 else -1 for row in rows]
    write_svmlight(path, BinaryMatrix.from_rows(rows, n_features=200), np.array(labels),
                   id_offset=1)
    return path


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Japanese models trained on synthetic sentences, by shift-reduce and by cascaded
    chunking, each with its bunsetsu chunker."""
    folder = tmp_path_factory.mktemp("long")
    train = folder / "train.knp"
    train.write_text("".join(knp_block(s, f"train-{i}")
                             for i, s in enumerate(synthetic_sentences(1, 400))),
                     encoding="utf-8")
    out = {}
    for algorithm in ("shift-reduce", "cascaded"):
        out[algorithm] = folder / f"{algorithm}.model"
        result = polyparse("ja", "train", "--train", str(train), "--model", str(out[algorithm]),
                           "--algorithm", algorithm, "--iterations", "5")
        assert result.returncode == 0, result.stderr
    return out


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("algorithm, given", [("shift-reduce", "knp"), ("cascaded", "knp"),
                                              ("shift-reduce", "cabocha"),
                                              ("shift-reduce", "morphemes")])
def test_ja_parse_ends_inside_a_long_sentence(models, tmp_path: Path, algorithm: str,
                                              given: str, signum: int) -> None:
    """KNP takes the fast path (scanned and parsed from the bytes), CaboCha the Python reader;
    KNP morphemes without bunsetsu lines are chunked first, and the signal comes inside the
    chunker's loop."""
    sentence = long_sentence(LONG)
    text = knp_block(sentence, "long-1", bunsetsu_lines=given != "morphemes")
    options = []
    if given == "cabocha":
        text = knp_to_cabocha(next(read_knp(io.StringIO(text))))
        options = ["--format", "cabocha"]
    source = tmp_path / f"long.{given}"
    source.write_text(text, encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_inside_a_long_input(
        [POLYPARSE, "ja", "parse", "--model", str(models[algorithm]), str(source), "-o",
         str(folder / "parsed"), *options], HOOK_LENGTH, folder, signum)


@pytest.mark.parametrize("signum", SIGNALS)
def test_dep_parse_ends_inside_a_long_sentence(tmp_path: Path, signum: int) -> None:
    """The bundled English model on one sentence of LONG tokens."""
    source = tmp_path / "long.conllu"
    source.write_text(long_conllu_sentence(LONG), encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_inside_a_long_input(
        [POLYPARSE, "dep", "parse", str(source), "-o", str(folder / "parsed.conllu")],
        HOOK_LENGTH, folder, signum)


@pytest.fixture(scope="module")
def kernel_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("clf")
    model = folder / "kernel.model"
    result = polyparse("clf", "train", str(svm_file(folder / "train.svm", 600, 1)), "--model",
                       str(model), "--classifier", "kernel-svm")
    assert result.returncode == 0, result.stderr
    return model


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("eval_mode", ["naive", "split"])
def test_clf_predict_ends_inside_its_rows(kernel_model: Path, tmp_path: Path, eval_mode: str,
                                          signum: int) -> None:
    """The scorer's loop over LONG rows (the decision values are written after it)."""
    test = svm_file(tmp_path / "test.svm", LONG, 2)
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_inside_a_long_input(
        [POLYPARSE, "clf", "predict", "--model", str(kernel_model), str(test), "--eval-mode",
         eval_mode, "--decision-values", str(folder / "values.txt")], HOOK_LENGTH, folder,
        signum, output_open=False)


@pytest.mark.parametrize("signum", SIGNALS)
@pytest.mark.parametrize("classifier", ["kernel-svm", "pa-slicing", "poly2-linear"])
def test_clf_train_ends_inside_its_solver(tmp_path: Path, classifier: str, signum: int) -> None:
    """SMO, PA-I by kernel slicing and dual coordinate descent on TRAINING_ROWS rows of two
    classes, in the main thread (the model is written after them)."""
    train = svm_file(tmp_path / "train.svm", TRAINING_ROWS, 3)
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_inside_a_long_input(
        [POLYPARSE, "clf", "train", str(train), "--model", str(folder / "m.model"),
         "--classifier", classifier], TRAINING_ROWS, folder, signum, output_open=False)


@pytest.mark.parametrize("signum", SIGNALS)
def test_srl_predict_ends_inside_its_tree_scores(tmp_path: Path, signum: int) -> None:
    """The DAG scores of every candidate node: 46 a copy of the sample file, 300 copies (the
    predictions are written after them)."""
    model = tmp_path / "srl.model"
    result = polyparse("srl", "train", "--train", str(GOLD_CONLL), "--model", str(model))
    assert result.returncode == 0, result.stderr
    source = tmp_path / "long.gold_conll"
    source.write_text(GOLD_CONLL.read_text(encoding="utf-8") * 300, encoding="utf-8")
    folder = tmp_path / "out"
    folder.mkdir()
    check_a_signal_inside_a_long_input(
        [POLYPARSE, "srl", "predict", "--model", str(model), str(source), "-o",
         str(folder / "predicted.gold_conll")], HOOK_LENGTH, folder, signum, output_open=False)
