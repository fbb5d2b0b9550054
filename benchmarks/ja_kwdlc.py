"""The Japanese bunsetsu parser on KWDLC (and the Wikipedia Annotated Corpus): accuracy,
training time and peak memory, parse speed, model size and load time, chunking. Prints one JSON
object per measurement and, with --results, writes its section of docs/results.md.

    python benchmarks/ja_kwdlc.py [--corpora DIR] [--configs shift-reduce:2,cascaded:2,...]
                                  [--copies 50] [--runs 3] [--no-wac]
                                  [--results docs/results.md]

For each configuration (algorithm:degree) a fresh `polyparse ja train` process trains on the
documents of kwdlc/id/train.id (wall time and peak RSS of the whole process: reading, training,
conversion, writing the model; the two classifiers at once on two cores, and the default
configuration again on one core). The model is then loaded here and KWDLC test (id/test.id) parsed
from gold bunsetsu, one core: dependency and sentence accuracy over all bunsetsu but the last of
each sentence, and the speed of dependency parsing alone (the least CPU time of --runs, this
process pinned to one core, model loaded, sentences already read). Chunking from gold
morphemes gives chunk F1 and the dependency accuracy with predicted bunsetsu. The whole
`polyparse ja parse` process (start, model load, reading and writing KNP) is timed on one core on
KWDLC test repeated --copies times. Last, the default configuration trains on the Wikipedia
Annotated Corpus's train documents (malformed sentences skipped) and is scored on its dev
documents. Every child process runs before any model is loaded here, since a child's peak RSS also
counts the pages of the process it was forked from.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

from child_process import child_run, pinned_to_one_core, polyparse_command
from knp_corpora import documents, kwdlc_corpora
from machine import Records, least_time, timed, work_folder
from tables import grouped, markdown_table, seconds_text, significant

DATA = "KWDLC (train.id -> test.id)"
WAC = "Wikipedia Annotated Corpus (train.id -> dev.id)"
# J.DepP on the same split, quoted from the project's issue on the Japanese parser (as the
# README's Results section gave them; not measured here): configuration, dependency and sentence
# accuracy, training, whole-process parsing speed, model.
JDEPP_QUOTED = [
    ("J.DepP, shift-reduce, d=2", "92.17", "69.29", "8.8 s + 30 s compiling",
     "38,000 sentences/s", "10.6 MB (92 MB of files to parse)"),
    ("J.DepP, shift-reduce, d=2, approximate (`-s 0.015`)", "92.08", "68.75", "",
     "66,000 sentences/s", ""),
    ("J.DepP, cascaded chunking, d=2", "92.05", "68.70", "10.1 + 48 s", "40,000 sentences/s", ""),
    ("J.DepP, shift-reduce, d=3", "92.17", "69.52", "29 + 24 s (5.8 GB)", "5,700 sentences/s",
     ""),
]


def scores_of(gold: list, parsed: list, chunked: bool) -> dict:
    from polyparse.parser.bunsetsu.bunsetsu_files import parsed_scores

    return parsed_scores(gold, parsed, chunked)


def config_name(config: str) -> str:
    algorithm, degree = config.split(":")
    return f"{algorithm}, d={degree}"


def train_and_run(config: str, corpora: Path, workdir: Path, big_file: Path, n_big: int,
                  copies: int, runs: int, records: Records) -> Path:
    """The child processes of one configuration: `ja train` (and, for the defaults, again on one
    core), then the whole `ja parse` process on the repeated test file; the model file."""
    algorithm, degree = config.split(":")
    name = config_name(config)
    model = workdir / f"{algorithm}-{degree}.model"
    seconds, rss = child_run(polyparse_command() + [
        "ja", "train", "--ids", str(corpora / "kwdlc" / "id" / "train.id"),
        "--corpus", str(corpora / "kwdlc" / "knp"), "--model", str(model),
        "--algorithm", algorithm, "--degree", degree], quiet_stderr=True)
    records.emit("ja train (reading, training both classifiers at once on two cores, "
                 "conversion, writing)", round(seconds, 1), "s", config=name,
                 peak_rss_mib=round(rss))
    if algorithm == "shift-reduce" and degree == "2":
        seconds, rss = child_run(polyparse_command() + [
            "ja", "train", "--ids", str(corpora / "kwdlc" / "id" / "train.id"),
            "--corpus", str(corpora / "kwdlc" / "knp"), "--model", str(model),
            "--threads", "1"], one_core=True, quiet_stderr=True)
        records.emit("ja train, one core", round(seconds, 1), "s", config=name,
                     peak_rss_mib=round(rss))
    records.emit("model file size", round(model.stat().st_size / 1e6, 2), "MB", config=name,
                 bytes=model.stat().st_size)
    command = polyparse_command() + ["ja", "parse", "--model", str(model), str(big_file), "-o",
                                     str(workdir / "out.knp")]
    times = [child_run(command, one_core=True, quiet_stderr=True) for _ in range(runs)]
    least = min(t for t, _ in times)
    records.emit("polyparse ja parse, whole process reading and writing KNP, one core",
                 round(n_big / least), "sentences/s",
                 data=f"{DATA} test x {copies} ({n_big} sentences)", config=name,
                 sentences=n_big, seconds=round(least, 3),
                 peak_rss_mib=round(max(r for _, r in times)))
    return model


def measure(config: str, model: Path, test_file: Path, runs: int, records: Records) -> None:
    """One configuration's model in this process: load time, speed, accuracy, chunking."""
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from polyparse.parser.formats.knp import read_knp

    name = config_name(config)

    def load() -> BunsetsuParser:
        loaded = BunsetsuParser.load(str(model))
        loaded._decision("dependency")
        loaded._decision("chunk")
        return loaded

    parser, loading = timed(load)
    records.emit("model load", round(loading.wall, 3), "s", config=name,
                 cpu_seconds=round(loading.cpu, 3))

    test = list(read_knp(str(test_file)))
    corpus = parser.encode(test)
    with pinned_to_one_core():
        heads = parser.parse_corpus(corpus)
        best = least_time(runs, parser.parse_corpus, corpus)
    records.emit("dependency parsing speed (model loaded, one core)", round(len(test) / best.cpu),
                 "sentences/s (CPU time)", data=DATA + " test", config=name,
                 cpu_seconds=round(best.cpu, 4),
                 wall_sentences_per_s=round(len(test) / best.wall))
    flat = heads.tolist()
    parsed, at = [], 0
    for s in test:
        parsed.append((s.chunk_starts, flat[at:at + len(s.chunk_starts)]))
        at += len(s.chunk_starts)
    gold_chunks = scores_of(test, parsed, chunked=False)
    for key in ("dependency_accuracy", "sentence_accuracy"):
        records.emit(f"{key.replace('_', ' ')}, gold bunsetsu", round(gold_chunks[key], 2), "%",
                     data=DATA + " test", config=name)

    stripped = [replace(s, chunk_starts=[], heads=[], dep_types=[], chunk_lines=[])
                for s in test]
    chunked = scores_of(test, parser.parse(stripped), chunked=True)
    records.emit("chunk F1, gold morphemes", round(chunked["chunk_f1"], 2), "%",
                 data=DATA + " test", config=name)
    for key in ("dependency_accuracy", "sentence_accuracy"):
        records.emit(f"{key.replace('_', ' ')}, predicted bunsetsu", round(chunked[key], 2), "%",
                     data=DATA + " test", config=name,
                     beside_gold_bunsetsu=round(gold_chunks[key], 2))


