"""`polyparse ja train|parse|evaluate` run as a user runs them (the installed command in a child
process), on synthetic KNP and CaboCha files: training from files and from a document id list,
malformed training sentences skipped and named (or fatal with --strict), options checked before
the data, byte-identical models, output that changes nothing but heads, chunking of input
without bunsetsu lines, evaluation keys, and one-line errors for bad input with nothing
written."""
from __future__ import annotations

import io
import json
import signal
from pathlib import Path

import numpy as np
import pytest

from polyparse.classifiers.model_file import read_model_file
from polyparse.parser.bunsetsu.bunsetsu_parser import MODEL_FORMAT
from polyparse.parser.bunsetsu.evaluate import dependency_scores
from polyparse.parser.formats.cabocha import knp_to_cabocha
from polyparse.parser.formats.knp import read_knp
from tests.parser.bunsetsu.samples import Sentence, synthetic_sentences
from tests.parser.cli.user_runs import (
    POLYPARSE,
    check_a_closed_pipe_ends_quietly,
    check_a_signal_while_parsing_leaves_nothing,
    check_sigterm_ends_training_at_once,
    one_line,
    polyparse,
)


def knp_block(sentence: Sentence, sid: str, heads: list[int] | None = None) -> str:
    heads = sentence.heads if heads is None else heads
    lines = [f"# S-ID:{sid}"]
    starts = set(sentence.chunk_starts)
    chunk = 0
    for m, surface in enumerate(sentence.surface):
        if m in starts:
            lines.append(f"* {heads[chunk]}D")
            lines.append(f"+ {heads[chunk]}D")
            chunk += 1
        lines.append(f"{surface} {surface} {surface} {sentence.pos1[m]} 1 {sentence.pos2[m]} 1 "
                     f"* 0 {sentence.conj_form[m]} 0 NIL")
    lines.append("EOS")
    return "\n".join(lines) + "\n"


def write_knp(path: Path, sentences: list[Sentence], prefix: str = "s") -> Path:
    path.write_text("".join(knp_block(s, f"{prefix}-{i}") for i, s in enumerate(sentences)),
                    encoding="utf-8")
    return path


def without_bunsetsu_lines(text: str) -> str:
    return "".join(line for line in text.splitlines(keepends=True)
                   if not line.startswith(("* ", "+ ")))


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("ja")
    train = write_knp(folder / "train.knp", synthetic_sentences(1, 400), "train")
    test = write_knp(folder / "test.knp", synthetic_sentences(2, 60), "test")
    model = folder / "syn.model"
    result = polyparse("ja", "train", "--train", str(train), "--model", str(model),
                       "--iterations", "5")
    assert result.returncode == 0, result.stderr
    return {"folder": folder, "train": train, "test": test, "model": model}


def test_parse_changes_only_heads_and_evaluate_reports_accuracy(data) -> None:
    out = data["folder"] / "parsed.knp"
    result = polyparse("ja", "parse", "--model", str(data["model"]), str(data["test"]),
                       "-o", str(out))
    assert result.returncode == 0 and result.stderr == "", result.stderr
    gold_lines = data["test"].read_text(encoding="utf-8").splitlines()
    system_lines = out.read_text(encoding="utf-8").splitlines()
    assert len(gold_lines) == len(system_lines)
    for gold, system in zip(gold_lines, system_lines):
        if gold.startswith("* "):
            assert system.startswith("* ") and system[-1] in "DPAI"
        else:
            assert gold == system
    scores = json.loads(polyparse("ja", "evaluate", str(data["test"]), str(out), "--json").stdout)
    assert set(scores) >= {"dependency_accuracy", "sentence_accuracy"}
    assert "chunk_f1" not in scores
    gold, system = list(read_knp(str(data["test"]))), list(read_knp(str(out)))
    expected = dependency_scores([g.heads for g in gold], [s.heads for s in system])
    assert scores["dependency_accuracy"] == expected["dependency_accuracy"] < 100.0
    again = json.loads(polyparse("ja", "evaluate", str(data["test"]), str(data["test"]),
                                 "--json").stdout)
    assert again["dependency_accuracy"] == again["sentence_accuracy"] == 100.0


