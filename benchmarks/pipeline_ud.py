"""Raw text to trees in any UD language: for each treebank, a pipeline (tokenizer, tagger,
parser on jackknifed tags) learned from its train file alone by `pipeline train`, once with
each parser (by default the command's own, greedy, and the beam parser; --parser-options
chooses), then `dep parse --format raw --model PIPELINE` of the test text, scored in full as
the CoNLL 2018 shared task scored systems (conll18_ud_eval.py's metrics,
parser/dependency/evaluate.py), beside UDPipe 1.2's published figures on the same test sets.
Prints one JSON object per measurement and, with --results, writes its section of
docs/results.md.

    python benchmarks/pipeline_ud.py [--corpora DIR] [--treebanks hu_szeged,ko_gsd]
                                     [--parser-options "--classifier structured-perceptron" ...]
                                     [--results docs/results.md] [--section pipeline_ud]

Treebanks: every folder of DIR/ud22 (the shared task's UD 2.2 files with their raw text
`*-ud-test.txt`) and DIR/en_ewt (UD English EWT r2.16; its test text made as conllu_to_text.pl
makes it). Each command runs in a child process on the machine's cores, as a user runs it: the
training time is the wall time of `pipeline train` (dev scores each layer and chooses a beam
parser's epoch); the model size the bytes of the pipeline file; the speed the test file's
sentences per second of the whole `dep parse` process on one core (start-up, the model's load,
reading, writing; the best of PARSE_RUNS runs after a warm-up). UDPipe 1.2's figures are read
from DIR/ud22/README.md (quoted there from the shared task's results pages; EWT's are of the
r2.2 test set).
"""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from child_process import best_of, measured_run, polyparse_command
from machine import Records
from tables import markdown_table
from ud_treebanks import (
    add_treebank_options,
    against_baseline,
    run_per_treebank,
    test_text,
    treebank_row,
)

METRICS = ("Tokens", "Sentences", "Words", "UPOS", "UFeats", "Lemmas", "UAS", "LAS", "MLAS",
           "BLEX")
# The metrics of the results table (the others are in the JSON records).
TABLE_METRICS = ("Tokens", "Sentences", "UPOS", "LAS", "MLAS", "BLEX")
# The parsers measured, as `pipeline train` options: its default (greedy) and the beam parser.
DEFAULT_PARSERS = ("", "--classifier structured-perceptron")
SECTION = "pipeline_ud"
# The parse of each test text is timed as the best of this many runs (after a warm-up).
PARSE_RUNS = 3
TITLE = "Raw text to trees in UD treebanks"
# Folders of DIR/ud22 are the shared task's treebanks, whose mean the bar is about.
EXTRA_TREEBANKS = ("en_ewt",)


def data_label(name: str, options: str) -> str:
    """The records' `data` of a treebank measured with a parser's options."""
    parser = f", pipeline train {options}" if options else ", pipeline train's defaults"
    return f"{name} test (raw text), trained on {name} train{parser}"


def measure(name: str, folder: Path, parser_options: list[str],
            baseline: dict[str, float] | None, workdir: Path, records: Records) -> None:
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll

    data = data_label(name, shlex.join(parser_options))
    files = {split: folder / f"{name}-ud-{split}.conllu" for split in ("train", "dev", "test")}
    model = workdir / f"{name}.model"
    run = measured_run(polyparse_command() + [
        "pipeline", "train", "--train", str(files["train"]), "--dev", str(files["dev"]),
        "--model", str(model), *parser_options, "--quiet"])
    records.emit("pipeline training, whole process", round(run.wall_seconds, 1), "s",
                 data=data, cpu_seconds=round(run.cpu_seconds, 1),
                 peak_rss_mib=round(run.peak_rss_mib), model_bytes=model.stat().st_size,
                 parser_options=shlex.join(parser_options))
    text = workdir / f"{name}-test.txt"
    text.write_text(test_text(folder, name), encoding="utf-8")
    output = workdir / f"{name}-test.conllu"
    seconds, peak_rss_mib = best_of(polyparse_command() + [
        "dep", "parse", "--format", "raw", "--model", str(model), str(text), "-o", str(output),
        "--quiet"], PARSE_RUNS, one_core=True, output=output)
    gold = list(read_conll(files["test"], require_deprel=False))
    scores = evaluate(gold, list(read_conll(output))).as_dict()
    records.emit("raw text to trees, whole process", round(len(gold) / seconds),
                 "sentences/s", data=data, seconds=round(seconds, 3), one_core=True,
                 runs=PARSE_RUNS, peak_rss_mib=round(peak_rss_mib))
    for metric in METRICS:
        extra = against_baseline("udpipe_1_2", scores[metric], (baseline or {}).get(metric))
        records.emit(f"{metric} F1", round(scores[metric], 2), "%", data=data,
                     words=scores["words"], **extra)


