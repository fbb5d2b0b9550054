"""The kernel-svm dependency parser on UD English-EWT under each evaluation mode (the
model at the rare thresholds of the split evaluator, and the time of each mode). Prints one
JSON object per measurement and, with --results, writes its section of docs/results.md.

    python benchmarks/dep_ewt_eval_modes.py [--corpora DIR] [--model FILE]
                                            [--modes naive,pki,pke,split] [--repeat 3]
                                            [--results docs/results.md]

Without --model it trains `polyparse dep train --classifier kernel-svm` (defaults: degree 2,
MaltParser's libsvm settings) in a child process, timing it (wall and CPU time, its own peak
RSS). Then, for every mode: the time to build the evaluators from the loaded model, their
memory, the decode speed on the test set (one core, sentences read beforehand, the least CPU
time of --repeat runs, one run for naive; each mode in a fresh process), whether the trees equal
those of the first mode, and the test UAS/LAS; for split, how often the guided vote of the
one-vs-one label classifiers ended after its first candidate. Finally (b): microseconds per
decision of each mode for the largest transition classifier and the largest label classifier
(and per vote, as the parser asks it, for the label classifier), on the feature rows of the EWT
dev oracle states that reach them (CPU time, the least of --repeat).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
from child_process import measured_run, pinned_to_one_core
from machine import Records, least_time, publish, timed, work_folder
from tables import grouped, markdown_table, seconds_text, significant

DATA = "UD English-EWT 2.16, gold tags"
# The counters of classifiers.evaluators.one_vs_one_split.OneVsOneSplitScorer's guided vote.
VOTE_COUNTERS = ("n_votes", "n_candidate_misses", "n_second_candidates", "n_full_passes",
                 "n_exact_candidate_passes")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--model", help="a kernel-svm parser model (default: train one)")
    ap.add_argument("--modes", default="naive,pki,pke,split")
    ap.add_argument("--repeat", type=int, default=3, help="decode timings: best of N")
    ap.add_argument("--decision-rows", type=int, default=2000,
                    help="(b): oracle rows timed per classifier")
    ap.add_argument("--one-mode", help=argparse.SUPPRESS)
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    ewt = Path(args.corpora) / "en_ewt"
    if args.one_mode:
        return one_mode(args, ewt)
    records = Records(DATA)
    with work_folder("polyparse-bench-") as workdir:
        model = Path(args.model) if args.model else train(ewt, workdir, records)
        measure(args, ewt, model, records)
    if args.results:
        publish(args.results, "dep_ewt_eval_modes",
                "The kernel-svm parser under each evaluation mode", section(records))
    return 0


def train(ewt: Path, workdir: Path, records: Records) -> Path:
    model = workdir / "kernel.model"
    command = [sys.executable, "-m", "polyparse.parser.cli.main", "dep", "train", "--train",
               str(ewt / "en_ewt-ud-train.conllu"), "--model", str(model),
               "--classifier", "kernel-svm", "--quiet"]
    run = measured_run(command)
    records.emit("dep train time", round(run.wall_seconds, 1), "s", classifier="kernel-svm",
                 cores=os.cpu_count(), cpu_seconds=round(run.cpu_seconds, 1))
    records.emit("dep train peak memory", round(run.peak_rss_mib, 1), "MiB (max RSS)",
                 classifier="kernel-svm")
    return model


def measure(args: argparse.Namespace, ewt: Path, model: Path, records: Records) -> None:
    from polyparse.parser.dependency.dependency_parser import DependencyParser

    parser = DependencyParser.load(str(model))
    classifiers = [clf for clf in parser.classifiers.values() if clf is not None]
    records.emit("dep model size", round(model.stat().st_size / 2**20, 1), "MiB",
                 classifier="kernel-svm", n_classifiers=len(classifiers),
                 n_support_vectors=sum(clf.n_support_vectors for clf in classifiers))
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
        records.emit("dep parse speed (decode, one core)", speeds[mode],
                     "sentences/s (CPU time)", data=DATA + " test", eval_mode=mode,
                     tokens_per_s=result["tokens_per_s"],
                     wall_sentences_per_s=result["wall_sentences_per_s"],
                     build_seconds=result["build_seconds"],
                     evaluator_MiB=result["evaluator_MiB"],
                     same_trees_as_first_mode=result["trees_sha256"] == reference,
                     UAS=result["UAS"], LAS=result["LAS"], votes=result["votes"])
    if "naive" in speeds:
        for mode, speed in speeds.items():
            if mode != "naive":
                records.emit("dep parse speed-up over naive", round(speed / speeds["naive"], 1),
                             "x", data=DATA + " test", eval_mode=mode)
    per_decision(args, ewt, parser, records)


def one_mode(args: argparse.Namespace, ewt: Path) -> int:
    """Load the model, build the evaluators of one mode, decode the test set (best of
    --repeat, one run for naive), print one JSON line."""
    from polyparse.parser.dependency.dependency_parser import DependencyParser
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll

    parser = DependencyParser.load(args.model)
    sentences = list(read_conll(str(ewt / "en_ewt-ud-test.conllu")))
    n_words = sum(len(s) for s in sentences)
    parser.set_evaluation(args.one_mode)
    with pinned_to_one_core():
        _, built = timed(parser.decoder)
        parser.parse(sentences[:5])
        before = vote_counts(parser)
        runs = 1 if args.one_mode == "naive" else args.repeat
        best = least_time(runs, parser.parse, sentences)
    after = vote_counts(parser)
    parsed = parser.parse(sentences)
    scores = evaluate(sentences, [replace(s, head=h, deprel=d)
                                  for s, (h, d) in zip(sentences, parsed)]).as_dict()
    print(json.dumps({
        "sentences_per_s": round(len(sentences) / best.cpu, 1),
        "tokens_per_s": round(n_words / best.cpu),
        "wall_sentences_per_s": round(len(sentences) / best.wall, 1),
        "build_seconds": round(built.cpu, 2),
        "evaluator_MiB": round(parser.evaluator_bytes() / 2**20, 1),
        "trees_sha256": hashlib.sha256(json.dumps(parsed).encode()).hexdigest(),
        "UAS": round(scores["UAS"], 2), "LAS": round(scores["LAS"], 2),
        "votes": {key: (after[key] - before[key]) // runs for key in VOTE_COUNTERS}
        if after["n_votes"] else None}))
    return 0


def vote_counts(parser) -> dict[str, int]:
    """The guided-vote counters summed over the parser's one-vs-one split scorers (zero for
    other evaluators): one parse of the test set adds its votes."""
    from polyparse.classifiers.evaluators.one_vs_one_split import OneVsOneSplitScorer

    scorers = [s for s in parser.scorers() if isinstance(s, OneVsOneSplitScorer)]
    return {key: sum(int(getattr(s, key)) for s in scorers) for key in VOTE_COUNTERS}


def per_decision(args: argparse.Namespace, ewt: Path, parser, records: Records) -> None:
    """(b): microseconds per decision of each mode on real oracle rows of EWT dev."""
    from polyparse.classifiers.evaluators.modes import build_evaluator
    from polyparse.classifiers.evaluators.one_vs_one_scorer import OneVsOneVoter
    from polyparse.features.binary_matrix import BinaryMatrix
    from polyparse.parser.dependency.arc_eager import RIGHT_MOVE
    from polyparse.parser.dependency.oracle_rows import oracle_rows
    from polyparse.parser.dependency.projectivize import projectivize
    from polyparse.parser.formats.conll import read_conll

    dev = list(read_conll(str(ewt / "en_ewt-ud-dev.conllu"), require_tree=True))
    trees = [projectivize(s.head, s.deprel)[:2] for s in dev]
    known = [(h, [d if d in parser.labels.ids else parser.labels.strings[3] for d in ds])
             for h, ds in trees]
    corpus = parser.encode(dev, trees=known)
    cfg = parser.config
    rows = oracle_rows(corpus.word, corpus.tag, corpus.coarse, corpus.split_tag, corpus.heads,
                       corpus.labels, corpus.offsets, corpus.morph, corpus.suffix,
                       cfg.feature_set, cfg.single_root)
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
            memory = (scorer.memory_bytes() if hasattr(scorer, "memory_bytes")
                      else sum(a.nbytes for a in scorer.arrays.values()))
            details = {"eval_mode": mode, "classifier": kind,
                       "split": parser.split_names[split_id], "n_classes": len(clf.classes_),
                       "n_support_vectors": clf.n_support_vectors, "rows": len(X),
                       "memory_MiB": round(memory / 2**20, 1)}
            timings: dict[str, tuple[Callable[..., object], tuple]] = {
                "kernel decision time (all pair values)": (scorer.decision_function, (X,))}
            if isinstance(scorer, OneVsOneVoter):
                # What the parser asks of it: libsvm's vote among the (here: all) labels.
                everything = np.ones(len(clf.classes_), dtype=np.intc)
                timings["kernel vote time (libsvm's vote, all classes allowed)"] = (
                    scorer.vote_rows, (X, everything))
            for what, (work, work_args) in timings.items():
                with pinned_to_one_core():
                    best = least_time(args.repeat, work, *work_args)
                records.emit(what, round(best.cpu / len(X) * 1e6, 2), "us/decision (CPU time)",
                             data=DATA + " dev oracle rows",
                             wall_us=round(best.wall / len(X) * 1e6, 2), **details)


def section(records: Records) -> list[str]:
    size = records.find("dep model size")
    lines = [(f"`polyparse dep train --classifier kernel-svm` (degree 2, gamma 0.2, coef0 0.4, "
             f"C 1, eps 0.1: MaltParser's libsvm settings; XPOS splits) gives "
             f"{size['n_support_vectors']:,} support vectors in {size['n_classifiers']} "
             f"classifiers, a {significant(size['figure'])} MiB model file.")]
    train = records.find("dep train time")
    if train is not None:
        lines[0] += (f" Training took {seconds_text(train['figure'])} wall "
                     f"({seconds_text(train['cpu_seconds'])} CPU) on {train['cores']} cores, "
                     f"{grouped(records.figure('dep train peak memory'))} MiB peak RSS.")
    modes = [row for row in records.rows if row["what"] == "dep parse speed (decode, one core)"]
    naive = next((row["figure"] for row in modes if row["eval_mode"] == "naive"), None)
    first = modes[0]
    lines[0] += (f" EWT test: UAS {first['UAS']:.2f}, LAS {first['LAS']:.2f}"
                 + (", the same trees in every mode." if all(
                     row["same_trees_as_first_mode"] for row in modes) else
                    "; **the modes' trees differ** (see the JSON records)."))
    lines += ["", ("Decode speed on EWT test, one core, each mode in a fresh process (sentences/s "
              "by CPU time, and by wall time on this shared machine); build: CPU seconds to "
              "build the evaluators at load:"), ""]
    lines += markdown_table(
        ["`--eval-mode`", "sentences/s (CPU)", "sentences/s (wall)", "speed-up", ("evaluator "
         "memory"), "build at load"],
        ([f"`{row['eval_mode']}`", grouped(row["figure"]), grouped(row["wall_sentences_per_s"]),
          "" if naive is None else f"{significant(row['figure'] / naive)} x",
          f"{grouped(row['evaluator_MiB'])} MiB", seconds_text(row["build_seconds"])]
         for row in modes))
    votes = next((row["votes"] for row in modes if row.get("votes")), None)
    if votes:
        total = votes["n_votes"]
        lines += ["", (f"The `split` label votes of one parse of the test set: {total:,}; "
                  f"{100 * (1 - votes['n_candidate_misses'] / total):.1f} % end after the first "
                  f"candidate, {100 * votes['n_full_passes'] / total:.2f} % need every pair, "
                  f"and {votes['n_exact_candidate_passes']:,} candidate passes were redone in "
                  "float64.")]
    decisions = [row for row in records.rows if row["what"].startswith("kernel ")]
    if decisions:
        lines += ["", ("Per decision, on the EWT dev oracle rows that reach the largest "
                  "transition classifier and the largest RIGHT-label classifier (microseconds "
                  "by CPU time, one core; a one-vs-one label classifier also per vote, libsvm's "
                  "vote that the parser asks for):"), ""]
        lines += markdown_table(
            ["classifier", "`--eval-mode`", "all pair values, us", "vote, us", "memory"],
            ([(f"{row['split']} {row['classifier']} ({row['n_classes']} classes, "
              f"{row['n_support_vectors']:,} SV, {row['rows']:,} rows)"), f"`{row['eval_mode']}`",
              significant(row["figure"]),
              significant(records.figure("kernel vote time (libsvm's vote, all classes "
                                         "allowed)", classifier=row["classifier"],
                                         eval_mode=row["eval_mode"])),
              f"{significant(row['memory_MiB'])} MiB"]
             for row in decisions if row["what"] == "kernel decision time (all pair values)"))
    return lines


if __name__ == "__main__":
    sys.exit(main())
