"""English raw text: the bundled pipeline's tokenizer (sentences, tokens, multiword tokens) and
the whole `polyparse dep parse --format raw` pipeline on UD English EWT test, scored as the
CoNLL 2018 shared task scored systems from raw text. Prints one JSON object per measurement
and, with --results, writes its section of docs/results.md.

    python benchmarks/en_raw.py [--corpora DIR] [--runs 3] [--text-parser]
        [--results docs/results.md]

The raw text is what conllu_to_text.pl of the UD tools makes of the test file (the `# text`
lines of each paragraph joined by spaces, a blank line at each `# newpar`, lines wrapped at 80
characters; parser/tokenize/treebank_text.py). The tokenizer alone is timed in this process
with its model loaded (CPU time, the best of --runs, each run with empty caches); the whole
`dep parse --format raw` process (start-up, both models' loads, tokenizing, parsing, writing
CoNLL-U) on one core, the least wall time of --runs with its CPU time and peak RSS (speeds
count the gold file's sentences, the size of the text, not the tokenizer's). Its output
must give back the input text exactly (tokens and the whitespace their MISC names); it is
scored against the gold file by conll18_ud_eval.py's definitions (parser/dependency/evaluate.py:
Tokens, Sentences, Words, UPOS, XPOS, UAS, LAS as F1 with precision and recall). When the
package has a tagger (parser.tagging), `dep parse` is expected to tag raw input with it and the
table says so; without one the words reach the parser untagged. With --text-parser it also
trains a beam-search parser for raw text (text_parser below) and runs the same pipeline and
scores with it in place of the bundled parser.
"""
from __future__ import annotations

import argparse
import importlib.util
import io
import os
import subprocess
import sys
import time
from pathlib import Path

from child_process import measured_run, pinned_to_one_core, polyparse_command
from conllu_columns import FEATS, LEMMA, UPOS, XPOS, blank_columns
from machine import Records, work_folder
from tables import grouped, markdown_table

DATA = "UD English EWT test (2,077 sentences) as raw text (conllu_to_text.pl)"
DEV = "UD English EWT dev (2,001 sentences) as raw text (conllu_to_text.pl)"
METRICS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UAS", "LAS")
ROOT = Path(__file__).resolve().parents[1]
# --text-parser: the beam width of the beam-search parser trained for raw text.
TEXT_BEAM = 4
TEXT_PARSER = "raw text, beam-search text parser"
TEXT_PARSER_RUN = "polyparse dep parse --format raw (beam-search text parser)"
# Quoted (the CoNLL 2018 shared task's published results), not measured here.
UDPIPE_QUOTED = "UDPipe 1.2 baseline of the CoNLL 2018 shared task (quoted): Sentences F1 " \
                "about 73-77, LAS about 77.6 on EWT"


def tokenizer_speed(text: str, runs: int, records: Records, data: str, n_gold: int) -> None:
    """Gold sentences per CPU second of read_raw over text, model loaded, caches empty."""
    from polyparse.parser.tokenize.model import load_tokenizer
    from polyparse.parser.tokenize.reading import read_raw

    best = 0.0
    n = 0
    for _ in range(runs):
        tokenizer = load_tokenizer()
        started = time.process_time()
        n = sum(1 for _ in read_raw(stream=io.StringIO(text), tokenizer=tokenizer))
        seconds = time.process_time() - started
        best = max(best, n_gold / seconds)
    records.emit("tokenizer (read_raw: text to CoNLL-U sentences), model loaded, CPU time",
                 round(best), "sentences/s", data=data, system_sentences=n)


def scores(gold: Path, output: Path, records: Records, data: str, how: str) -> None:
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll

    result = evaluate(read_conll(gold), read_conll(output, require_deprel=False),
                      gold_name=str(gold), system_name=str(output))
    for metric in METRICS:
        records.emit(f"{metric} F1, {how}", round(getattr(result, metric), 2), "%", data=data,
                     precision=round(result.precision[metric], 2),
                     recall=round(result.recall[metric], 2))


def text_back(text: str, output: Path) -> int:
    """Characters at which the output's text first differs from the input (0: none)."""
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.tokenize.conllu_blocks import text_of_blocks

    back = text_of_blocks(sentence.lines for sentence in read_conll(output))
    if back == text:
        return 0
    same = next((i for i, (a, b) in enumerate(zip(back, text)) if a != b), min(len(back),
                                                                                 len(text)))
    return len(text) - same


