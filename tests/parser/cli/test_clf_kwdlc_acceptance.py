"""Issue acceptance: poly2-linear on all of kwdlc_dep reaches LIBLINEAR-POLY2's accuracy."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from parser.cli.main import main


def reference_accuracy(kwdlc: Path) -> float:
    readme = (kwdlc.parent / "README.md").read_text(encoding="utf-8")
    return float(re.search(r"REF_POLY2_ACC=([\d.]+)", readme).group(1))


def test_poly2_linear_reaches_liblinear_poly2(kwdlc: Path, tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    model = tmp_path / "kwdlc.model"
    assert main(["clf", "train", str(kwdlc / "train.svm"), "--model", str(model),
                 "--classifier", "poly2-linear"]) == 0
    capsys.readouterr()
    assert main(["clf", "predict", "--model", str(model), str(kwdlc / "test.svm"), "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["n"] == 12509
    assert result["accuracy"] >= reference_accuracy(kwdlc) - 0.2
