"""benchmarks/cpa_srl.py --smoke: every part it is asked for prints its records, the three
cutting-plane algorithms agree, and a bad part is one line and exit 2."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "cpa_srl.py"


def run(*args: str, datasets: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(SCRIPT), "--datasets", str(datasets), *args],
                          check=False, capture_output=True, text=True, timeout=300)


def test_smoke_run(srl_boundary: Path) -> None:
    done = run("--smoke", "--parts", "training,classification,threads",
               datasets=srl_boundary.parent)
    assert done.returncode == 0, done.stderr
    records = {row["what"]: row for row in map(json.loads, done.stdout.splitlines())}
    for algorithm in ("usvm", "sdag", "sdag+"):
        assert records[f"training seconds, {algorithm}"]["iterations"] == 3
    for algorithm in ("sdag", "sdag+"):
        assert records[f"training speed-up of {algorithm} over usvm"]["alpha_difference"] < 1e-9
    speed_up = records["classification speed-up of the DAG"]
    assert speed_up["largest_relative_difference"] < 1e-9
    assert records["classification, uSVM model (plain kernel sum)"]["timed_trees"] == 200
    assert records["MVC speed-up of 2 threads"]["identical_models"] is True


def test_an_unknown_part_is_one_line(srl_boundary: Path) -> None:
    done = run("--parts", "training,speed", datasets=srl_boundary.parent)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == [
        "cpa_srl: unknown part 'speed' (expected training, classification, imbalance, "
        "threads, all)"]