def whole_process(text_file: Path, output: Path, runs: int, records: Records, data: str,
                  n_sentences: int, group: list[str], what: str) -> None:
    command = polyparse_command() + [*group, "--quiet", "--format", "raw", str(text_file),
                                     "-o", str(output)]
    with pinned_to_one_core():
        measured_run(command)
        timings = [measured_run(command) for _ in range(runs)]
    best = min(timings, key=lambda run: run.wall_seconds)
    records.emit(f"{what}, whole process, one core", round(n_sentences / best.wall_seconds),
                 "sentences/s", data=data, seconds=round(best.wall_seconds, 3),
                 cpu_seconds=round(best.cpu_seconds, 3),
                 by_cpu=round(n_sentences / best.cpu_seconds),
                 peak_rss_mib=round(max(run.peak_rss_mib for run in timings), 1))


def text_parser(train: Path, dev: Path, workdir: Path, records: Records) -> Path:
    """A beam-search parser for raw text: trained (beam TEXT_BEAM) on EWT train with jackknifed
    tags of the bundled tagger's settings and FEATS blanked (corpora_scripts/jackknife_tags.py),
    its epoch chosen on EWT dev tagged by the bundled tagger, FEATS blanked."""
    from polyparse.parser.models.bundled import bundled_tagger

    started = time.perf_counter()
    jackknifed = workdir / "train.jackknifed.conllu"
    subprocess.run([sys.executable, str(ROOT / "corpora_scripts" / "jackknife_tags.py"),
                    str(train), "--blank-feats", "-o", str(jackknifed)], check=True,
                   stderr=subprocess.DEVNULL)
    blank = blank_columns(dev, workdir / "dev.blank.conllu", (LEMMA, UPOS, XPOS, FEATS))
    dev_tagged = workdir / "dev.tagged.conllu"
    subprocess.run(polyparse_command() + ["tag", "tag", "--quiet", "--model",
                                          str(bundled_tagger()), str(blank), "-o",
                                          str(dev_tagged)], check=True)
    model = workdir / "text.model"
    subprocess.run(polyparse_command() + [
        "dep", "train", "--quiet", "--classifier", "structured-perceptron", "--beam",
        str(TEXT_BEAM), "--train", str(jackknifed), "--dev", str(dev_tagged), "--model",
        str(model)], check=True)
    records.emit("beam-search text parser: jackknifing and training, wall",
                 round(time.perf_counter() - started, 1), "s", data="UD English EWT train",
                 model_mib=round(model.stat().st_size / 2**20, 1))
    return model


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    ap.add_argument("--text-parser", action="store_true",
                    help="also train a beam-search parser on jackknifed tags (about 5.5 minutes "
                         "on 2 cores) and score the pipeline with it")
    args = ap.parse_args()
    folder = Path(args.corpora) / "en_ewt"
    test = folder / "en_ewt-ud-test.conllu"
    dev = folder / "en_ewt-ud-dev.conllu"
    if not test.is_file():
        raise SystemExit(f"no EWT test file under {folder}")
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.tokenize.treebank_text import raw_text

    tagged = importlib.util.find_spec("polyparse.parser.tagging") is not None
    records = Records(DATA)
    with work_folder("polyparse-en-raw-") as workdir:
        model = (text_parser(folder / "en_ewt-ud-train.conllu", dev, workdir, records)
                 if args.text_parser else None)
        for gold, data in ((dev, DEV), (test, DATA)):
            if not gold.is_file():
                continue
            text = raw_text(gold)
            text_file = workdir / f"{gold.stem}.txt"
            text_file.write_text(text, encoding="utf-8")
            n = sum(1 for _ in read_conll(gold, require_deprel=False))
            tokenizer_speed(text, args.runs, records, data, n)
            tokens = workdir / f"{gold.stem}.tokens.conllu"
            whole_process(text_file, tokens, args.runs, records, data, n,
                          ["tokenize", "tokenize"], "polyparse tokenize tokenize")
            records.emit("characters of the input not given back by the output",
                         text_back(text, tokens), "characters", data=data)
            parsed = workdir / f"{gold.stem}.parsed.conllu"
            whole_process(text_file, parsed, args.runs, records, data, n, ["dep", "parse"],
                          "polyparse dep parse --format raw (bundled models)")
            scores(gold, parsed, records, data, "raw text, bundled models")
            if model is not None:
                from polyparse.parser.models.bundled import bundled_tagger

                parsed = workdir / f"{gold.stem}.text-parser.conllu"
                whole_process(text_file, parsed, args.runs, records, data, n,
                              ["dep", "parse", "--model", str(model), "--tagger",
                               str(bundled_tagger())], TEXT_PARSER_RUN)
                scores(gold, parsed, records, data, TEXT_PARSER)
    records.emit("tagger (parser.tagging) present", int(tagged), "bool")
    records.finish(args.results, "en_raw", "English raw text (the bundled pipeline)",
                   lambda: section(records, tagged))
    return 0


