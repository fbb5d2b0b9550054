"""The Japanese models that ship inside the package: each reads the dictionary it is named for,
has its note and is shipped by the package data, stays within 10 MB, and
the IPAdic model scores what parser/models/ja_ipadic.md says on its re-analysis of WAC dev."""
from __future__ import annotations

import fnmatch
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
from polyparse.parser.models.bundled import (
    JAPANESE_MODEL_FOR_TAGSET,
    JAPANESE_MODELS,
    bundled_japanese_model,
)
from tests.parser.cli.user_runs import polyparse

ROOT = Path(__file__).resolve().parents[3]
MODELS = ROOT / "parser" / "models"


def test_every_bundled_model_reads_its_dictionary_and_ships():
    # pyproject.toml's [tool.setuptools.package-data] line for this folder (Python 3.10 has
    # no tomllib).
    line = re.search(r'^"polyparse\.parser\.models" = \[(.*)\]$',
                     (ROOT / "pyproject.toml").read_text(encoding="utf-8"), re.M)
    assert line, "pyproject.toml must ship parser/models"
    patterns = re.findall(r'"([^"]+)"', line.group(1))
    assert sorted(JAPANESE_MODEL_FOR_TAGSET.values()) == sorted(JAPANESE_MODELS)
    for tagset, name in JAPANESE_MODEL_FOR_TAGSET.items():
        path = bundled_japanese_model(name)
        assert path is not None and path.name == JAPANESE_MODELS[name]
        # The bound on a bundled Japanese model's size (the UniDic model is 9.3 MB).
        assert path.stat().st_size <= 10_000_000, name
        assert BunsetsuParser.load(str(path)).tagset == tagset
        for shipped in (path.name, f"{name}.md"):
            assert (MODELS / shipped).is_file()
            assert any(fnmatch.fnmatch(shipped, pattern) for pattern in patterns), shipped


def documented_dev_scores() -> tuple[float, float, int]:
    note = (MODELS / "ja_ipadic.md").read_text(encoding="utf-8")
    match = re.search(r"WAC dev re-analysed the same way \((\d+) sentences\), gold bunsetsu "
                      r"\| gold \| acc\. ([\d.]+) \| ([\d.]+) \|", note)
    assert match, "ja_ipadic.md must state the WAC dev scores"
    return float(match.group(2)), float(match.group(3)), int(match.group(1))


def test_the_ipadic_model_scores_what_its_note_says(corpora: Path, tmp_path: Path):
    pytest.importorskip("fugashi")
    pytest.importorskip("ipadic")
    wac = corpora / "ja_wac"
    dev = tmp_path / "ipadic-wac-dev.cabocha"
    made = subprocess.run([sys.executable, str(ROOT / "corpora_scripts" / "mecab_bunsetsu.py"),
                           "--dictionary", "ipadic", "--ids", str(wac / "id" / "dev.id"),
                           "--corpus", str(wac / "knp"), "-o", str(dev), "--json"],
                          capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    stats = json.loads(made.stdout)
    accuracy, sentence_accuracy, n_sentences = documented_dev_scores()
    assert stats["sentences"] == n_sentences and stats["boundaries_crossed"] == 95
    parsed = polyparse("ja", "parse", str(dev))
    assert (parsed.returncode, parsed.stderr) == (0, ""), parsed.stderr
    scored = polyparse("ja", "evaluate", "--json", str(dev), "-", input=parsed.stdout)
    scores = json.loads(scored.stdout)
    assert round(scores["dependency_accuracy"], 2) == accuracy
    assert round(scores["sentence_accuracy"], 2) == sentence_accuracy
