"""The README's commands work: the set-up commands run, the usage lines name real options."""
from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

from parser.cli.main import build_parser

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCKS = re.findall(r"```sh\n(.*?)```", README, flags=re.S)


def setup_commands() -> tuple[str, str]:
    main_job, tests = (block.strip() for block in BLOCKS[:2])
    return main_job, tests


def test_ci_runs_exactly_the_readme_test_command() -> None:
    _, tests = setup_commands()
    assert tests in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def help_text(words: list[str]) -> str:
    parser = build_parser(every_group=True)
    for action in parser._subparsers._group_actions:
        group = action.choices[words[0]]
    for action in group._subparsers._group_actions:
        return action.choices[words[1]].format_help()
    raise AssertionError(words)


def test_every_usage_line_names_real_options() -> None:
    usage = BLOCKS[2]
    commands = re.findall(r"^polyparse (\w+) (\w+)(.*(?:\n {20,}.*)*)", usage, flags=re.M)
    assert len(commands) >= 6
    for group, command, rest in commands:
        text = help_text([group, command])
        for option in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", rest):
            assert option in text, f"polyparse {group} {command}: {option} is not an option"


def run_commands(commands: str, cwd: Path, corpora: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "POLYPARSE_CORPORA": str(corpora),
           "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    return subprocess.run(["bash", "-c", f"set -o pipefail; {commands}"], cwd=cwd, env=env,
                          capture_output=True, text=True, check=False)


