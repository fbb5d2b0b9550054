"""The POS tagger (`polyparse tag`) on UD English-EWT with gold tokens: UPOS, XPOS, AllTags and
lemma accuracy on dev and test (all words, known and unknown), training time, tagging speed on
one core with the model loaded, the whole `polyparse tag tag` process, and the bundled model's
size. Prints one JSON object per measurement and, with --results, writes its section of
docs/results.md.

    python benchmarks/en_tagger.py [--corpora DIR] [--repeat 5] [--model M]
                                   [--results docs/results.md]

Training runs `polyparse tag train --train TRAIN --dev DEV` with TRAINING_OPTIONS in a child
process (wall and CPU time, peak memory); --model scores a model file instead (the bundled
pipeline's tagger: `--model bundled`). The input given to the
tagger is the gold file with LEMMA, UPOS and XPOS written as `_`; scores follow CoNLL 2018
(conll18_ud_eval.py: F1 over aligned words, i.e. the accuracy with gold tokens). "Unknown":
words whose form is not in the training data. Tagging speed: this process pinned to one core,
model loaded and sentences read beforehand, the least CPU time of --repeat runs of
Tagger.tag (tags and lemmas) and of the classifier loop alone.
"""
from __future__ import annotations

import argparse
import os
from pathlib import Path

from child_process import measured_run, pinned_to_one_core, polyparse_command
from conllu_columns import LEMMA, UPOS, XPOS, blank_columns
from machine import Records, least_time, work_folder
from tables import grouped, markdown_table
from ud_treebanks import ewt_files

DATA = "UD English-EWT 2.16, gold tokens"
# The options of the English tagger bundled before the pipeline (whose tagger is
# parser/models/en_ewt.md's), beside --train/--dev.
TRAINING_OPTIONS = ["--min-word-count", "4", "--min-feature-count", "3", "--compress"]
# Published figures of other taggers on EWT with gold tokens, for comparison.
QUOTED = [
    ("UDPipe 1.2 (quoted)", "about 95", "", ""),
    ("Stanza (neural, pretrained embeddings; quoted)", "about 96", "", ""),
]


def train(records: Records, files: dict[str, Path], model: Path) -> None:
    run = measured_run(polyparse_command() + [
        "tag", "train", "--train", str(files["train"]), "--dev", str(files["dev"]),
        "--model", str(model), "--quiet", *TRAINING_OPTIONS])
    records.emit("training, whole process", round(run.wall_seconds, 1), "s",
                 cpu_seconds=round(run.cpu_seconds, 1), peak_rss_mib=round(run.peak_rss_mib),
                 options=" ".join(TRAINING_OPTIONS))


def unknown_accuracy(tagger, gold: list, system: list) -> tuple[float, float, int]:
    """UPOS and XPOS accuracy over the words whose form the tagger never saw, and their
    number."""
    known = tagger.lexicon.entries
    right_upos = right_xpos = n = 0
    for g, s in zip(gold, system):
        for form, gu, gx, su, sx in zip(g.form, g.upos, g.xpos, s.upos, s.xpos):
            if form not in known:
                n += 1
                right_upos += gu == su
                right_xpos += gx == sx
    return 100.0 * right_upos / max(1, n), 100.0 * right_xpos / max(1, n), n


