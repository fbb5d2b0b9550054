"""Sentences, tokens and words from raw text in any language: a segmenter (parser/segmentation/)
learned from each treebank's train file, run on its test text, scored as the CoNLL 2018 shared
task scored systems (Tokens, Sentences and Words F1 of conll18_ud_eval.py, parser/dependency/
evaluate.py), beside UDPipe 1.2's published figures. Prints one JSON object per measurement and,
with --results, writes its section of docs/results.md.

    python benchmarks/segmentation_ud.py [--corpora DIR] [--treebanks ko_gsd,en_ewt] [--runs 3]
                                         [--results docs/results.md]

Treebanks: every folder of DIR/ud22 (the shared task's UD 2.2 files with their raw text
`*-ud-test.txt`) and DIR/en_ewt (UD English EWT r2.16; its test text made as conllu_to_text.pl
makes it, parser/tokenize/treebank_text.py). Each segmenter is trained on train only, with the
settings every language shares; dev is only scored (the scores stay in the model's header). The
test text is read in Unicode normalization form C, as the gold file is. Training time is wall
and CPU time of train_segmenter in this process; the model's size is its file's bytes; speed is
the gold file's sentences per CPU second of segment() on one core (the best of --runs, the
multiword cache emptied before each). UDPipe 1.2's figures are read from DIR/ud22/README.md
(quoted there from the shared task's results pages; EWT's are of the r2.2 test set).
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path

from child_process import pinned_to_one_core
from machine import Records
from tables import markdown_table
from ud_treebanks import (
    add_treebank_options,
    against_baseline,
    run_per_treebank,
    test_text,
    treebank_row,
)

METRICS = ("Tokens", "Sentences", "Words")


def measure(name: str, folder: Path, runs: int, baseline: dict[str, float] | None,
            records: Records) -> None:
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.segmentation.scoring import segmentation_scores
    from polyparse.parser.segmentation.sentences import detokenize
    from polyparse.parser.segmentation.training import train_segmenter

    data = f"{name} test (raw text), trained on {name} train"
    started, cpu = time.perf_counter(), time.process_time()
    model = train_segmenter(folder / f"{name}-ud-train.conllu",
                            folder / f"{name}-ud-dev.conllu")
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu
    size = len(model.to_bytes())
    records.emit("segmenter training time", round(wall, 2), "s", data=data,
                 cpu_seconds=round(cpu, 2), model_bytes=size,
                 dev_scores=model.header.get("dev_scores"))
    gold = list(read_conll(folder / f"{name}-ud-test.conllu", require_deprel=False))
    text = test_text(folder, name)
    best = float("inf")
    with pinned_to_one_core():
        for _ in range(max(1, runs)):
            model.segmenter.splitter._cache.clear()
            began = time.process_time()
            sentences = model.segment(text)
            best = min(best, time.process_time() - began)
    records.emit("segmenter speed, model loaded, one core, CPU time", round(len(gold) / best),
                 "sentences/s", data=data, seconds=round(best, 4), characters=len(text),
                 gold_sentences=len(gold), system_sentences=len(sentences))
    back = detokenize(sentences)
    same = next((i for i, (a, b) in enumerate(zip(back, text)) if a != b),
                min(len(back), len(text)))
    records.emit("characters of the text not given back by the sentences",
                 0 if back == text else len(text) - same, "characters", data=data)
    scores = segmentation_scores(gold, sentences, str(folder / f"{name}-ud-test.conllu"))
    for metric in METRICS:
        extra = against_baseline("udpipe_1_2", scores[metric], (baseline or {}).get(metric))
        records.emit(f"{metric} F1", round(scores[metric], 2), "%", data=data,
                     precision=round(scores[f"{metric}_precision"], 2),
                     recall=round(scores[f"{metric}_recall"], 2), model_bytes=size,
                     training_seconds=round(wall, 2), **extra)


def section(records: Records, names: list[str]) -> list[str]:
    """The results page's table: per treebank, each F1 beside UDPipe 1.2's, training time, model
    size and speed."""
    rows = []
    for name in names:
        data = f"{name} test (raw text), trained on {name} train"
        rows.append(treebank_row(
            records, name, data, (f"{metric} F1" for metric in METRICS), "udpipe_1_2",
            ("segmenter training time", "cpu_seconds", "model_bytes"),
            "segmenter speed, model loaded, one core, CPU time"))
    return ["Each segmenter learned from its treebank's train file alone, run on the test file's "
            "raw text; F1 of conll18_ud_eval.py, UDPipe 1.2's published figure in brackets. "
            "Training is CPU seconds in this process; speed is sentences per CPU second on one "
            "core, model loaded.", "",
            *markdown_table(["treebank", "Tokens", "Sentences", "Words", "training, CPU s",
                             "model MiB", "sentences/s, one core"], rows)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_treebank_options(ap)
    ap.add_argument("--runs", type=int, default=3, help="timed runs of segment() (best kept)")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    return run_per_treebank(
        args, METRICS, "UD treebanks' test text (CoNLL 2018 shared task), raw",
        "segmentation_ud", "Sentences, tokens and words of UD raw text",
        lambda name, folder, baseline, _, records: measure(name, folder, args.runs, baseline,
                                                           records), section)


if __name__ == "__main__":
    raise SystemExit(main())
