"""docs/cli.md and docs/python.md are true: the usage names every option of every command and
no other, the recipes run on the corpora, and each Python example prints what the page says."""
from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from polyparse.parser.cli.main import build_parser
from tests.doc_blocks import ROOT, assert_shown, blocks, read_doc, run_commands, run_python

CLI = read_doc("docs/cli.md")
PYTHON = read_doc("docs/python.md")
USAGE = blocks(CLI, "sh")[0]
RECIPES = blocks(CLI, "sh")[1:]
EXAMPLES = blocks(PYTHON, "python")
# Flags every command takes; the page names them once, not in each usage line.
COMMON_FLAGS = ("-h", "--help", "--debug", "-q", "--quiet")


def commands() -> dict[tuple[str, str], object]:
    parser = build_parser(every_group=True)
    found = {}
    for action in parser._subparsers._group_actions:
        for group_name, group in action.choices.items():
            for group_action in group._subparsers._group_actions:
                for name, command in group_action.choices.items():
                    found[(group_name, name)] = command
    return found


def usage_of(group: str, command: str) -> str:
    found = re.search(rf"^polyparse {group} {command}(.*(?:\n {{20,}}.*)*)", USAGE, flags=re.M)
    assert found, f"polyparse {group} {command} is not in the usage"
    return found.group(1)


def test_every_usage_line_names_real_options() -> None:
    every = commands()
    lines = re.findall(r"^polyparse (\w+) (\w+)", USAGE, flags=re.M)
    assert len(lines) >= 12
    for group, command in lines:
        text = every[(group, command)].format_help()
        for option in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", usage_of(group, command)):
            assert option in text, f"polyparse {group} {command}: {option} is not an option"


def test_every_option_of_every_command_is_in_the_usage() -> None:
    for (group, name), command in commands().items():
        usage = usage_of(group, name)
        for option in command._actions:
            names = [o for o in option.option_strings if o not in COMMON_FLAGS]
            if names and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])", usage)
                                 for o in names):
                raise AssertionError(f"polyparse {group} {name} {names[0]}")
    assert all(flag in CLI for flag in ("--debug", "--quiet", "--help"))
    assert "polyparse --version" in USAGE


def recipe(marker: str) -> str:
    return next(block for block in RECIPES if marker in block).strip()


