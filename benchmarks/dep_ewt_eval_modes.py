"""The kernel-svm dependency parser on UD English-EWT under each evaluation mode (issue 3's
benchmarks (b) and (c)). Prints one JSON object per measurement.

    python benchmarks/dep_ewt_eval_modes.py [--corpora DIR] [--model FILE] [--modes naive,pki,pke,split]

Without --model it trains `polyparse dep train --classifier kernel-svm` (defaults: degree 2,
MaltParser's libsvm settings) in a child process, timing it. Then, for every mode:
the time to build the evaluators from the loaded model, their memory, the decode speed on the
test set (one core, sentences read beforehand, best of --repeat; each mode in a fresh process),
whether the trees equal those of the first mode, and the test UAS/LAS. Finally (b):
microseconds per decision of each mode for the largest transition classifier and the largest
label classifier (and per vote, as the parser asks it, for the label classifier), on the
feature rows of the EWT dev oracle states that reach them.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from machine import corpora_arguments, emit, record

DATA = "UD English-EWT 2.16, gold tags"


def main() -> int:
    ap = corpora_arguments(__doc__)
    ap.add_argument("--model", help="a kernel-svm parser model (default: train one)")
    ap.add_argument("--modes", default="naive,pki,pke,split")
    ap.add_argument("--repeat", type=int, default=3, help="decode timings: best of N")
    ap.add_argument("--decision-rows", type=int, default=2000,
                    help="(b): oracle rows timed per classifier")
    ap.add_argument("--one-mode", help=argparse.SUPPRESS)
    args = ap.parse_args()
    ewt = Path(args.corpora) / "en_ewt"
    if args.one_mode:
        return one_mode(args, ewt)
    with tempfile.TemporaryDirectory(prefix="polyparse-bench-") as folder:
        workdir = Path(folder)
        model = Path(args.model) if args.model else train(ewt, workdir)
        return measure(args, ewt, model)


def train(ewt: Path, workdir: Path) -> Path:
    model = workdir / "kernel.model"
    command = [sys.executable, "-m", "parser.cli.main", "dep", "train", "--train",
               str(ewt / "en_ewt-ud-train.conllu"), "--model", str(model),
               "--classifier", "kernel-svm"]
    started = time.perf_counter()
    subprocess.run(command, check=True)
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    emit(record("dep train time", DATA, round(seconds, 1), "s", classifier="kernel-svm",
                cores=os.cpu_count()))
    emit(record("dep train peak memory", DATA, round(peak, 1), "MB (max RSS)",
                classifier="kernel-svm"))
    return model


def measure(args: argparse.Namespace, ewt: Path, model: Path) -> int:
    from parser.dependency.dependency_parser import DependencyParser

    parser = DependencyParser.load(str(model))
    emit(record("dep model size", DATA, round(model.stat().st_size / 2**20, 1), "MB",
                classifier="kernel-svm",
                n_support_vectors=sum(clf.n_support_vectors for clf in parser.classifiers.values()
                                      if clf is not None)))
    speeds, reference = {}, None
    for mode in args.modes.split(","):
        # Each mode in a fresh process, as `polyparse dep parse --eval-mode` runs it: the
        # evaluators of one mode do not share a heap with those of another.
        done = subprocess.run([sys.executable, __file__, "--corpora", args.corpora, "--model",
                               str(model), "--repeat", str(args.repeat), "--one-mode", mode],
                              check=True, capture_output=True, text=True)
        result = json.loads(done.stdout.strip().splitlines()[-1])
        speeds[mode] = result["sentences_per_s"]
        reference = result["trees_sha256"] if reference is None else reference
        emit(record("dep parse speed (decode, one core)", DATA + " test", speeds[mode],
                    "sentences/s", eval_mode=mode, tokens_per_s=result["tokens_per_s"],
                    build_seconds=result["build_seconds"], evaluator_MB=result["evaluator_MB"],
                    same_trees_as_first_mode=result["trees_sha256"] == reference,
                    UAS=result["UAS"], LAS=result["LAS"]))
    if "naive" in speeds:
        for mode, speed in speeds.items():
            if mode != "naive":
                emit(record("dep parse speed-up over naive", DATA + " test",
                            round(speed / speeds["naive"], 1), "x", eval_mode=mode))
    per_decision(args, ewt, parser)
    return 0


def one_mode(args: argparse.Namespace, ewt: Path) -> int:
    """Load the model, build the evaluators of one mode, decode the test set (best of
    --repeat, one run for naive), print one JSON line."""
    from parser.dependency.dependency_parser import DependencyParser
    from parser.dependency.evaluate import evaluate
    from parser.formats.conll import read_conll

    parser = DependencyParser.load(args.model)
    sentences = list(read_conll(str(ewt / "en_ewt-ud-test.conllu")))
    n_words = sum(len(s) for s in sentences)
    parser.set_evaluation(args.one_mode)
    started = time.perf_counter()
    parser.decoder()
    built = time.perf_counter() - started
    parser.parse(sentences[:5])
    best = float("inf")
    for _ in range(1 if args.one_mode == "naive" else args.repeat):
        started = time.perf_counter()
        parsed = parser.parse(sentences)
        best = min(best, time.perf_counter() - started)
    scores = evaluate(sentences, [replace(s, head=h, deprel=d)
                                  for s, (h, d) in zip(sentences, parsed)]).as_dict()
    print(json.dumps({
        "sentences_per_s": round(len(sentences) / best, 1), "tokens_per_s": round(n_words / best),
        "build_seconds": round(built, 2),
        "evaluator_MB": round(parser.evaluator_bytes() / 2**20, 1),
        "trees_sha256": hashlib.sha256(json.dumps(parsed).encode()).hexdigest(),
        "UAS": round(scores["UAS"], 2), "LAS": round(scores["LAS"], 2)}))
    return 0


def per_decision(args: argparse.Namespace, ewt: Path, parser) -> None:
    """(b): microseconds per decision of each mode on real oracle rows of EWT dev."""
    from classifiers.evaluators.modes import build_evaluator
    from classifiers.evaluators.one_vs_one_scorer import OneVsOneVoter
    from features.binary_matrix import BinaryMatrix
    from parser.dependency.arc_eager import RIGHT_MOVE
    from parser.dependency.oracle_rows import oracle_rows
    from parser.dependency.projectivize import projectivize
    from parser.formats.conll import read_conll

    dev = list(read_conll(str(ewt / "en_ewt-ud-dev.conllu"), require_tree=True))
    trees = [projectivize(s.head, s.deprel)[:2] for s in dev]
    known = [(h, [d if d in parser.labels.ids else parser.labels.strings[3] for d in ds])
             for h, ds in trees]
    corpus = parser.encode(dev, trees=known)
    cfg = parser.config
    rows = oracle_rows(corpus.word, corpus.tag, corpus.coarse, corpus.split_tag, corpus.heads,
                       corpus.labels, corpus.offsets, cfg.feature_set, cfg.single_root)
    ranks = parser.vocab.transform(rows["keys"])
    table, fallback = parser.split_of_tag()
    split = np.where(rows["split_tag"] < len(table),
                     table[np.minimum(rows["split_tag"], len(table) - 1)], fallback)
    candidates = {}
    for kind in ("transition", "right"):
        key = max((k for k, clf in parser.classifiers.items() if k[1] == kind and clf is not None),
                  key=lambda k: parser.classifiers[k].n_support_vectors)
        candidates[kind] = key
    for kind, (split_id, _) in candidates.items():
        clf = parser.classifiers[(split_id, kind)]
        chosen = np.flatnonzero((split == split_id)
                                & ((rows["move"] == RIGHT_MOVE) if kind == "right" else True))
        chosen = chosen[: args.decision_rows]
        X = BinaryMatrix.from_rows([np.sort(r[r >= 0]).astype(np.int32) for r in ranks[chosen]],
                                   n_features=len(parser.vocab))
        for mode in args.modes.split(","):
            scorer = build_evaluator(clf.expansion_, mode)
            micro = best_time(lambda: scorer.decision_function(X), args.repeat) / len(X) * 1e6
            memory = (scorer.memory_bytes() if hasattr(scorer, "memory_bytes")
                      else sum(a.nbytes for a in scorer.arrays.values()))
            details = dict(eval_mode=mode, classifier=kind, split=parser.split_names[split_id],
                           n_classes=len(clf.classes_), n_support_vectors=clf.n_support_vectors,
                           rows=len(X), memory_MB=round(memory / 2**20, 1))
            emit(record("kernel decision time (all pair values)", DATA + " dev oracle rows",
                        round(micro, 2), "us/decision", **details))
            if isinstance(scorer, OneVsOneVoter):
                # What the parser asks of it: libsvm's vote among the (here: all) labels.
                everything = np.ones(len(clf.classes_), dtype=np.intc)
                micro = best_time(lambda: scorer.vote_rows(X, everything), args.repeat)
                emit(record("kernel vote time (libsvm's vote, all classes allowed)",
                            DATA + " dev oracle rows", round(micro / len(X) * 1e6, 2),
                            "us/decision", **details))


def best_time(run, repeat: int) -> float:
    """The least wall time of `repeat` calls of run()."""
    best = float("inf")
    for _ in range(max(1, repeat)):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best


if __name__ == "__main__":
    sys.exit(main())
