"""Japanese raw text: `polyparse ja parse --format raw` with the bundled UniDic model (MeCab with
unidic-lite, then the chunker and the parser), and with the bundled IPAdic model (MeCab with
IPAdic, when the ipadic package is installed), scored by characters. Prints one JSON object per
measurement and, with --results, writes its section of docs/results.md.

    python benchmarks/ja_raw.py [--corpora DIR] [--runs 3] [--no-gold-morphemes]
                                [--results docs/results.md]

KWDLC test (the documents of kwdlc/id/test.id) as raw text: each sentence's gold surfaces joined,
one sentence a line. The whole `ja parse --format raw` process (start, MeCab, the bundled model's
load, chunking, parsing, writing CaboCha) runs on one core, the least wall time of --runs, with
its peak RSS; its output must hold one sentence per line whose surfaces join back to that line
exactly. It is scored against the gold KNP by characters (parser/bunsetsu/evaluate.py): a
bunsetsu is right when its characters are a gold bunsetsu's, its dependency when its head's
are too; precision over the system's bunsetsu, recall over the gold's, the last bunsetsu of each
sentence left out. Beside it, the gold-morpheme figures of the same test set: a model trained on
KWDLC train in its own JUMAN morphemes (a `ja train` child process), with gold bunsetsu and with
the chunker's. Last, UD Japanese GSD's dev file as its team wrote it (UniDic morphemes and their
bunsetsu conventions): its text parsed raw and scored by characters, and its own morphemes
parsed with its gold bunsetsu.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from child_process import measured_run, pinned_to_one_core, polyparse_command
from knp_corpora import documents, kwdlc_corpora
from machine import Records, work_folder
from tables import grouped, markdown_table

DATA = "KWDLC test (test.id, 2,195 sentences) as raw text"
GSD = "UD Japanese GSD dev (ud_gsd_dev.cabocha, 507 sentences)"
RAW_PARSE = "polyparse ja parse --format raw"
# GiNZA 5.3 (ja_ginza) on the same raw text by the same measure, quoted (reported with the
# project's measure on this text; not measured here): dependency F1, chunk F1, sentences/s.
GINZA_QUOTED = ("GiNZA 5.3 (ja_ginza), quoted", "72.15", "87.09", "44 sentences/s")


def raw_text(sentences: list) -> str:
    return "".join("".join(s.surface) + "\n" for s in sentences)


def raw_parse(text_file: Path, output: Path, runs: int, records: Records, data: str,
              n_sentences: int, model: str | None = None) -> None:
    """The whole ja parse --format raw process on one core, the least wall time of runs;
    model: a bundled model's name (default: the UniDic model)."""
    command = polyparse_command() + ["ja", "parse", "--format", "raw", str(text_file),
                                     "-o", str(output)] + (["--model", model] if model else [])
    with pinned_to_one_core():
        measured_run(command)
        timings = [measured_run(command) for _ in range(runs)]
    best = min(timings, key=lambda run: run.wall_seconds)
    records.emit(f"{RAW_PARSE}{f' --model {model}' if model else ''}, whole process, one core",
                 round(n_sentences / best.wall_seconds), "sentences/s", data=data,
                 seconds=round(best.wall_seconds, 3),
                 peak_rss_mib=round(max(run.peak_rss_mib for run in timings), 1))


def joined_back(text_file: Path, output: Path) -> int:
    """The number of output sentences whose surfaces do not join to their input line (an
    extra or missing sentence counts)."""
    from polyparse.parser.formats.cabocha import read_cabocha

    lines = text_file.read_text(encoding="utf-8").splitlines()
    sentences = list(read_cabocha(str(output), validate=False))
    wrong = abs(len(lines) - len(sentences))
    return wrong + sum("".join(s.surface) != line for s, line in zip(sentences, lines))


def character_scores(gold: Path, gold_format: str, output: Path) -> dict:
    from polyparse.parser.bunsetsu.bunsetsu_files import file_scores

    return file_scores(gold, output, "cabocha", gold_format=gold_format, by_characters=True)