def section(records: Records, tagged: bool) -> list[str]:
    how = "raw text, bundled models"
    rows = []
    text_label = f", beam-search text parser (beam {TEXT_BEAM})"
    for parser, label in ((how, ""), (TEXT_PARSER, text_label)):
        for data, name in ((DATA, "test"), (DEV, "dev")):
            found = [records.find(f"{metric} F1, {parser}", data=data) for metric in METRICS]
            if None in found:
                continue
            rows.append([f"EWT {name}{label}", *(f"{row['figure']:.2f}" for row in found)])
    lines = [
        "UD English EWT as raw text (conllu_to_text.pl's: the `# text` lines of each paragraph "
        "joined by spaces, a blank line at each `# newpar`, lines wrapped at 80 characters), "
        "tokenized by the bundled pipeline's tokenizer (parser/segmentation: token and "
        "sentence ends by `linear` classifiers over the characters, learned from EWT train), "
        "tagged by its tagger and parsed by its parser (parser/models/en_ewt.md) in one "
        "`polyparse dep parse --format raw` process, scored against the gold "
        "file by conll18_ud_eval.py's definitions (F1; words aligned through the text). "
        + ("Words are tagged by parser.tagging before parsing." if tagged else
           "This checkout has no tagger (parser.tagging): the words reach the parser untagged, "
           "so UPOS, XPOS, UAS and LAS are those of untagged input, not of the pipeline."), "",
        *markdown_table(["text", *METRICS], rows), "",
    ]
    detail = []
    for metric in ("Tokens", "Sentences", "Words"):
        row = records.find(f"{metric} F1, {how}", data=DATA)
        if row is not None:
            detail.append(f"{metric} P {row['precision']:.2f} / R {row['recall']:.2f}")
    lines.append("Test precision and recall: " + "; ".join(detail) + ". " + UDPIPE_QUOTED + ".")
    lines.append("")
    speed_rows = []
    for what, label in (
            ("tokenizer (read_raw: text to CoNLL-U sentences), model loaded, CPU time",
             "tokenizer alone, model loaded (CPU time)"),
            ("polyparse tokenize tokenize, whole process, one core",
             "`polyparse tokenize tokenize`, whole process"),
            ("polyparse dep parse --format raw (bundled models), whole process, one core",
             "`polyparse dep parse --format raw`, whole process"),
            (f"{TEXT_PARSER_RUN}, whole process, one core",
             f"the same with the beam-search text parser (beam {TEXT_BEAM})")):
        row = records.find(what, data=DATA)
        if row is None:
            continue
        if "seconds" in row:
            speed_rows.append([label, f"{grouped(row['figure'])} sentences/s "
                               f"({row['seconds']} s wall, {grouped(row['by_cpu'])} sentences/s"
                               f" by CPU time, {row['peak_rss_mib']} MiB)"])
        else:
            speed_rows.append([label, f"{grouped(row['figure'])} sentences/s"])
    lost = records.figure("characters of the input not given back by the output", data=DATA)
    lines += [f"Speed on {DATA}, one core:", "",
              *markdown_table(["what", "speed"], speed_rows), "",
              f"Characters of the input that the tokenizer's output does not give back: {lost}."]
    trained = records.find("beam-search text parser: jackknifing and training, wall",
                           data="UD English EWT train")
    if trained is not None:
        lines += ["", f"The beam-search text parser (`--text-parser`; docs/cli.md gives the "
                  f"commands): `polyparse dep train --classifier structured-perceptron --beam "
                  f"{TEXT_BEAM}` on EWT train with the bundled tagger's jackknifed tags "
                  "(corpora_scripts/jackknife_tags.py, five folds of consecutive sentences) and "
                  "FEATS blanked, its epoch chosen on EWT dev tagged by the bundled tagger; "
                  f"jackknifing and training took {trained['figure']} s on 2 cores, model "
                  f"{trained['model_mib']} MiB. It parses the bundled tokenizer's and tagger's "
                  "output of the same text."]
    return lines


if __name__ == "__main__":
    sys.exit(main())
