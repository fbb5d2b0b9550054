"""Dependency parser on UD English-EWT: test and dev UAS/LAS, training time and peak memory,
model size and load time, parse speed, for each training configuration. Prints one JSON object
per measurement and, with --results, writes its section of docs/results.md.

    python benchmarks/dep_ewt.py [--corpora DIR] [--configs NAME,...] [--repeat 3]
                                 [--results docs/results.md]
    python benchmarks/dep_ewt.py --classifier NAME [DEP TRAIN OPTIONS] [--model FILE]

The configurations (--configs, default all of them) are the rows of two tables: the parser
reading the tags as the file has them (gold XPOS and UPOS, XPOS splits), and reading UPOS alone
(`--tag-column upos --split-column upos`). --classifier NAME with any `polyparse dep train`
options instead measures that one configuration (and --model reuses a trained model).

Training runs `polyparse dep train` (with --dev, so the wall time includes scoring dev) in a
child process: wall time, and peak memory = its own maximum resident set size (os.wait4). Every
configuration is trained before any model is loaded here, since a child's peak RSS also counts
the pages of the process it was forked from. Parse
speed is measured in this process pinned to one core, the least of --repeat runs, model loaded
and sentences read beforehand (decode only), and also end to end (read, parse, write CoNLL-U).
Test and dev scores follow CoNLL 2018 (all words, punctuation included).
"""
from __future__ import annotations

import argparse
import io
import os
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from child_process import measured_run, pinned_to_one_core
from machine import Records, least_time, publish, timed, work_folder
from tables import grouped, markdown_table, seconds_text, significant

DATA = "UD English-EWT 2.16, gold tags"
UPOS_ALONE = ["--tag-column", "upos", "--split-column", "upos"]


@dataclass(frozen=True)
class Config:
    """One training configuration: the table it belongs to, how it is described there, and
    the options given to `polyparse dep train`."""
    table: str
    description: str
    options: tuple[str, ...]


CONFIGS = {
    "poly2-linear": Config("tags", "`poly2-linear`, `chang2010` templates, XPOS splits "
                           "(the defaults)", ("--classifier", "poly2-linear")),
    "linear-rich": Config("tags", "`linear`, `rich` templates, XPOS splits",
                          ("--classifier", "linear", "--features", "rich")),
    "pa-slicing": Config("tags", "`pa-slicing` PA-I, (x.z+1)^2, 20 passes, averaged, `chang2010`, "
                         "XPOS splits", ("--classifier", "pa-slicing")),
    "averaged-perceptron": Config("tags", "`pa-slicing` averaged kernel perceptron, `chang2010`, "
                                  "XPOS splits",
                                  ("--classifier", "pa-slicing", "--variant", "perceptron")),
    "upos-pa-slicing-rich": Config("upos", "`pa-slicing` PA-I, `rich` templates",
                                   ("--classifier", "pa-slicing", "--features", "rich",
                                    *UPOS_ALONE)),
    "upos-poly2-linear": Config("upos", "`poly2-linear`, `chang2010` templates",
                                ("--classifier", "poly2-linear", *UPOS_ALONE)),
    "upos-averaged-perceptron": Config("upos", "`pa-slicing` averaged kernel perceptron, "
                                       "`chang2010` (the bundled model's training, before "
                                       "`dep convert`)",
                                       ("--classifier", "pa-slicing", "--variant", "perceptron",
                                        *UPOS_ALONE)),
    "upos-linear-rich": Config("upos", "`linear`, `rich` templates",
                               ("--classifier", "linear", "--features", "rich", *UPOS_ALONE)),
}
# Other parsers on the same data, quoted from the project's issues (not measured here).
QUOTED = [
    ("MaltParser 1.9.2, arc-eager, liblinear", "85.87", "83.10", "",
     "~500 sentences/s with start-up"),
    ("MaltParser, libsvm degree 2, POS splits", "84.90", "81.90", "386 s", "16.6 sentences/s"),
    ("NLTK TransitionParser (1,000 training sentences)", "", "", "31 min", "1.9 sentences/s"),
]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--configs", default=",".join(CONFIGS),
                    help=f"comma-separated, from {', '.join(CONFIGS)}")
    ap.add_argument("--classifier", help="measure this one configuration instead (with any "
                                         "further `polyparse dep train` options)")
    ap.add_argument("--model", help="with --classifier: reuse this model instead of training one")
    ap.add_argument("--repeat", type=int, default=3, help="parse timings: best of N")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args, extra = ap.parse_known_args()
    if extra and not args.classifier:
        ap.error(f"unrecognized arguments: {' '.join(extra)} (dep train options go with "
                 "--classifier)")
    if args.model and not args.classifier:
        ap.error("--model goes with --classifier")
    if args.classifier:
        configs = {"custom": Config("tags", f"`{args.classifier}` {' '.join(extra)}".strip(),
                                    ("--classifier", args.classifier, *extra))}
    else:
        names = [name for name in args.configs.split(",") if name]
        unknown = [name for name in names if name not in CONFIGS]
        if unknown:
            ap.error(f"unknown configuration {unknown[0]!r} (expected one of "
                     f"{', '.join(CONFIGS)})")
        configs = {name: CONFIGS[name] for name in names}
    ewt = Path(args.corpora) / "en_ewt"
    records = Records(DATA)
    with work_folder("polyparse-bench-") as workdir:
        # Every training first: a child's peak RSS counts the pages of the process it was
        # forked from, so children are measured while this process is still small.
        models = {name: Path(args.model) if args.model else train(name, config, ewt, workdir,
                                                                   records)
                  for name, config in configs.items()}
        for name, config in configs.items():
            measure(name, config, ewt, models[name], args, records)
    if args.results:
        publish(args.results, "dep_ewt", "Dependency parsing, UD English-EWT",
                section(configs, records))
    return 0