def evaluate_model(records: Records, files: dict[str, Path], model: Path, repeat: int,
                   workdir: Path) -> None:
    from polyparse.parser.dependency.evaluate import evaluate
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.tagging.conll_files import with_tags
    from polyparse.parser.tagging.tagger import Tagger

    tagger = Tagger.load(model)
    records.emit("model file", round(model.stat().st_size / 2**20, 2), "MiB",
                 compressed=tagger.compressed, passes=len(tagger.passes),
                 classifier=tagger.config.classifier)
    for split in ("dev", "test"):
        gold = list(read_conll(str(files[split])))
        blanked = blank_columns(files[split], workdir / f"{split}.conllu", (LEMMA, UPOS, XPOS))
        untagged = list(read_conll(str(blanked)))
        system = [with_tags(s, c) for s, c in zip(untagged, tagger.tag(untagged))]
        scores = evaluate(gold, system).as_dict()
        joint = sum(g.upos[i] == s.upos[i] and g.xpos[i] == s.xpos[i]
                    for g, s in zip(gold, system) for i in range(len(g)))
        unknown_upos, unknown_xpos, n_unknown = unknown_accuracy(tagger, gold, system)
        records.emit(f"{split} accuracy", {key: round(scores[key], 2) for key in
                                           ("UPOS", "XPOS", "AllTags", "Lemmas")}, "%",
                     words=scores["words"], upos_and_xpos=round(100.0 * joint / scores["words"], 2),
                     unknown_words=n_unknown, unknown_upos=round(unknown_upos, 2),
                     unknown_xpos=round(unknown_xpos, 2))
        forms = [s.form for s in untagged]
        with pinned_to_one_core():
            tagger.tag(untagged)
            whole = least_time(repeat, tagger.tag, untagged)
            loop = least_time(repeat, tagger.tag_classes, forms)
        records.emit(f"{split} tagging speed, one core", round(len(untagged) / whole.cpu),
                     "sentences/s", classifier_loop=round(len(untagged) / loop.cpu),
                     words_per_second=round(scores["words"] / whole.cpu),
                     wall_sentences_per_second=round(len(untagged) / whole.wall))
    command = polyparse_command() + ["tag", "tag", "--model", str(model),
                                     str(workdir / "test.conllu"), "-o", os.devnull]
    with pinned_to_one_core():
        measured_run(command)
        runs = [measured_run(command) for _ in range(repeat)]
    best = min(runs, key=lambda run: run.wall_seconds)
    records.emit("tag tag of EWT test, whole process, one core", round(best.wall_seconds, 3),
                 "s", peak_rss_mib=round(best.peak_rss_mib))
    parsed = workdir / "parsed.conllu"
    run = measured_run(polyparse_command() + [
        "dep", "parse", "--tagger", str(model), str(workdir / "test.conllu"), "-o", str(parsed),
        "--quiet"])
    gold = list(read_conll(str(files["test"])))
    scores = evaluate(gold, list(read_conll(str(parsed)))).as_dict()
    records.emit("dep parse of untagged EWT test with the bundled parser",
                 {"UAS": round(scores["UAS"], 2), "LAS": round(scores["LAS"], 2)}, "%",
                 seconds=round(run.wall_seconds, 2))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--model", help="score this model file (bundled: the bundled tagger) "
                                    "instead of training one")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    gold = ewt_files(args.corpora)
    records = Records(DATA)
    with work_folder("polyparse-en-tagger-") as workdir:
        if args.model == "bundled":
            from polyparse.parser.models.bundled import bundled_tagger

            model = bundled_tagger()
            if model is None:
                raise SystemExit("this installation has no bundled tagger")
        elif args.model:
            model = Path(args.model)
        else:
            model = workdir / "tagger.model"
            train(records, gold, model)
        evaluate_model(records, gold, Path(model), args.repeat, workdir)
    records.finish(args.results, "en_tagger", "POS tagging, UD English-EWT (gold tokens)",
                   lambda: section(records))
    return 0


def section(records: Records) -> list[str]:
    rows = []
    for split in ("test", "dev"):
        row = records.find(f"{split} accuracy")
        speed = records.find(f"{split} tagging speed, one core")
        figure = row["figure"]
        rows.append([f"polyparse `tag` ({split})", f"{figure['UPOS']:.2f}",
                     f"{figure['XPOS']:.2f}", f"{row['upos_and_xpos']:.2f}",
                     f"{figure['Lemmas']:.2f}",
                     f"{row['unknown_upos']:.2f} / {row['unknown_xpos']:.2f} "
                     f"({grouped(row['unknown_words'])} words)",
                     f"{grouped(speed['figure'])} ({grouped(speed['classifier_loop'])} "
                     "classifier loop)"])
    rows += [[name, upos, xpos, "", "", "", speed] for name, upos, xpos, speed in QUOTED]
    size = records.find("model file")
    whole = records.find("tag tag of EWT test, whole process, one core")
    trained = records.find("training, whole process")
    lines = [
        "Tagged with gold tokens (LEMMA, UPOS and XPOS blanked in the input); CoNLL 2018 scores "
        "over all words (2,077 test sentences, 25,094 words). Speed: this process pinned to one "
        "core, model loaded and sentences read, the least CPU time of the runs: Tagger.tag "
        "(tags and lemmas) and the classifier loop alone.", "",
        *markdown_table(["tagger", "UPOS", "XPOS", "UPOS and XPOS", "Lemmas",
                         "unknown words UPOS / XPOS", "sentences/s, one core"], rows), "",
        f"Model: {size['figure']} MiB ({size['classifier']}, {size['passes']} pass(es), "
        f"{'compressed' if size['compressed'] else 'uncompressed'}). The whole `polyparse tag "
        f"tag` process on EWT test, one core: {whole['figure']} s, {whole['peak_rss_mib']} MiB.",
    ]
    parsed = records.find("dep parse of untagged EWT test with the bundled parser")
    lines += ["", f"`polyparse dep parse --tagger MODEL` of EWT test with LEMMA, UPOS and XPOS "
                  f"blanked (the bundled parser on these tags, gold tokens): UAS "
                  f"{parsed['figure']['UAS']:.2f}, LAS {parsed['figure']['LAS']:.2f} (gold tags: "
                  f"see the bundled model's section), {parsed['seconds']} s whole process."]
    if trained is not None:
        lines += ["", f"Training (`polyparse tag train {trained['options']}`, 2 cores): "
                      f"{trained['figure']} s wall, {trained['cpu_seconds']} s CPU, "
                      f"{trained['peak_rss_mib']} MiB peak."]
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
