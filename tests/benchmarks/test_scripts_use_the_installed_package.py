"""The scripts of benchmarks/, corpora_scripts/ and docs/scripts/ import polyparse as an
installed user would: no edits of sys.path (which made the checkout's uncompiled source folders
shadow the installed packages), and each starts from the checkout root."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Modules the scripts share; they are imported, not run.
SHARED = {"machine.py", "tables.py", "child_process.py", "conllu_columns.py",
          "headless_chromium.py", "knp_corpora.py", "ud_treebanks.py", "__init__.py"}
SCRIPTS = sorted(path for folder in ("benchmarks", "corpora_scripts", "docs/scripts")
                 for path in (ROOT / folder).glob("*.py") if path.name not in SHARED)


def test_there_are_scripts() -> None:
    assert len(SCRIPTS) >= 10


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.name for path in SCRIPTS])
def test_no_script_edits_the_module_path(script: Path) -> None:
    assert "sys.path" not in script.read_text(encoding="utf-8")


@pytest.mark.parametrize("script", SCRIPTS, ids=[path.name for path in SCRIPTS])
def test_every_script_starts_from_the_checkout_root(script: Path) -> None:
    result = subprocess.run([sys.executable, str(script.relative_to(ROOT)), "--help"], cwd=ROOT,
                            capture_output=True, text=True, stdin=subprocess.DEVNULL)
    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith("usage:")