def train(name: str, config: Config, ewt: Path, workdir: Path, records: Records) -> Path:
    """Train one configuration by `polyparse dep train` in a child process; the model file."""
    model = workdir / f"{name}.model"
    command = [sys.executable, "-m", "polyparse.parser.cli.main", "dep", "train", "--train",
               str(ewt / "en_ewt-ud-train.conllu"), "--dev", str(ewt / "en_ewt-ud-dev.conllu"),
               "--model", str(model), "--quiet", *config.options]
    run = measured_run(command)
    settings = {"config": name, "options": list(config.options)}
    records.emit("dep train time (reading, training, scoring dev, writing)",
                 round(run.wall_seconds, 1), "s", cores=os.cpu_count(),
                 cpu_seconds=round(run.cpu_seconds, 1), **settings)
    records.emit("dep train peak memory", round(run.peak_rss_mib, 1), "MiB (max RSS)",
                 **settings)
    return model


def measure(name: str, config: Config, ewt: Path, model: Path, args: argparse.Namespace,
            records: Records) -> None:
    """Model size and load time, test and dev scores, parse speeds, in this process."""
    from polyparse.parser.dependency.dependency_parser import DependencyParser
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll, write_conll

    dev, test = (ewt / f"en_ewt-ud-{part}.conllu" for part in ("dev", "test"))
    settings = {"config": name, "options": list(config.options)}
    records.emit("dep model size", round(model.stat().st_size / 2**20, 1), "MiB", **settings)

    def load() -> DependencyParser:
        loaded = DependencyParser.load(str(model))
        loaded.decoder()
        return loaded

    parser, loading = timed(load)
    records.emit("dep model load time (with building its evaluators)", round(loading.cpu, 2),
                 "s (CPU time)", wall_seconds=round(loading.wall, 2), **settings)
    for part, path in (("test", test), ("dev", dev)):
        sentences = list(read_conll(str(path)))
        parsed = parser.parse(sentences)
        system = [replace(s, head=h, deprel=d) for s, (h, d) in zip(sentences, parsed)]
        scores = evaluate(sentences, system).as_dict()
        for key in ("UAS", "LAS"):
            records.emit(f"dep {part} {key}", round(scores[key], 2), "%",
                         data=f"{DATA} {part}", **settings)

    sentences = list(read_conll(str(test)))
    n_words = sum(len(s) for s in sentences)

    def end_to_end() -> None:
        out = io.StringIO()
        batch = list(read_conll(str(test)))
        for sentence, (heads, deprels) in zip(batch, parser.parse(batch)):
            write_conll(sentence, heads, deprels, out)

    with pinned_to_one_core():
        parser.parse(sentences[:10])
        decode = least_time(args.repeat, parser.parse, sentences)
        whole = least_time(args.repeat, end_to_end)
    for what, timing in (("dep parse speed (decode, one core)", decode),
                         ("dep parse speed (read+parse+write, one core)", whole)):
        records.emit(what, round(len(sentences) / timing.cpu), "sentences/s (CPU time)",
                     data=f"{DATA} test", tokens_per_s=round(n_words / timing.cpu),
                     wall_sentences_per_s=round(len(sentences) / timing.wall), **settings)


