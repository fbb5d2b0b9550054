"""Dependency parser on UD English-EWT: training time and peak memory, model size, parse speed,
and test UAS/LAS. Prints one JSON object per measurement.

    python benchmarks/dep_ewt.py [--corpora DIR] [--classifier poly2-linear] [--model FILE]

Training runs `polyparse dep train` in a child process (peak memory = its maximum resident set
size from getrusage); parse speed is measured in this process on one core, model loaded and
sentences read beforehand (decode only), and also end to end (read, parse, write CoNLL-U).
"""
from __future__ import annotations

import argparse
import io
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from machine import corpora_arguments, emit, record


def main() -> int:
    ap = corpora_arguments(__doc__)
    ap.add_argument("--classifier", default="poly2-linear")
    ap.add_argument("--model", help="reuse this model instead of training one")
    ap.add_argument("--repeat", type=int, default=3, help="parse timings: best of N")
    args, extra = ap.parse_known_args()
    ewt = Path(args.corpora) / "en_ewt"
    train, dev, test = (ewt / f"en_ewt-ud-{part}.conllu" for part in ("train", "dev", "test"))
    data = "UD English-EWT 2.16, gold tags"
    with tempfile.TemporaryDirectory(prefix="polyparse-bench-") as folder:
        workdir = Path(folder)
        return run(args, extra, train, dev, test, data, workdir)


def run(args: argparse.Namespace, extra: list[str], train: Path, dev: Path, test: Path,
        data: str, workdir: Path) -> int:
    model = Path(args.model) if args.model else workdir / "ewt.model"
    if not args.model:
        command = [sys.executable, "-m", "parser.cli.main", "dep", "train", "--train", str(train),
                   "--dev", str(dev), "--model", str(model), "--classifier", args.classifier,
                   *extra]
        started = time.perf_counter()
        subprocess.run(command, check=True)
        seconds = time.perf_counter() - started
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        emit(record("dep train time", data, round(seconds, 1), "s", classifier=args.classifier,
                    cores=os.cpu_count(), args=extra))
        emit(record("dep train peak memory", data, round(peak, 1), "MB (max RSS)",
                    classifier=args.classifier))
    emit(record("dep model size", data, round(model.stat().st_size / 2**20, 1), "MB",
                classifier=args.classifier))

    from parser.dependency.dependency_parser import DependencyParser
    from parser.dependency.evaluate import evaluate
    from parser.formats.conll import read_conll, write_conll

    started = time.perf_counter()
    parser = DependencyParser.load(str(model))
    emit(record("dep model load time", data, round(time.perf_counter() - started, 2), "s",
                classifier=args.classifier))
    sentences = list(read_conll(str(test)))
    n_words = sum(len(s) for s in sentences)
    parser.parse(sentences[:10])
    best = float("inf")
    for _ in range(args.repeat):
        started = time.perf_counter()
        parsed = parser.parse(sentences)
        best = min(best, time.perf_counter() - started)
    emit(record("dep parse speed (decode, one core)", data + " test",
                round(len(sentences) / best), "sentences/s", tokens_per_s=round(n_words / best),
                classifier=args.classifier))
    best = float("inf")
    for _ in range(args.repeat):
        started = time.perf_counter()
        out = io.StringIO()
        batch = list(read_conll(str(test)))
        for sentence, (heads, deprels) in zip(batch, parser.parse(batch)):
            write_conll(sentence, heads, deprels, out)
        best = min(best, time.perf_counter() - started)
    emit(record("dep parse speed (read+parse+write, one core)", data + " test",
                round(len(sentences) / best), "sentences/s",
                tokens_per_s=round(n_words / best), classifier=args.classifier))
    from dataclasses import replace

    system = [replace(s, head=h, deprel=d) for s, (h, d) in zip(sentences, parsed)]
    scores = evaluate(sentences, system).as_dict()
    for key in ("UAS", "LAS"):
        emit(record(f"dep test {key}", data + " test", round(scores[key], 2), "%",
                    classifier=args.classifier))
    return 0


if __name__ == "__main__":
    sys.exit(main())