def test_input_without_bunsetsu_lines_is_chunked(data) -> None:
    stripped = data["folder"] / "stripped.knp"
    stripped.write_text(without_bunsetsu_lines(data["test"].read_text(encoding="utf-8")),
                        encoding="utf-8")
    result = polyparse("ja", "parse", "--model", str(data["model"]), str(stripped))
    assert result.returncode == 0, result.stderr
    parsed = list(read_knp(io.StringIO(result.stdout)))
    assert all(s.chunk_starts and s.chunk_starts[0] == 0 for s in parsed)
    evaluated = polyparse("ja", "evaluate", str(data["test"]), "-", "--json",
                          input=result.stdout)
    scores = json.loads(evaluated.stdout)
    assert scores["chunk_f1"] > 90.0


@pytest.mark.parametrize("fmt", ["knp", "cabocha"])
def test_rechunk_replaces_the_bunsetsu_of_the_input(data, fmt: str) -> None:
    """--rechunk on input with bunsetsu lines gives what its morphemes alone give."""
    text = data["test"].read_text(encoding="utf-8")
    if fmt == "cabocha":
        text = "".join(knp_to_cabocha(s) for s in read_knp(io.StringIO(text)))
    stripped = "".join(line for line in text.splitlines(keepends=True)
                       if not line.startswith(("* ", "+ ")))
    options = ["ja", "parse", "--model", str(data["model"]), "--format", fmt]
    rechunked = polyparse(*options, "--rechunk", input=text)
    assert rechunked.returncode == 0 and rechunked.stderr == "", rechunked.stderr
    assert rechunked.stdout == polyparse(*options, input=stripped).stdout


def test_same_data_and_seed_give_the_same_model_bytes(data) -> None:
    path = data["folder"] / "same.model"
    contents = []
    for threads in ("2", "2", "1"):
        result = polyparse("ja", "train", "--train", str(data["train"]), "--model", str(path),
                           "--iterations", "5", "--threads", threads)
        assert result.returncode == 0, result.stderr
        contents.append(path.read_bytes())
        if threads == "2":
            header_2, arrays_2 = read_model_file(path, MODEL_FORMAT)
    assert contents[0] == contents[1]
    header_1, arrays_1 = read_model_file(path, MODEL_FORMAT)
    assert header_1.pop("training_command") != header_2.pop("training_command")
    assert header_1 == header_2
    assert arrays_1.keys() == arrays_2.keys()
    assert all(np.array_equal(arrays_1[key], arrays_2[key]) for key in arrays_1)


def test_malformed_training_sentences_are_skipped_and_named(data, tmp_path: Path) -> None:
    text = data["train"].read_text(encoding="utf-8").splitlines(keepends=True)
    first_star = next(i for i, line in enumerate(text) if line.startswith("* "))
    text[first_star] = "* 0D\n"
    broken = tmp_path / "broken.knp"
    broken.write_text("".join(text), encoding="utf-8")
    model = tmp_path / "m.model"
    result = polyparse("ja", "train", "--train", str(broken), "--model", str(model),
                       "--iterations", "2", "--no-chunker")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 2
    assert f"skipped train-0: {broken}:{first_star + 1}: bunsetsu 0 is its own head" \
        in warnings[0]
    assert "skipped 1 malformed training sentence of 400" in warnings[1]
    strict = polyparse("ja", "train", "--train", str(broken), "--model", str(tmp_path / "s"),
                       "--strict")
    one_line(strict, f"{broken}:{first_star + 1}:", "its own head")
    assert not (tmp_path / "s").exists()


def test_training_from_a_document_id_list(data, tmp_path: Path) -> None:
    corpus = tmp_path / "knp"
    ids = []
    for number, sentence in enumerate(synthetic_sentences(5, 30)):
        doc = f"w201106-00000{number:05d}"
        (corpus / doc[:-5]).mkdir(parents=True, exist_ok=True)
        (corpus / doc[:-5] / f"{doc}.knp").write_text(knp_block(sentence, f"{doc}-1"),
                                                      encoding="utf-8")
        ids.append(doc)
    id_file = tmp_path / "train.id"
    id_file.write_text("\n".join(ids) + "\n", encoding="utf-8")
    model = tmp_path / "ids.model"
    result = polyparse("ja", "train", "--ids", str(id_file), "--corpus", str(corpus),
                       "--model", str(model), "--iterations", "2")
    assert result.returncode == 0, result.stderr
    assert "training on 30 sentences" in result.stderr
    id_file.write_text("\n".join(ids[:3] + ["w201106-9999999999"]) + "\n", encoding="utf-8")
    one_line(polyparse("ja", "train", "--ids", str(id_file), "--corpus", str(corpus),
                       "--model", str(tmp_path / "x.model")),
             f"{id_file}:4: no document w201106-9999999999")