def section(records: Records, names: list[str], parsers: list[str]) -> list[str]:
    lines = ["Each treebank's pipeline (tokenizer, tagger, parser on jackknifed tags) learned "
             "from its train file alone by `pipeline train --dev DEV` with the parser's options "
             "below, then `dep parse --format raw --model PIPELINE` of its test text; F1 of "
             "conll18_ud_eval.py's metrics, UDPipe 1.2's published figure from the same text in "
             "brackets. Training is the wall time of the training command; the model size the "
             "pipeline file's; speed is sentences per second of the whole `dep parse` process "
             f"on one core, the best of {PARSE_RUNS} runs. The mean is over the ud22 "
             "treebanks (the shared task's; EWT left out)."]
    if any("--refit" in shlex.split(options) for options in parsers):
        lines += ["", "With `--refit`, once dev has scored the layers and chosen the beam "
                  "parser's epoch and whether the parser cuts raw text, every layer learns again "
                  "from train and dev together: those pipelines learn from dev too, which the "
                  "shared task allowed."]
    for options in parsers:
        lines += ["", f"`pipeline train {options}`:" if options
                  else "`pipeline train`'s defaults (the greedy parser):", ""]
        lines += parser_table(records, names, options)
    return lines


def parser_table(records: Records, names: list[str], options: str) -> list[str]:
    """One parser's table: a row per treebank and the mean over the ud22 ones."""
    rows = []
    sums = {metric: [0.0, 0.0, 0] for metric in TABLE_METRICS}
    for name in names:
        data = data_label(name, options)
        for metric in TABLE_METRICS:
            row = records.find(f"{metric} F1", data=data)
            if row.get("udpipe_1_2") is not None and name not in EXTRA_TREEBANKS:
                sums[metric][0] += row["figure"]
                sums[metric][1] += row["udpipe_1_2"]
                sums[metric][2] += 1
        rows.append(treebank_row(
            records, name, data, (f"{metric} F1" for metric in TABLE_METRICS), "udpipe_1_2",
            ("pipeline training, whole process", "figure", "model_bytes"),
            "raw text to trees, whole process"))
    mean = ["mean of the ud22 treebanks"]
    for metric in TABLE_METRICS:
        ours, theirs, n = sums[metric]
        mean.append(f"{ours / n:.2f} ({theirs / n:.2f})" if n else "")
    rows.append([*mean, "", "", ""])
    return markdown_table(["treebank", *TABLE_METRICS, "training, s", "model MiB",
                           "sentences/s, whole process"], rows)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_treebank_options(ap)
    ap.add_argument("--parser-options", action="append",
                    help="`pipeline train`'s parser options (`dep train`'s), as one string; "
                         "repeat for several parsers (default: its defaults, and "
                         f"{DEFAULT_PARSERS[1]!r})")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    ap.add_argument("--section", default=SECTION,
                    help=f"the section's name in the results page (default {SECTION}; another "
                         "keeps runs of other parsers apart)")
    args = ap.parse_args()
    parsers = [shlex.join(shlex.split(options))
               for options in (args.parser_options or DEFAULT_PARSERS)]

    def measure_each(name: str, folder: Path, baseline: dict[str, float] | None,
                     workdir: Path, records: Records) -> None:
        for options in parsers:
            measure(name, folder, shlex.split(options), baseline, workdir, records)

    return run_per_treebank(
        args, METRICS, "UD treebanks' test texts (CoNLL 2018 shared task), raw text",
        args.section, TITLE if args.section == SECTION else f"{TITLE}: {', '.join(parsers)}",
        measure_each,
        lambda records, names: section(records, names, parsers))


if __name__ == "__main__":
    raise SystemExit(main())
