"""The tagger (`polyparse tag`: UPOS, XPOS, FEATS and lemmas) of any UD language: one model per
treebank, trained on its train file with the settings every language shares, scored on its test
file with gold tokens (CoNLL 2018 scores of conll18_ud_eval.py, parser/dependency/evaluate.py),
beside UDPipe 1.2's published figures from raw text. Prints one JSON object per measurement and,
with --results, writes its section of docs/results.md.

    python benchmarks/tagger_ud.py [--corpora DIR] [--treebanks ko_gsd,en_ewt] [--repeat 3]
                                   [--options "--feats joint"] [--results docs/results.md]

Treebanks: every folder of DIR/ud22 (the CoNLL 2018 shared task's UD 2.2 files) and DIR/en_ewt
(UD English EWT r2.16). Training runs `polyparse tag train --train TRAIN --dev DEV --model M`
(plus --options) in a child process on the machine's cores: its wall and CPU time and peak
memory; dev is only scored (the scores stay in the model's header). The model's size is its
file's bytes, as written and zlib-compressed (`--compress`). The test input is the gold file with
LEMMA, UPOS, XPOS and FEATS written as `_` (gold tokens); speed is the test file's sentences per
CPU second of Tagger.tag on one core, model loaded and sentences read, the best of --repeat
runs. UDPipe 1.2's figures (from raw text, so with its tokenization errors) are read from
DIR/ud22/README.md (quoted there from the shared task's results pages; EWT's are of the r2.2
test set).
"""
from __future__ import annotations

import argparse
import shlex
from pathlib import Path

from child_process import measured_run, pinned_to_one_core, polyparse_command
from conllu_columns import FEATS, LEMMA, UPOS, XPOS, blank_columns
from machine import Records, least_time
from tables import markdown_table
from ud_treebanks import (
    add_treebank_options,
    against_baseline,
    run_per_treebank,
    treebank_row,
)

METRICS = ("UPOS", "XPOS", "UFeats", "AllTags", "Lemmas")


def measure(name: str, folder: Path, options: list[str], repeat: int,
            baseline: dict[str, float] | None, workdir: Path, records: Records) -> None:
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.tagging.conll_files import with_tags
    from polyparse.parser.tagging.tagger import Tagger

    data = f"{name} test, gold tokens, trained on {name} train"
    files = {split: folder / f"{name}-ud-{split}.conllu" for split in ("train", "dev", "test")}
    model = workdir / f"{name}.model"
    run = measured_run(polyparse_command() + [
        "tag", "train", "--train", str(files["train"]), "--dev", str(files["dev"]),
        "--model", str(model), "--quiet", *options])
    tagger = Tagger.load(model)
    compressed = len(tagger.to_bytes(compress=True))
    records.emit("tagger training, whole process", round(run.wall_seconds, 1), "s", data=data,
                 cpu_seconds=round(run.cpu_seconds, 1), peak_rss_mib=round(run.peak_rss_mib),
                 options=shlex.join(options), model_bytes=model.stat().st_size,
                 compressed_model_bytes=compressed, columns=list(tagger.columns),
                 classes=len(tagger.classes), dev_scores=tagger.header.get("dev_scores"))
    gold = list(read_conll(str(files["test"])))
    blanked = blank_columns(files["test"], workdir / f"{name}-test.conllu",
                            (LEMMA, UPOS, XPOS, FEATS))
    untagged = list(read_conll(str(blanked)))
    system = [with_tags(s, c) for s, c in zip(untagged, tagger.tag(untagged))]
    scores = evaluate(gold, system).as_dict()
    with pinned_to_one_core():
        tagger.tag(untagged[:10])
        timing = least_time(repeat, tagger.tag, untagged)
    records.emit("tagging speed, model loaded, one core, CPU time",
                 round(len(untagged) / timing.cpu), "sentences/s", data=data,
                 words_per_second=round(scores["words"] / timing.cpu),
                 seconds=round(timing.cpu, 3))
    for metric in METRICS:
        extra = against_baseline("udpipe_1_2_raw_text", scores[metric],
                                 (baseline or {}).get(metric))
        records.emit(metric, round(scores[metric], 2), "%", data=data, words=scores["words"],
                     training_seconds=round(run.wall_seconds, 1),
                     model_bytes=model.stat().st_size, **extra)


def section(records: Records, names: list[str]) -> list[str]:
    """The results page's table: per treebank, each score beside UDPipe 1.2's, training time,
    model size and speed."""
    rows = []
    for name in names:
        data = f"{name} test, gold tokens, trained on {name} train"
        rows.append(treebank_row(
            records, name, data, METRICS, "udpipe_1_2_raw_text",
            ("tagger training, whole process", "figure", "compressed_model_bytes"),
            "tagging speed, model loaded, one core, CPU time"))
    return ["One tagger per treebank, trained on its train file with the settings every language "
            "shares, scored on its test file with gold tokens (CoNLL 2018 scores); in brackets "
            "UDPipe 1.2's published figures, which are from raw text and so carry its "
            "tokenization errors. Training is the wall time of `polyparse tag train`; the model "
            "is zlib-compressed; speed is sentences per CPU second on one core, model loaded.", "",
            *markdown_table(["treebank", *METRICS, "training, s", "model MiB",
                             "sentences/s, one core"], rows)]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add_treebank_options(ap)
    ap.add_argument("--repeat", type=int, default=3, help="timed runs of Tagger.tag (best kept)")
    ap.add_argument("--options", default="", help="more `tag train` options, as one string")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    options = shlex.split(args.options)
    return run_per_treebank(
        args, METRICS, "UD treebanks' test files (CoNLL 2018 shared task), gold tokens",
        "tagger_ud", "Tagging UD treebanks (gold tokens)",
        lambda name, folder, baseline, workdir, records: measure(
            name, folder, options, args.repeat, baseline, workdir, records), section)


if __name__ == "__main__":
    raise SystemExit(main())
