"""The house style that a linter can check: `ruff check` with the repository's configuration.

ruff is pinned in the test extras so that every checkout lints with the same rules; the test
fails (it does not skip) when ruff reports anything, so CI cannot go green on unlinted code.
"""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_ruff_check_is_clean() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--no-cache", "."],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