def wac_train(corpora: Path, workdir: Path, records: Records) -> Path | None:
    """The defaults trained on the Wikipedia Annotated Corpus's train documents (a child
    process); the model file, or None without the corpus."""
    if not (corpora / "ja_wac" / "id" / "train.id").is_file():
        return None
    model = workdir / "wac.model"
    command = polyparse_command() + [
        "ja", "train", "--ids", str(corpora / "ja_wac" / "id" / "train.id"),
        "--corpus", str(corpora / "ja_wac" / "knp"), "--model", str(model)]
    run, training = timed(subprocess.run, command, capture_output=True, text=True, check=True)
    skipped = sum(1 for line in run.stderr.splitlines() if "warning: skipped " in line
                  and "malformed training sentence" not in line)
    records.emit("ja train (shift-reduce, d=2), malformed sentences skipped",
                 round(training.wall, 1), "s", data=WAC, skipped=skipped)
    return model


def wac_score(model: Path, corpora: Path, workdir: Path, records: Records) -> None:
    """The WAC model on the gold bunsetsu of the dev documents, in this process."""
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from polyparse.parser.formats.knp import read_knp

    dev = list(read_knp(str(documents(corpora, "ja_wac", "dev.id", workdir / "wac-dev.knp"))))
    parser = BunsetsuParser.load(str(model))
    scores = scores_of(dev, parser.parse(dev, chunk=False), chunked=False)
    for key in ("dependency_accuracy", "sentence_accuracy"):
        records.emit(f"{key.replace('_', ' ')} (shift-reduce, d=2, gold bunsetsu)",
                     round(scores[key], 2), "%", data=WAC, sentences=len(dev))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--configs", default="shift-reduce:2,cascaded:2,shift-reduce:3,cascaded:3")
    ap.add_argument("--copies", type=int, default=50, help="KWDLC test copies parsed at once")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-wac", dest="wac", action="store_false")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    corpora = kwdlc_corpora(args.corpora, "train.id")
    records = Records(DATA)
    with work_folder("polyparse-ja-") as workdir:
        test_file = documents(corpora, "kwdlc", "test.id", workdir / "test.knp")
        text = test_file.read_text(encoding="utf-8")
        big_file = workdir / "big.knp"
        with open(big_file, "w", encoding="utf-8") as out:
            out.writelines(text for _ in range(args.copies))
        n_big = text.count("\nEOS\n") * args.copies + (args.copies if text.startswith("EOS\n")
                                                        else 0)
        # The child processes first: a child's peak RSS also counts the pages of the process
        # it was forked from, so they run while this one is small.
        configs = args.configs.split(",")
        models = [train_and_run(config, corpora, workdir, big_file, n_big, args.copies,
                                args.runs, records) for config in configs]
        wac_model = wac_train(corpora, workdir, records) if args.wac else None
        for config, model in zip(configs, models):
            measure(config, model, test_file, args.runs, records)
        if wac_model is not None:
            wac_score(wac_model, corpora, workdir, records)
    records.finish(args.results, "ja_kwdlc", "Japanese bunsetsu dependency parsing, KWDLC",
                   lambda: section(args, records))
    return 0


