"""The bundled English model as a user meets it: file size, the time and peak memory of parsing
the bundled example in a fresh process, EWT test and dev scores with UPOS alone and with all
tags, and parse speed. Prints one JSON object per measurement and, with --results, writes its
section of docs/results.md.

    python benchmarks/bundled_model.py [--corpora DIR] [--model FILE] [--runs 9]
                                       [--results docs/results.md]

The example is parsed by the installed `polyparse dep parse` command (wall time of the whole
process: interpreter start, imports, model load, parse, write), `--runs` times after one
warm-up run; the median and the least are reported, with the largest maximum resident set size
of those runs. EWT test is parsed twice, once as it is and once with every XPOS replaced by "_"
(a file with UPOS alone, whose XPOS the bundled tagger fills in first, as `dep parse` does),
and dev once as it is, in this process pinned to one core (the model loaded beforehand; CPU
time and wall time of one parse, tagging included).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import replace
from pathlib import Path

from child_process import child_run, pinned_to_one_core, polyparse_command
from conllu_columns import XPOS, blank_columns
from machine import Records, timed, work_folder
from tables import grouped, markdown_table, seconds_text, significant

DATA = "UD English-EWT 2.16"
INPUTS = ("test, all tags", "test, UPOS alone (XPOS _, tagged first)", "dev, all tags")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--model", help="a model file instead of the bundled one")
    ap.add_argument("--runs", type=int, default=9, help="fresh processes parsing the example")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    from polyparse.parser.models.bundled import bundled_example, bundled_model

    records = Records(DATA)
    model = Path(args.model) if args.model else bundled_model()
    records.emit("bundled model file size", round(model.stat().st_size / 1e6, 2), "MB",
                 data="parser/models/en_ewt.pipeline", bytes=model.stat().st_size)
    example = bundled_example()
    command = polyparse_command() + ["dep", "parse", str(example)]
    if args.model:
        command += ["--model", str(model)]
    child_run(command)
    runs = [child_run(command) for _ in range(args.runs)]
    seconds = [s for s, _ in runs]
    records.emit("parse the bundled example (whole process)", round(statistics.median(seconds), 3),
                 "s (median)", data="parser/models/example.conllu",
                 least=round(min(seconds), 3), runs=args.runs)
    records.emit("parse the bundled example, peak memory", round(max(rss for _, rss in runs), 1),
                 "MiB (max RSS)", data="parser/models/example.conllu")

    from polyparse.parser.dependency.dependency_parser import DependencyParser
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.tagging.conll_files import tag_missing
    from polyparse.parser.tagging.tagger import Tagger

    # Loaded only now: a child's peak RSS also counts the pages of the process it was forked
    # from, so the example's processes above ran while this one was small.
    parser, loading = timed(DependencyParser.load, str(model))
    tagger = Tagger.load(str(model))
    records.emit("bundled model load time", round(loading.wall, 3), "s",
                 data="parser/models/en_ewt.pipeline", cpu_seconds=round(loading.cpu, 3),
                 converted=parser.info.get("converted"),
                 evaluator_MiB=round(parser.evaluator_bytes() / 2**20, 1))

    ewt = Path(args.corpora) / "en_ewt"
    test, dev = ewt / "en_ewt-ud-test.conllu", ewt / "en_ewt-ud-dev.conllu"
    if test.is_file():
        with work_folder("polyparse-bundled-") as workdir:
            upos_only = workdir / "test-upos.conllu"
            blank_columns(test, upos_only, [XPOS])
            for name, path, gold_path in zip(INPUTS, (test, upos_only, dev), (test, test, dev)):
                gold = list(read_conll(gold_path))
                sentences = list(read_conll(path))
                def parse(given: list) -> list:
                    return parser.parse(tag_missing(tagger, given, ("upos", "xpos")))

                with pinned_to_one_core():
                    parse(sentences[:10])
                    parsed, timing = timed(parse, sentences)
                system = [replace(s, head=h, deprel=d) for s, (h, d) in zip(sentences, parsed)]
                scores = evaluate(gold, system).as_dict()
                for key in ("UAS", "LAS"):
                    records.emit(f"bundled model EWT {key}", round(scores[key], 2), "%",
                                 input=name)
                records.emit("bundled model parse speed (decode, one core)",
                             round(len(sentences) / timing.cpu), "sentences/s (CPU time)",
                             input=name, wall_sentences_per_s=round(len(sentences) / timing.wall))
    records.finish(args.results, "bundled_model", "The bundled English model",
                   lambda: section(records))
    return 0


def section(records: Records) -> list[str]:
    size = records.find("bundled model file size")
    load = records.find("bundled model load time")
    converted = load["converted"] or {}
    example = records.find("parse the bundled example (whole process)")
    peak = records.figure("parse the bundled example, peak memory")
    lines = [
        f"- Model file: {size['figure']:.2f} MB ({size['bytes']:,} bytes)"
        + (f", its classifiers stored as `{converted['evaluator']}` evaluators (rare threshold "
           f"{converted['rare_threshold']})" if converted else "")
        + f"; loads in {seconds_text(load['figure'])} ({seconds_text(load['cpu_seconds'])} CPU), "
          f"its evaluators take {significant(load['evaluator_MiB'])} MiB.",
        (f"- `polyparse dep parse` of the bundled example, whole process (start, imports, load, "
        f"parse, write): median {seconds_text(example['figure'])}, least "
        f"{seconds_text(example['least'])} over {example['runs']} runs after a warm-up; peak "
        f"RSS {grouped(peak)} MiB."),
    ]
    rows = []
    for name in INPUTS:
        speed = records.find("bundled model parse speed (decode, one core)", input=name)
        if speed is None:
            continue
        rows.append([f"EWT {name}", f"{records.figure('bundled model EWT UAS', input=name):.2f}",
                     f"{records.figure('bundled model EWT LAS', input=name):.2f}",
                     grouped(speed["figure"]), grouped(speed["wall_sentences_per_s"])])
    if rows:
        lines += ["", ("Scores (CoNLL 2018 rules, all words) and decode speed on one core, model "
                  "loaded (sentences/s by CPU time, and by wall time on this shared machine):"), ""]
        lines += markdown_table(["input", "UAS", "LAS", "sentences/s (CPU)", "sentences/s (wall)"],
                                rows)
    return lines


if __name__ == "__main__":
    sys.exit(main())