@pytest.mark.parametrize("options, expected", [
    (["--threads", "0"], "--threads must be at least 1"),
    (["-C", "-1"], "C"),
    (["--ids", "x.id"], "--ids and --corpus go together"),
    (["--degree", "7"], "degree"),
])
def test_train_options_are_checked_before_the_data(tmp_path: Path, options: list[str],
                                                   expected: str) -> None:
    missing = tmp_path / "missing.knp"
    args = ["--train", str(missing)] if "--ids" not in options else []
    result = polyparse("ja", "train", *args, "--model", str(tmp_path / "m"), *options)
    line = one_line(result, expected)
    assert "missing.knp" not in line


def test_model_path_is_checked_before_the_data(tmp_path: Path) -> None:
    one_line(polyparse("ja", "train", "--train", str(tmp_path / "missing.knp"), "--model",
                       str(tmp_path / "no" / "such" / "m.model")), "m.model")


@pytest.mark.parametrize("case", ["broken bunsetsu line", "bunsetsu line without head",
                                  "no EOS", "utf-8"])
def test_bad_parse_input_is_one_line_and_writes_nothing(data, tmp_path: Path, case: str) -> None:
    good = knp_block(synthetic_sentences(3, 1)[0], "a")
    if case in ("broken bunsetsu line", "bunsetsu line without head"):
        lines = good.splitlines(keepends=True)
        star = next(i for i, line in enumerate(lines) if line.startswith("* "))
        lines[star] = "* xD\n" if case == "broken bunsetsu line" else "*\n"
        data_bytes = (good + "".join(lines)).encode("utf-8")
        line_no = good.count("\n") + star + 1
    elif case == "no EOS":
        data_bytes = (good + good[: -len("EOS\n")]).encode("utf-8")
        line_no = None
    else:
        data_bytes = good.encode("utf-8") + b"# S-ID:b\n\xff\xfe\nEOS\n"
        line_no = good.count("\n") + 2
    bad = tmp_path / "bad.knp"
    bad.write_bytes(data_bytes)
    out = tmp_path / "out.knp"
    result = polyparse("ja", "parse", "--model", str(data["model"]), str(bad), "-o", str(out))
    line = one_line(result, str(bad))
    if line_no is not None:
        assert f"{bad}:{line_no}:" in line
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir()] == ["bad.knp"]


@pytest.mark.parametrize("heads, problem", [
    ("* 9D", "outside the sentence"),
    ("* 0D", "its own head"),
])
def test_bad_gold_trees_are_one_line(data, tmp_path: Path, heads: str, problem: str) -> None:
    good = knp_block(synthetic_sentences(4, 1, max_chunks=1)[0], "a")
    sentence = synthetic_sentences(8, 20)
    two = next(s for s in sentence if len(s.chunk_starts) >= 3)
    block = knp_block(two, "b").splitlines(keepends=True)
    star = next(i for i, line in enumerate(block) if line.startswith("* "))
    block[star] = heads + "\n"
    gold = tmp_path / "gold.knp"
    gold.write_text(good + "".join(block), encoding="utf-8")
    one_line(polyparse("ja", "evaluate", str(gold), str(gold)),
             f"{gold}:{good.count(chr(10)) + star + 1}:", problem)


def test_unknown_parts_of_speech_are_reported_in_one_warning(data, tmp_path: Path) -> None:
    text = data["test"].read_text(encoding="utf-8")
    for tag in ("名詞", "動詞", "助詞", "特殊", "形容詞"):
        text = text.replace(f" {tag} ", " NOUN_X ")
    other = tmp_path / "other.knp"
    other.write_text(text, encoding="utf-8")
    result = polyparse("ja", "parse", "--model", str(data["model"]), str(other))
    assert result.returncode == 0
    warnings = result.stderr.strip().splitlines()
    assert len(warnings) == 1 and "have POS tags the model never saw in training (NOUN_X)" in warnings[0]
    assert "NOUN_X" in warnings[0]


def test_cabocha_files_train_parse_and_evaluate(data, tmp_path: Path) -> None:
    def cabocha(path: Path) -> Path:
        target = tmp_path / (path.stem + ".cabocha")
        target.write_text("".join(knp_to_cabocha(s) for s in read_knp(str(path))),
                          encoding="utf-8")
        return target

    train, test = cabocha(data["train"]), cabocha(data["test"])
    model = tmp_path / "c.model"
    result = polyparse("ja", "train", "--train", str(train), "--model", str(model),
                       "--format", "cabocha", "--iterations", "5")
    assert result.returncode == 0, result.stderr
    parsed = polyparse("ja", "parse", "--model", str(model), str(test), "--format", "cabocha")
    assert parsed.returncode == 0, parsed.stderr
    scores = json.loads(polyparse("ja", "evaluate", str(test), "-", "--format", "cabocha",
                                  "--json", input=parsed.stdout).stdout)
    knp_scores = json.loads(polyparse(
        "ja", "evaluate", str(data["test"]), "-", "--json",
        input=polyparse("ja", "parse", "--model", str(data["model"]),
                        str(data["test"])).stdout).stdout)
    assert scores == knp_scores