def test_training_recipe_trains_parses_and_scores_ewt(tmp_path: Path, corpora: Path) -> None:
    result = run_commands(recipe("polyparse dep train"), tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert scores["UAS"] > 85 and scores["LAS"] > 82
    gold = (corpora / "en_ewt" / "en_ewt-ud-test.conllu").read_bytes().splitlines()
    pred = (tmp_path / "pred.conllu").read_bytes().splitlines()
    word = re.compile(rb"^\d+\t")
    empty_node = re.compile(rb"^\d+\.\d+\t")
    # Comments and ranges as they came; empty nodes belong to the enhanced graph (DEPS), which
    # the parse blanks, so they go with it.
    assert [line for line in pred if not word.match(line)] == \
        [line for line in gold if not word.match(line) and not empty_node.match(line)]
    assert (tmp_path / "ewt.model").exists()


def test_japanese_recipe_trains_parses_chunks_and_scores_kwdlc(tmp_path: Path,
                                                                corpora: Path) -> None:
    (tmp_path / "corpora_scripts").symlink_to(ROOT / "corpora_scripts")  # run from a checkout
    result = run_commands(recipe("knp_documents.py"), tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("dependency accuracy ") and float(lines[0].split()[-1]) >= 92.0
    scores = json.loads(lines[-1])
    assert scores["chunk_f1"] > 95.0 and scores["dependency_accuracy"] > 85.0


def test_japanese_raw_text_recipe_parses_and_scores_by_characters(tmp_path: Path,
                                                                   corpora: Path) -> None:
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    (tmp_path / "corpora_scripts").symlink_to(ROOT / "corpora_scripts")
    result = run_commands(recipe("--by-characters"), tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert scores["dependency_f1"] > 85.0 and scores["chunk_f1"] > 95.0


def test_srl_recipe_splits_trains_predicts_and_scores(tmp_path: Path, corpora: Path) -> None:
    commands = recipe("polyparse srl train").replace("python corpora_scripts/",
                                                    f"python {ROOT}/corpora_scripts/")
    result = run_commands(commands, tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert scores["F1"] > 85.0 and scores["precision"] > 85.0


def test_basque_example(tmp_path: Path, corpora: Path) -> None:
    command = shlex.split(re.search(r"`(polyparse [^`]*eus\.train[^`]*)`", CLI).group(1))
    command = [str(corpora / "conll2007" / w) if w == "eus.train" else w for w in command]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "eus.model").exists()


def example(marker: str) -> str:
    return next(block for block in EXAMPLES if marker in block)


def test_python_example_parses_with_the_bundled_model(tmp_path: Path) -> None:
    result = run_python(example("load_parser()"), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "# sent_id = example-1" in result.stdout and "\troot\t" in result.stdout
    assert "3 barked 0 root" in result.stdout


def test_python_example_draws_trees(tmp_path: Path) -> None:
    result = run_python(example("polyparse.render"), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    shown = blocks(PYTHON[PYTHON.index("polyparse.render(dogs"):], "text")[0]
    assert result.stdout == shown
    svg = (tmp_path / "dogs.svg").read_text(encoding="utf-8")
    assert svg.startswith("<?xml") and svg.count("class='arc") == 2
    assert "<!DOCTYPE html>" in (tmp_path / "dogs.html").read_text(encoding="utf-8")


def test_python_example_tags_untagged_words(tmp_path: Path) -> None:
    result = run_python(example('[["The", "dog", "barked", "."]]'), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "('dog', 'NOUN', 'NN', 3)" in result.stdout
    assert "('barked', 'VERB', 'VBD', 0)" in result.stdout


def test_python_example_trains_and_evaluates_on_ewt(tmp_path: Path, corpora: Path) -> None:
    result = run_python(example("train_parser"), tmp_path, POLYPARSE_CORPORA=str(corpora))
    assert result.returncode == 0, result.stderr[-2000:]
    assert_shown(result.stdout, PYTHON, "docs/python.md")
    assert (tmp_path / "ewt-rich.model").exists()


def test_python_example_trains_and_converts_a_classifier(tmp_path: Path, kwdlc: Path) -> None:
    result = run_python(example("train_classifier"), tmp_path,
                        POLYPARSE_DATASETS=str(kwdlc.parent))
    assert result.returncode == 0, result.stderr[-2000:]
    assert_shown(result.stdout, PYTHON, "docs/python.md")


def test_python_example_trains_and_parses_japanese(tmp_path: Path, corpora: Path) -> None:
    result = run_python(example("train_japanese_parser"), tmp_path,
                        POLYPARSE_CORPORA=str(corpora))
    assert result.returncode == 0, result.stderr[-2000:]
    assert_shown(result.stdout, PYTHON, "docs/python.md")


def test_python_example_parses_japanese_raw_text(tmp_path: Path) -> None:
    pytest.importorskip("fugashi")
    pytest.importorskip("unidic_lite")
    result = run_python(example("ja_unidic"), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip() == "* 5D * 2D * 3D * 5D * 5D * -1D"
    assert_shown(result.stdout, PYTHON, "docs/python.md")


def test_python_example_trains_a_tree_classifier(tmp_path: Path, srl_boundary: Path) -> None:
    result = run_python(example("train_tree_classifier"), tmp_path,
                        POLYPARSE_DATASETS=str(srl_boundary.parent))
    assert result.returncode == 0, result.stderr[-2000:]
    assert_shown(result.stdout, PYTHON, "docs/python.md")


def test_tokenizer_recipe_trains_tokenizes_and_scores_ewt(tmp_path: Path, corpora: Path) -> None:
    result = run_commands(recipe("polyparse tokenize train"), tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert scores["Tokens"] > 98.5 and scores["Words"] > 98.5 and scores["Sentences"] > 75


def first_sentences(source: Path, target: Path, n: int) -> None:
    blocks = source.read_text(encoding="utf-8").split("\n\n")[:n]
    target.write_text("\n\n".join(blocks) + "\n\n", encoding="utf-8")


def test_text_parser_recipe_jackknifes_trains_parses_and_scores(tmp_path: Path,
                                                                corpora: Path) -> None:
    # The recipe on the first sentences of EWT (the benchmark runs it on all of them).
    from polyparse.parser.tokenize.treebank_text import raw_text

    small = tmp_path / "corpora" / "en_ewt"
    small.mkdir(parents=True)
    for part, n in (("train", 300), ("dev", 60), ("test", 60)):
        first_sentences(corpora / "en_ewt" / f"en_ewt-ud-{part}.conllu",
                        small / f"en_ewt-ud-{part}.conllu", n)
    (tmp_path / "test.txt").write_text(raw_text(small / "en_ewt-ud-test.conllu"),
                                       encoding="utf-8")
    for folder in ("corpora_scripts", "parser"):
        (tmp_path / folder).symlink_to(ROOT / folder)  # run from a checkout
    result = run_commands(recipe("jackknife_tags.py"), tmp_path, small.parent)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stderr.count("fold ") == 5
    las = re.search(r"^UAS [\d.]+  LAS ([\d.]+)", result.stdout, flags=re.M)
    assert las and float(las.group(1)) > 40.0
    assert (tmp_path / "train.jk.conllu").exists() and (tmp_path / "text.model").exists()


def test_python_example_tokenizes_text(tmp_path: Path) -> None:
    result = run_python(example("polyparse.tokenize("), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines() == [
        "1 Mr. Smith isn't here. | Mr. Smith is n't here .",
        "2 He's gonna call at 3:30. | He 's gon na call at 3:30 .", "3 Bye | Bye"]
    assert_shown(result.stdout, PYTHON, "docs/python.md")


def test_python_example_parses_files_on_a_dask_cluster(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    result = run_python(example("parse_files"), tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.splitlines() == ["3 parts, 12 sentences", "True"]
    assert_shown(result.stdout, PYTHON, "docs/python.md")
    assert (tmp_path / "parsed" / "_SUCCESS").exists()
