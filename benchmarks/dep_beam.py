"""The beam-search parser (`dep train --classifier structured-perceptron`) on UD English-EWT:
test and dev UAS/LAS with gold tags and with XPOS blanked, training time, the learning curve
per epoch, accuracy and speed by beam width, beside the greedy parser's and MaltParser's.
Prints one JSON object per measurement and, with --results, writes its section of
docs/results.md.

    python benchmarks/dep_beam.py [--corpora DIR] [--repeat 3] [--widths 1,2,4,8,16]
                                  [--no-blanked] [--results docs/results.md]

Training runs `polyparse dep train --classifier structured-perceptron --train TRAIN --dev DEV`
with its defaults in a child process (wall and CPU time, peak memory); the model keeps the
epoch with the best dev UAS, and its file records the curve. "XPOS blanked": the XPOS column of
train, dev and test written as `_` (the parser then reads UPOS as its tags). Parse speed: this
process pinned to one core, model loaded and sentences read beforehand, the least CPU time of
--repeat runs (decode and deprojectivise only), at each beam width of --widths on dev and test;
and the whole `polyparse dep parse` process on EWT test at the model's own width. The greedy
parser (`dep train` defaults, `poly2-linear`) is trained and scored in the same run; MaltParser
is quoted (benchmarks/dep_ewt.py's quotes). Scores follow CoNLL 2018 (all words, punctuation
included).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from child_process import measured_run, pinned_to_one_core, polyparse_command
from conllu_columns import XPOS, blank_columns
from dep_ewt import QUOTED
from machine import Records, least_time, work_folder
from tables import grouped, markdown_table
from ud_treebanks import ewt_files

DATA = "UD English-EWT 2.16"
GOLD = "gold tags"
BLANKED = "XPOS blanked in train, dev and test"


def scores_of(gold: list, parsed: list) -> tuple[float, float]:
    from polyparse.parser.dependency.training import attachment

    return attachment(gold, parsed)


def train(records: Records, files: dict[str, Path], model: Path, setting: str,
          options: list[str]) -> None:
    run = measured_run(polyparse_command() + [
        "dep", "train", "--train", str(files["train"]), "--dev", str(files["dev"]),
        "--model", str(model), "--quiet", *options])
    records.emit("training, whole process", round(run.wall_seconds, 1), "s", data=setting,
                 cpu_seconds=round(run.cpu_seconds, 1), peak_rss_mib=round(run.peak_rss_mib),
                 options=" ".join(options), model_mib=round(model.stat().st_size / 2**20, 1))


def evaluate_model(records: Records, files: dict[str, Path], model: Path, setting: str,
                   widths: list[int], repeat: int) -> None:
    from polyparse.parser.dependency.models import load_dependency_model
    from polyparse.parser.formats.conll import read_conll

    parser = load_dependency_model(model)
    own = parser.config.beam if "beam" in parser.RUNTIME_SETTINGS else None
    for split in ("dev", "test"):
        sentences = list(read_conll(str(files[split]), require_tree=True))
        for width in (widths if own is not None else [None]):
            if own is not None:
                parser.configure(beam=width)
            parsed = parser.parse(sentences)
            uas, las = scores_of(sentences, parsed)
            with pinned_to_one_core():
                timing = least_time(repeat, parser.parse, sentences)
            records.emit(f"{split} UAS/LAS", [round(uas, 2), round(las, 2)], "%",
                         data=setting, beam=width, own_beam=width == own,
                         sentences_per_second=round(len(sentences) / timing.cpu),
                         wall_sentences_per_second=round(len(sentences) / timing.wall))
    if own is not None:
        parser.configure(beam=own)
        records.emit("learning curve", parser.info["epochs"], "epochs", data=setting,
                     best_epoch=parser.info["best_epoch"])
    command = polyparse_command() + ["dep", "parse", "--model", str(model), str(files["test"]),
                                     "-o", os.devnull]
    with pinned_to_one_core():
        measured_run(command)
        runs = [measured_run(command) for _ in range(repeat)]
    best = min(runs, key=lambda run: run.wall_seconds)
    records.emit("dep parse of EWT test, whole process, one core", round(best.wall_seconds, 3),
                 "s", data=setting, peak_rss_mib=round(best.peak_rss_mib))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--widths", default="1,2,4,8,16")
    ap.add_argument("--no-blanked", dest="blanked", action="store_false",
                    help="leave out the XPOS-blanked model")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    gold = ewt_files(args.corpora)
    widths = [int(w) for w in args.widths.split(",")]
    records = Records(DATA)
    with work_folder("polyparse-dep-beam-") as workdir:
        beam_model, greedy_model = workdir / "beam.model", workdir / "greedy.model"
        train(records, gold, beam_model, GOLD, ["--classifier", "structured-perceptron"])
        train(records, gold, greedy_model, GOLD + ", greedy", [])
        evaluate_model(records, gold, beam_model, GOLD, widths, args.repeat)
        evaluate_model(records, gold, greedy_model, GOLD + ", greedy", widths, args.repeat)
        if args.blanked:
            blanked = {split: blank_columns(path, workdir / f"{split}.blanked.conllu", [XPOS])
                       for split, path in gold.items()}
            model = workdir / "blanked.model"
            train(records, blanked, model, BLANKED, ["--classifier", "structured-perceptron"])
            evaluate_model(records, blanked, model, BLANKED, widths, args.repeat)
    records.finish(args.results, "dep_beam",
                   "Beam search with global learning on EWT (structured-perceptron)",
                   lambda: section(records))
    return 0


def section(records: Records) -> list[str]:
    def scores(setting: str, split: str, own: bool = True, beam: int | None = None) -> dict:
        return next(row for row in records.rows
                    if row["what"] == f"{split} UAS/LAS" and row["data"] == setting
                    and (row["own_beam"] if beam is None else row["beam"] == beam))

    def training(setting: str) -> str:
        row = records.find("training, whole process", data=setting)
        return (f"{row['figure']} s ({row['cpu_seconds']} s CPU), {row['peak_rss_mib']} MiB; "
                f"model {row['model_mib']} MiB")

    def speed(setting: str) -> str:
        row = scores(setting, "test")
        whole = records.find("dep parse of EWT test, whole process, one core", data=setting)
        return (f"{grouped(row['sentences_per_second'])} (whole process: {whole['figure']} s, "
                f"{whole['peak_rss_mib']} MiB)")

    settings = [(GOLD, "structured-perceptron, beam search (defaults)"),
                (GOLD + ", greedy", "greedy `poly2-linear` (the `dep train` defaults)")]
    if records.find("training, whole process", data=BLANKED) is not None:
        settings.append((BLANKED, "structured-perceptron, XPOS blanked in train, dev and test"))
    rows = []
    for setting, description in settings:
        test, dev = scores(setting, "test"), scores(setting, "dev")
        width = "" if test["beam"] is None else f" (beam {test['beam']})"
        rows.append([description + width, f"{test['figure'][0]:.2f}", f"{test['figure'][1]:.2f}",
                     f"{dev['figure'][0]:.2f} / {dev['figure'][1]:.2f}", training(setting),
                     speed(setting)])
    rows += [[name, uas, las, "", training_time, parsing]
             for name, uas, las, training_time, parsing in QUOTED[:2]]
    lines = [
        "Trained on EWT train by `polyparse dep train --classifier structured-perceptron --dev "
        "EWT-dev` (its defaults; the epoch with the best dev UAS is kept), on 2 cores; scored on "
        "EWT test (2,077 sentences) with CoNLL 2018's rules. Parsing speed: this process pinned "
        "to one core, model loaded, the least CPU time of the runs (decode only); the whole "
        "`dep parse` process, one core, for comparison. MaltParser's rows are quoted from the "
        "project's issues.", "",
        *markdown_table(["parser", "UAS", "LAS", "dev UAS / LAS", "training: wall (CPU), peak "
                         "RSS; model", "parsing: sentences/s, one core"], rows), ""]
    curve = records.find("learning curve", data=GOLD)
    lines += [f"Learning curve (gold tags; epoch {curve['best_epoch']} kept):", "",
              *markdown_table(["epoch", "updates", "weights", "dev UAS", "dev LAS"],
                              [[p["epoch"], grouped(p["updates"]), grouped(p["weights"]),
                                f"{p['dev_UAS']:.2f}", f"{p['dev_LAS']:.2f}"]
                               for p in curve["figure"]]), ""]
    widths = sorted({row["beam"] for row in records.rows
                     if row["what"] == "test UAS/LAS" and row["data"] == GOLD})
    by_width = []
    for width in widths:
        dev, test = scores(GOLD, "dev", beam=width), scores(GOLD, "test", beam=width)
        by_width.append([str(width) + (" (default)" if test["own_beam"] else ""),
                         f"{dev['figure'][0]:.2f} / {dev['figure'][1]:.2f}",
                         f"{test['figure'][0]:.2f} / {test['figure'][1]:.2f}",
                         grouped(test["sentences_per_second"])])
    own = scores(GOLD, "test")["beam"]
    lines += [f"The same model parsing at other beam widths (the default, {own}, was chosen "
              "on dev: the narrowest width within 0.1 UAS of twice its width):", "",
              *markdown_table(["beam", "dev UAS / LAS", "test UAS / LAS",
                               "test sentences/s, one core"], by_width)]
    return lines


if __name__ == "__main__":
    sys.exit(main())