def test_broken_cabocha_bunsetsu_line_is_one_line(data, tmp_path: Path) -> None:
    sentences = list(read_knp(str(data["test"])))[:2]
    text = "".join(knp_to_cabocha(s) for s in sentences)
    lines = text.splitlines(keepends=True)
    second = [i for i, line in enumerate(lines) if line.startswith("* ")][-1]
    lines[second] = "* 1 xD 0/0 0.000000\n"
    bad = tmp_path / "bad.cabocha"
    bad.write_text("".join(lines), encoding="utf-8")
    out = tmp_path / "out.cabocha"
    one_line(polyparse("ja", "parse", "--model", str(data["model"]), str(bad), "-o", str(out),
                       "--format", "cabocha"), f"{bad}:{second + 1}:")
    assert not out.exists()
    one_line(polyparse("ja", "train", "--train", str(bad), "--format", "cabocha", "--model",
                       str(tmp_path / "m.model")), f"{bad}:{second + 1}:")
    assert not (tmp_path / "m.model").exists()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_while_parsing_leaves_nothing(data, tmp_path: Path, signum: int) -> None:
    """The signal comes once the progress bar shows (the temporary output is open) while the
    input, a pipe held open here, still waits for more: the run can only end by the signal."""
    check_a_signal_while_parsing_leaves_nothing(
        [POLYPARSE, "ja", "parse", "--model", str(data["model"]), "-", "-o",
         str(tmp_path / "out.knp")], data["test"].read_bytes(), tmp_path, signum)


def test_a_signal_while_training_ends_it_at_once(data, tmp_path: Path) -> None:
    """A million passes over 400 sentences would run for hours: ending within the hang guard
    after SIGTERM (sent once the log says the examples are built) is ending at once."""
    check_sigterm_ends_training_at_once(
        [POLYPARSE, "ja", "train", "--train", str(data["train"]), "--model",
         str(tmp_path / "m.model"), "--iterations", "1000000"], "examples", tmp_path)


def test_closed_pipe_ends_quietly(data) -> None:
    """stdout is closed by its reader after the first sentences came back; the next ones fed
    make the child write into the closed pipe."""
    blocks = data["test"].read_bytes()
    check_a_closed_pipe_ends_quietly([POLYPARSE, "ja", "parse", "--model", str(data["model"])],
                                     blocks, b"EOS\n", blocks.count(b"EOS\n"), blocks)


def test_parse_without_model_uses_the_bundled_model() -> None:
    from polyparse.parser.models.bundled import bundled_japanese_example

    example = bundled_japanese_example()
    result = polyparse("ja", "parse", str(example))
    assert result.returncode == 0, result.stderr
    parsed = list(read_knp(io.StringIO(result.stdout)))
    assert parsed[0].chunk_starts == [0, 2, 4, 6]
    assert parsed[0].heads == [3, 2, 3, -1]
    assert without_bunsetsu_lines(result.stdout) == example.read_text(encoding="utf-8")


def test_evaluate_refuses_other_morphemes(data, tmp_path: Path) -> None:
    """Issue 22, B9: a system file whose morphemes are not the gold file's is refused in one
    line naming both places, not scored."""
    out = tmp_path / "parsed.knp"
    assert polyparse("ja", "parse", "--model", str(data["model"]), str(data["test"]), "-o",
                     str(out)).returncode == 0
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    k = next(i for i, line in enumerate(lines) if not line.startswith(("#", "*", "+", "EOS")))
    surface = lines[k].split(" ", 1)[0]
    lines[k] = "違う" + lines[k][len(surface):]
    other = tmp_path / "other.knp"
    other.write_text("".join(lines), encoding="utf-8")
    result = polyparse("ja", "evaluate", str(data["test"]), str(other))
    assert result.returncode == 2 and result.stdout == ""
    (line,) = result.stderr.splitlines()
    assert line.startswith(f"polyparse: {other}:{k + 1}: sentence 1 has other morphemes")
    assert f"'違う' where the gold file has '{surface}'" in line