def test_main_job_parses_the_example_and_scores_ewt_with_the_bundled_model(
        corpora: Path) -> None:
    main_job, _ = setup_commands()
    result = run_commands(main_job.split("pip install . && ", 1)[1], ROOT, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    import json

    lines = result.stdout.strip().splitlines()
    assert lines[0] == "# sent_id = example-1" and "\troot\t" in result.stdout
    scores = json.loads(lines[-1])
    assert scores["UAS"] >= 86.0 and scores["LAS"] >= 83.5


def test_training_recipe_trains_parses_and_scores_ewt(tmp_path: Path, corpora: Path) -> None:
    result = run_commands(BLOCKS[3].strip(), tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    import json

    scores = json.loads(result.stdout.strip().splitlines()[-1])
    assert scores["UAS"] > 85 and scores["LAS"] > 82
    gold = (corpora / "en_ewt" / "en_ewt-ud-test.conllu").read_bytes().splitlines()
    pred = (tmp_path / "pred.conllu").read_bytes().splitlines()
    word = re.compile(rb"^\d+\t")
    assert [line for line in pred if not word.match(line)] == \
        [line for line in gold if not word.match(line)]  # comments, ranges, empty nodes
    assert (tmp_path / "ewt.model").exists()


def test_srl_recipe_gives_the_readme_scores(tmp_path: Path, corpora: Path) -> None:
    block = next(block for block in BLOCKS
                 if block.startswith("C=") and "polyparse srl train" in block)
    # the recipe runs in a checkout; here its outputs go to tmp_path
    commands = block.strip().replace("python corpora_scripts/", f"python {ROOT}/corpora_scripts/")
    result = run_commands(commands, tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    import json

    scores = json.loads(result.stdout.strip().splitlines()[-1])
    shown = (f"precision {scores['precision']:.2f}, recall {scores['recall']:.2f}, "
             f"F1 {scores['F1']:.2f}")
    assert shown in README, f"the README does not show what the SRL recipe gives: {shown}"


def test_basque_example(tmp_path: Path, corpora: Path) -> None:
    command = shlex.split(re.search(r"`(polyparse [^`]*eus\.train[^`]*)`", README).group(1))
    command = [str(corpora / "conll2007" / w) if w == "eus.train" else w for w in command]
    result = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    assert (tmp_path / "eus.model").exists()


PYTHON_BLOCKS = re.findall(r"```python\n(.*?)```", README, flags=re.S)


def run_python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env={**os.environ, **env},
                          capture_output=True, text=True, check=False)


def test_python_example_parses_with_the_bundled_model(tmp_path: Path) -> None:
    result = run_python(PYTHON_BLOCKS[0], tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "# sent_id = example-1" in result.stdout and "\troot\t" in result.stdout
    assert "3 barked 0 root" in result.stdout


def test_python_example_trains_and_evaluates_on_ewt(tmp_path: Path, corpora: Path) -> None:
    result = run_python(PYTHON_BLOCKS[1], tmp_path, POLYPARSE_CORPORA=str(corpora))
    assert result.returncode == 0, result.stderr[-2000:]
    for line in result.stdout.splitlines():
        assert f"`{line}`" in README, f"the README does not show what the example prints: {line}"
    assert (tmp_path / "ewt-rich.model").exists()


def test_python_example_trains_and_converts_a_classifier(tmp_path: Path, kwdlc: Path) -> None:
    result = run_python(PYTHON_BLOCKS[2], tmp_path, POLYPARSE_DATASETS=str(kwdlc.parent))
    assert result.returncode == 0, result.stderr[-2000:]
    for line in result.stdout.splitlines():
        assert f"`{line}`" in README, f"the README does not show what the example prints: {line}"


def test_every_option_of_every_command_is_in_the_usage() -> None:
    usage = BLOCKS[2]
    parser = build_parser(every_group=True)
    for action in parser._subparsers._group_actions:
        for group_name, group in action.choices.items():
            for commands in group._subparsers._group_actions:
                for name, command in commands.choices.items():
                    found = re.search(rf"^polyparse {group_name} {name}(.*(?:\n {{20,}}.*)*)",
                                      usage, flags=re.M)
                    assert found, f"polyparse {group_name} {name} is not in the usage"
                    for option in command._actions:
                        names = [o for o in option.option_strings
                                 if o not in ("-h", "--help", "--debug", "-q", "--quiet")]
                        if names and not any(re.search(rf"(?<![\w-]){re.escape(o)}(?![\w-])",
                                                        found.group(1)) for o in names):
                            raise AssertionError(f"polyparse {group_name} {name} {names[0]}")
    assert "--debug" in README and "--quiet" in README and "polyparse --version" in usage


def test_japanese_recipe_trains_parses_chunks_and_scores_kwdlc(tmp_path: Path,
                                                                corpora: Path) -> None:
    recipe = next(block for block in BLOCKS if "knp_documents.py" in block)
    (tmp_path / "corpora_scripts").symlink_to(ROOT / "corpora_scripts")  # run from a checkout
    result = run_commands(recipe.strip(), tmp_path, corpora)
    assert result.returncode == 0, result.stderr[-2000:]
    import json

    lines = result.stdout.strip().splitlines()
    assert lines[0].startswith("dependency accuracy ") and float(lines[0].split()[-1]) >= 92.2
    scores = json.loads(lines[-1])
    assert scores["chunk_f1"] > 95.0 and scores["dependency_accuracy"] > 85.0


def test_python_example_trains_and_parses_japanese(tmp_path: Path, corpora: Path) -> None:
    code = next(block for block in PYTHON_BLOCKS if "train_japanese_parser" in block)
    result = run_python(code, tmp_path, POLYPARSE_CORPORA=str(corpora))
    assert result.returncode == 0, result.stderr[-2000:]
    for line in result.stdout.splitlines():
        assert f"`{line}`" in README, f"the README does not show what the example prints: {line}"


def test_python_example_trains_a_tree_classifier(tmp_path: Path, srl_boundary: Path) -> None:
    block = next(block for block in PYTHON_BLOCKS if "train_tree_classifier" in block)
    result = run_python(block, tmp_path, POLYPARSE_DATASETS=str(srl_boundary.parent))
    assert result.returncode == 0, result.stderr[-2000:]
    for line in result.stdout.splitlines():
        assert f"`{line}`" in README, f"the README does not show what the example prints: {line}"