def row(name: str, config: Config, records: Records) -> list[str]:
    def figure(what: str) -> object:
        return records.figure(what, config=name)

    uas, las = figure("dep test UAS"), figure("dep test LAS")
    dev_uas, dev_las = figure("dep dev UAS"), figure("dep dev LAS")
    train_seconds = figure("dep train time (reading, training, scoring dev, writing)")
    training = ""
    if train_seconds is not None:
        train = records.find("dep train time (reading, training, scoring dev, writing)",
                             config=name)
        training = (f"{seconds_text(train_seconds)} ({seconds_text(train['cpu_seconds'])} CPU), "
                    f"{grouped(figure('dep train peak memory'))} MiB")
    decode = records.find("dep parse speed (decode, one core)", config=name)
    end_to_end = figure("dep parse speed (read+parse+write, one core)")
    return [config.description, f"{uas:.2f}", f"{las:.2f}", f"{dev_uas:.2f} / {dev_las:.2f}",
            training,
            (f"{significant(figure('dep model size'))} MiB, loads in "
            f"{seconds_text(figure('dep model load time (with building its evaluators)'))}"),
            f"{grouped(decode['figure'])} ({grouped(decode['tokens_per_s'])} tokens/s)",
            grouped(end_to_end)]


def section(configs: dict[str, Config], records: Records) -> list[str]:
    header = ["configuration", "UAS", "LAS", "dev UAS / LAS", "training: wall (CPU), peak RSS",
              "model file, load", "parsing, decode only: sentences/s", ("CoNLL-U in and out: "
              "sentences/s")]
    lines = [("Trained on EWT train with `polyparse dep train` (dev scored in the same command), "
             f"on {os.cpu_count()} cores; scored on EWT test (2,077 sentences) with CoNLL 2018's "
             "rules (all words, punctuation included, LAS on universal relations). Parsing: "
             "this process pinned to one core, model loaded, the least CPU time of the timed "
             "runs (the JSON records hold the wall-clock figures too).")]
    tables = {"tags": ("**Gold tags as the file has them** (XPOS read by the templates, XPOS "
                       "splits)"),
              "upos": ("**UPOS alone** (`--tag-column upos --split-column upos`: XPOS neither "
                       "read nor needed)")}
    for table, title in tables.items():
        chosen = [(name, config) for name, config in configs.items() if config.table == table]
        if not chosen:
            continue
        lines += ["", title, ""]
        lines += markdown_table(header, (row(name, config, records) for name, config in chosen))
        if table == "tags":
            lines += ["", ("Other parsers on EWT test, **quoted from the project's issues** (as "
                      "the README's Results section gave them; not measured here):"), ""]
            lines += markdown_table(["parser", "UAS", "LAS", "training", "parsing"], QUOTED)
    return lines


if __name__ == "__main__":
    sys.exit(main())