def emit_scores(records: Records, scores: dict, data: str, how: str) -> None:
    for key in ("dependency_f1", "dependency_precision", "dependency_recall", "chunk_f1",
                "sentence_accuracy"):
        records.emit(f"{key.replace('_', ' ')}, {how}", round(scores[key], 2), "%", data=data)


def gold_morphemes(corpora: Path, workdir: Path, test: list, records: Records) -> None:
    """A model trained on KWDLC train in JUMAN morphemes (a child process), on the test set's
    gold morphemes: gold bunsetsu, then the chunker's."""
    from dataclasses import replace

    from polyparse.parser.bunsetsu.bunsetsu_files import parsed_scores
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser

    model = workdir / "kwdlc.model"
    subprocess.run(polyparse_command() + [
        "ja", "train", "--quiet", "--ids", str(corpora / "kwdlc" / "id" / "train.id"),
        "--corpus", str(corpora / "kwdlc" / "knp"), "--model", str(model)], check=True)
    parser = BunsetsuParser.load(str(model))
    gold = parsed_scores(test, parser.parse(test, chunk=False))
    records.emit("dependency accuracy, gold morphemes and bunsetsu (KWDLC model)",
                 round(gold["dependency_accuracy"], 2), "%", data=DATA)
    stripped = [replace(s, chunk_starts=[], heads=[], dep_types=[], chunk_lines=[])
                for s in test]
    chunked = parsed_scores(test, parser.parse(stripped), chunked=True)
    records.emit("dependency F1, gold morphemes, chunker's bunsetsu (KWDLC model)",
                 round(chunked["dependency_f1"], 2), "%", data=DATA,
                 chunk_f1=round(chunked["chunk_f1"], 2))


def gsd(corpora: Path, workdir: Path, runs: int, records: Records) -> None:
    """UD Japanese GSD dev: its text raw, scored by characters; its own morphemes with gold
    bunsetsu."""
    from polyparse.parser.bunsetsu.bunsetsu_files import parsed_scores
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from polyparse.parser.formats.cabocha import read_cabocha
    from polyparse.parser.models.bundled import bundled_japanese_model

    gold_file = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    if not gold_file.is_file():
        return
    gold = list(read_cabocha(str(gold_file)))
    text_file = workdir / "gsd.txt"
    text_file.write_text(raw_text(gold), encoding="utf-8")
    output = workdir / "gsd.cabocha"
    raw_parse(text_file, output, runs, records, GSD, len(gold))
    emit_scores(records, character_scores(gold_file, "cabocha", output), GSD, "raw text")
    parser = BunsetsuParser.load(str(bundled_japanese_model("ja_unidic")))
    scores = parsed_scores(gold, parser.parse(gold, chunk=False))
    records.emit("dependency accuracy, its own morphemes and gold bunsetsu",
                 round(scores["dependency_accuracy"], 2), "%", data=GSD)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-gold-morphemes", dest="gold_morphemes", action="store_false",
                    help="do not train the KWDLC model of the gold-morpheme figures")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    corpora = kwdlc_corpora(args.corpora, "test.id")
    from polyparse.parser.formats.knp import read_knp

    records = Records(DATA)
    with work_folder("polyparse-ja-raw-") as workdir:
        test_file = documents(corpora, "kwdlc", "test.id", workdir / "test.knp")
        test = list(read_knp(str(test_file)))
        text_file = workdir / "test.txt"
        text_file.write_text(raw_text(test), encoding="utf-8")
        output = workdir / "test.cabocha"
        raw_parse(text_file, output, args.runs, records, DATA, len(test))
        records.emit("output sentences whose surfaces do not join back to the input line",
                     joined_back(text_file, output), "sentences")
        emit_scores(records, character_scores(test_file, "knp", output), DATA, "raw text")
        if importlib.util.find_spec("ipadic") is not None:
            output = workdir / "test-ipadic.cabocha"
            raw_parse(text_file, output, args.runs, records, DATA, len(test), "ja_ipadic")
            emit_scores(records, character_scores(test_file, "knp", output), DATA,
                        "raw text, MeCab with IPAdic")
        if args.gold_morphemes:
            gold_morphemes(corpora, workdir, test, records)
        gsd(corpora, workdir, args.runs, records)
    records.finish(args.results, "ja_raw", "Japanese raw text (MeCab with UniDic, bundled model)",
                   lambda: section(records))
    return 0


