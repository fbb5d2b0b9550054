"""The code blocks of the README and of docs/, and how the doc tests run them."""
from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def read_doc(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def blocks(text: str, language: str) -> list[str]:
    """The fenced code blocks of one language, in order."""
    return re.findall(rf"```{language}\n(.*?)```", text, flags=re.S)


def run_commands(commands: str, cwd: Path, corpora: Path | None = None,
                 **env: str) -> subprocess.CompletedProcess:
    """Shell commands (pipefail on) with this interpreter's `polyparse` first on PATH."""
    environment = {**os.environ, **env,
                   "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}
    if corpora is not None:
        environment["POLYPARSE_CORPORA"] = str(corpora)
    return subprocess.run(["bash", "-c", f"set -o pipefail; {commands}"], cwd=cwd,
                          env=environment, capture_output=True, text=True, check=False,
                          stdin=subprocess.DEVNULL)


def run_python(code: str, cwd: Path, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env={**os.environ, **env},
                          capture_output=True, text=True, check=False, stdin=subprocess.DEVNULL)


def assert_shown(stdout: str, doc: str, name: str) -> None:
    """Every line an example prints is shown in the doc, in backticks."""
    for line in stdout.splitlines():
        assert f"`{line}`" in doc, f"{name} does not show what the example prints: {line}"
