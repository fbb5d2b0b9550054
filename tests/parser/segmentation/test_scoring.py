"""Scores from raw text on real treebanks (POLYPARSE_CORPORA): a segmenter learned from each
train file, run on the shared task's test text, scored as conll18_ud_eval.py scores. The bars
are below what the benchmark measures (benchmarks/segmentation_ud.py) and above UDPipe 1.2's
published figures where ours are."""
from __future__ import annotations

from pathlib import Path

import pytest

from polyparse.parser.segmentation.scoring import raw_text_scores
from polyparse.parser.segmentation.training import train_segmenter


@pytest.mark.parametrize("name, bars", [
    ("af_afribooms", {"Tokens": 99.75, "Sentences": 98.25, "Words": 99.75}),
    ("vi_vtb", {"Tokens": 86.0, "Sentences": 92.87, "Words": 86.0}),
    ("tr_imst", {"Tokens": 99.8, "Sentences": 96.0, "Words": 97.5}),
])
def test_scores_on_the_shared_task_text(corpora: Path, name: str,
                                        bars: dict[str, float]) -> None:
    folder = corpora / "ud22" / name
    if not folder.is_dir():
        pytest.skip(f"{folder} is missing")
    model = train_segmenter(folder / f"{name}-ud-train.conllu")
    text = (folder / f"{name}-ud-test.txt").read_text(encoding="utf-8")
    scores = raw_text_scores(model, folder / f"{name}-ud-test.conllu", text)
    for metric, bar in bars.items():
        assert scores[metric] >= bar, (metric, scores[metric])