def section(records: Records) -> list[str]:
    def figure(what: str, data: str = DATA) -> str:
        value = records.figure(what, data=data)
        return "" if value is None else f"{value:.2f}"

    speed = records.find("polyparse ja parse --format raw, whole process, one core", data=DATA)
    rows = [["polyparse, raw text, bundled ja_unidic", figure("dependency f1, raw text"),
             figure("chunk f1, raw text"),
             f"{grouped(speed['figure'])} sentences/s ({speed['seconds']} s, "
             f"{speed['peak_rss_mib']} MiB)"]]
    ipadic = records.find(f"{RAW_PARSE} --model ja_ipadic, whole process, one core", data=DATA)
    if ipadic is not None:
        rows.append(["polyparse, raw text, MeCab with IPAdic, bundled ja_ipadic",
                     figure("dependency f1, raw text, MeCab with IPAdic"),
                     figure("chunk f1, raw text, MeCab with IPAdic"),
                     f"{grouped(ipadic['figure'])} sentences/s ({ipadic['seconds']} s, "
                     f"{ipadic['peak_rss_mib']} MiB)"])
    gold = records.find("dependency F1, gold morphemes, chunker's bunsetsu (KWDLC model)")
    if gold is not None:
        rows.append(["polyparse, gold JUMAN morphemes, chunker's bunsetsu (KWDLC model)",
                     f"{gold['figure']:.2f}", f"{gold['chunk_f1']:.2f}", ""])
        rows.append(["polyparse, gold JUMAN morphemes and bunsetsu (KWDLC model)",
                     figure("dependency accuracy, gold morphemes and bunsetsu (KWDLC model)"),
                     "gold", ""])
    rows.append(list(GINZA_QUOTED))
    lines = [
        "KWDLC test as raw text (each sentence's gold surfaces joined, one sentence a line), "
        "parsed by the whole `polyparse ja parse --format raw` process on one core (MeCab with "
        "unidic-lite, the bundled UniDic model; start-up included, the least wall time of the "
        "runs) and scored against the gold KNP by characters: a bunsetsu is right when its "
        "characters are a gold bunsetsu's, its dependency when its head's characters are too "
        "(the last bunsetsu of each sentence left out; precision over the system's bunsetsu, "
        "recall over the gold's). The gold-morpheme rows are a model trained on KWDLC train in "
        "its own JUMAN morphemes, on the same sentences.", "",
        *markdown_table(["system", "dependency F1", "chunk F1", "whole process"], rows), "",
        f"Dependency precision {figure('dependency precision, raw text')}, recall "
        f"{figure('dependency recall, raw text')}, sentences with every bunsetsu and head right "
        f"{figure('sentence accuracy, raw text')} %. Output sentences whose surfaces do not join "
        "back to their input line: "
        f"{records.figure('output sentences whose surfaces do not join back to the input line')}."
        " Most of the peak RSS is unidic-lite's dictionary, which MeCab maps from its files "
        "(about 190 MiB of file pages, shared by every process that reads them).",
    ]
    gsd_speed = records.find("polyparse ja parse --format raw, whole process, one core",
                             data=GSD)
    if gsd_speed is not None:
        lines += ["", f"{GSD}, written by its own team with other bunsetsu conventions "
                  "(UniDic long units): its text parsed raw and scored by characters, dependency "
                  f"F1 {figure('dependency f1, raw text', GSD)}, chunk F1 "
                  f"{figure('chunk f1, raw text', GSD)} "
                  f"({grouped(gsd_speed['figure'])} sentences/s whole process); its own "
                  "morphemes with its gold bunsetsu, dependency accuracy "
                  f"{figure('dependency accuracy, its own morphemes and gold bunsetsu', GSD)}."]
    return lines


if __name__ == "__main__":
    sys.exit(main())