def section(args: argparse.Namespace, records: Records) -> list[str]:
    names = [f"{algorithm}, d={degree}" for algorithm, degree in
             (config.split(":") for config in args.configs.split(","))]
    rows, chunking = [], []
    whole = None
    for name in names:
        def figure(what: str, name: str = name) -> object:
            return records.figure(what, config=name)

        train = records.find("ja train (reading, training both classifiers at once on two "
                             "cores, conversion, writing)", config=name)
        one_core = records.find("ja train, one core", config=name)
        training = f"{seconds_text(train['figure'])}, {grouped(train['peak_rss_mib'])} MiB"
        if one_core is not None:
            training += f" ({seconds_text(one_core['figure'])} on one core)"
        speed = records.find("dependency parsing speed (model loaded, one core)", config=name)
        whole = records.find("polyparse ja parse, whole process reading and writing KNP, one "
                             "core", config=name)
        load = records.find("model load", config=name)
        rows.append([f"polyparse, {name}", f"{figure('dependency accuracy, gold bunsetsu'):.2f}",
                     f"{figure('sentence accuracy, gold bunsetsu'):.2f}", training,
                     f"{grouped(speed['figure'])} sentences/s",
                     f"{grouped(whole['figure'])} sentences/s",
                     (f"{significant(figure('model file size'))} MB, loads in "
                     f"{seconds_text(load['figure'])}")])
        chunking.append([f"polyparse, {name}", f"{figure('chunk F1, gold morphemes'):.2f}",
                         f"{figure('dependency accuracy, predicted bunsetsu'):.2f}",
                         f"{figure('sentence accuracy, predicted bunsetsu'):.2f}"])
    copies = "" if whole is None else f" ({whole['sentences']:,} sentences)"
    lines = [("Trained on the documents of KWDLC `id/train.id`, tested on those of `id/test.id` "
             "(2,195 sentences, gold morphemes and bunsetsu). Training: a fresh `polyparse ja "
             "train` process (reading, both classifiers at once on two cores, conversion, "
             "writing; wall time and peak RSS). Parsing with the model loaded: this process on "
             "one core, sentences already read, the least CPU time of "
             f"{args.runs} runs. Whole `ja parse` process: KWDLC test repeated {args.copies} "
             f"times{copies}, KNP in and out, one core, the least wall time of {args.runs} runs."),
             ""]
    lines += markdown_table(["system", "dependency acc.", "sentence acc.",
                             "training (wall, peak RSS)", ("parsing, model loaded (CPU, one "
                             "core)"), "whole `ja parse` process (one core)", "model"], rows)
    lines += ["", ("J.DepP on the same split, **quoted from the project's issue on the Japanese "
              "parser** (as the README's Results section gave them; not measured here):"), ""]
    lines += markdown_table(["system", "dependency acc.", "sentence acc.", "training",
                             "whole process parsing", "model"], JDEPP_QUOTED)
    lines += ["", ("Chunking from gold morphemes (the test file without its `*` and `+` lines), "
              "then parsing the predicted bunsetsu:"), ""]
    lines += markdown_table(["system", "chunk F1", "dependency acc.", "sentence acc."], chunking)
    wac_train = records.find("ja train (shift-reduce, d=2), malformed sentences skipped")
    if wac_train is not None:
        dev = records.find("dependency accuracy (shift-reduce, d=2, gold bunsetsu)")
        lines += ["", ("The Wikipedia Annotated Corpus (the defaults, shift-reduce d=2, trained on "
                  f"the documents of `id/train.id`, {wac_train['skipped']} malformed training "
                  f"sentences skipped, {seconds_text(wac_train['figure'])} wall; scored on the "
                  f"{dev['sentences']:,} sentences of the `id/dev.id` documents, gold bunsetsu): "
                  f"dependency accuracy {dev['figure']:.2f}, sentence accuracy "
                  f"{records.figure('sentence accuracy (shift-reduce, d=2, gold bunsetsu)'):.2f}.")]
    return lines


if __name__ == "__main__":
    sys.exit(main())
