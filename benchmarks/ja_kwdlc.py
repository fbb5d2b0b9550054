"""The Japanese bunsetsu parser on KWDLC (and the Wikipedia Annotated Corpus): accuracy,
training time and peak memory, parse speed, model size and load time, chunking. Prints one JSON
object per measurement.

    python benchmarks/ja_kwdlc.py [--corpora DIR] [--configs shift-reduce:2,cascaded:2,...]
                                  [--copies 50] [--runs 3] [--no-wac]

For each configuration (algorithm:degree) a fresh `polyparse ja train` process trains on the
documents of kwdlc/id/train.id (wall time and peak RSS of the whole process: reading, training,
conversion, writing the model; the two classifiers at once on two cores, and the default
configuration again on one core). The model is then loaded here and KWDLC test (id/test.id) parsed
from gold bunsetsu, one core: dependency and sentence accuracy over all bunsetsu but the last of
each sentence, and the speed of dependency parsing alone (the least time of --runs, model
loaded, sentences already read). Chunking from gold morphemes gives chunk F1 and the dependency
accuracy with predicted bunsetsu. The whole `polyparse ja parse` process (start, model load,
reading and writing KNP) is timed on one core on KWDLC test repeated --copies times. Last, the default
configuration trains on the Wikipedia Annotated Corpus's train documents (malformed sentences
skipped) and is scored on its dev documents.
"""
from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from child_process import child_run, polyparse_command
from machine import corpora_arguments, emit, peak_memory_record, record

DATA = "KWDLC (train.id -> test.id)"
WAC = "Wikipedia Annotated Corpus (train.id -> dev.id)"


def documents(corpora: Path, corpus: str, ids: str, target: Path) -> Path:
    subprocess.run([sys.executable, str(Path(__file__).resolve().parents[1] / "corpora_scripts"
                                        / "knp_documents.py"),
                    "--ids", str(corpora / corpus / "id" / ids),
                    "--corpus", str(corpora / corpus / "knp"), "-o", str(target)], check=True)
    return target


def scores_of(gold: list, parsed: list, chunked: bool) -> dict:
    from parser.bunsetsu.bunsetsu_files import parsed_scores

    return parsed_scores(gold, parsed, chunked)


def measure(config: str, corpora: Path, workdir: Path, test_file: Path, big_file: Path,
            n_big: int, runs: int) -> None:
    from parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from parser.formats.knp import read_knp

    algorithm, degree = config.split(":")
    name = f"{algorithm}, d={degree}"
    model = workdir / f"{algorithm}-{degree}.model"
    seconds, rss = child_run(polyparse_command() + [
        "ja", "train", "--ids", str(corpora / "kwdlc" / "id" / "train.id"),
        "--corpus", str(corpora / "kwdlc" / "knp"), "--model", str(model),
        "--algorithm", algorithm, "--degree", degree], quiet_stderr=True)
    emit(record(f"ja train ({name}; reading, training both classifiers at once on two cores, "
                "conversion, writing)", DATA, round(seconds, 1), "s", peak_rss_mb=round(rss)))
    if algorithm == "shift-reduce" and degree == "2":
        seconds, rss = child_run(polyparse_command() + [
            "ja", "train", "--ids", str(corpora / "kwdlc" / "id" / "train.id"),
            "--corpus", str(corpora / "kwdlc" / "knp"), "--model", str(model),
            "--threads", "1"], one_core=True, quiet_stderr=True)
        emit(record(f"ja train ({name}), one core", DATA, round(seconds, 1), "s",
                    peak_rss_mb=round(rss)))
    emit(record(f"model file size ({name})", DATA, round(model.stat().st_size / 1e6, 2), "MB",
                bytes=model.stat().st_size))
    started = time.perf_counter()
    parser = BunsetsuParser.load(str(model))
    parser._decision("dependency")
    parser._decision("chunk")
    emit(record(f"model load ({name})", DATA, round(time.perf_counter() - started, 3), "s"))

    test = list(read_knp(str(test_file)))
    corpus = parser.encode(test)
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        heads = parser.parse_corpus(corpus)
        best = min(best, time.perf_counter() - started)
    emit(record(f"dependency parsing speed ({name}; model loaded, one core)", DATA + " test",
                round(len(test) / best), "sentences/s", seconds=round(best, 4)))
    flat = heads.tolist()
    parsed, at = [], 0
    for s in test:
        parsed.append((s.chunk_starts, flat[at:at + len(s.chunk_starts)]))
        at += len(s.chunk_starts)
    gold_chunks = scores_of(test, parsed, chunked=False)
    for key in ("dependency_accuracy", "sentence_accuracy"):
        emit(record(f"{key.replace('_', ' ')} ({name}, gold bunsetsu)", DATA + " test",
                    round(gold_chunks[key], 2), "%"))

    stripped = [replace(s, chunk_starts=[], heads=[], dep_types=[], chunk_lines=[])
                for s in test]
    chunked = scores_of(test, parser.parse(stripped), chunked=True)
    emit(record(f"chunk F1 ({name}, gold morphemes)", DATA + " test",
                round(chunked["chunk_f1"], 2), "%"))
    for key in ("dependency_accuracy", "sentence_accuracy"):
        emit(record(f"{key.replace('_', ' ')} ({name}, predicted bunsetsu)", DATA + " test",
                    round(chunked[key], 2), "%",
                    beside_gold_bunsetsu=round(gold_chunks[key], 2)))

    command = polyparse_command() + ["ja", "parse", "--model", str(model), str(big_file), "-o",
                                     str(workdir / "out.knp")]
    times = [child_run(command, one_core=True, quiet_stderr=True) for _ in range(runs)]
    least = min(t for t, _ in times)
    emit(record(f"polyparse ja parse, whole process reading and writing KNP, one core ({name})",
                f"{DATA} test x {n_big // len(test)} ({n_big} sentences)",
                round(n_big / least), "sentences/s", seconds=round(least, 3),
                peak_rss_mb=round(max(r for _, r in times))))


def wac(corpora: Path, workdir: Path) -> None:
    from parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from parser.formats.knp import read_knp

    if not (corpora / "ja_wac" / "id" / "train.id").is_file():
        return
    model = workdir / "wac.model"
    command = polyparse_command() + [
        "ja", "train", "--ids", str(corpora / "ja_wac" / "id" / "train.id"),
        "--corpus", str(corpora / "ja_wac" / "knp"), "--model", str(model)]
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, check=True)
    seconds = time.perf_counter() - started
    skipped = sum(1 for line in run.stderr.splitlines() if "warning: skipped " in line
                  and "malformed training sentence" not in line)
    emit(record("ja train (shift-reduce, d=2), malformed sentences skipped", WAC,
                round(seconds, 1), "s", skipped=skipped))
    dev = list(read_knp(str(documents(corpora, "ja_wac", "dev.id", workdir / "wac-dev.knp"))))
    parser = BunsetsuParser.load(str(model))
    scores = scores_of(dev, parser.parse(dev, chunk=False), chunked=False)
    for key in ("dependency_accuracy", "sentence_accuracy"):
        emit(record(f"{key.replace('_', ' ')} (shift-reduce, d=2, gold bunsetsu)", WAC,
                    round(scores[key], 2), "%"))


def main() -> int:
    ap = corpora_arguments(__doc__)
    ap.add_argument("--configs", default="shift-reduce:2,cascaded:2,shift-reduce:3,cascaded:3")
    ap.add_argument("--copies", type=int, default=50, help="KWDLC test copies parsed at once")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--no-wac", dest="wac", action="store_false")
    args = ap.parse_args()
    corpora = Path(args.corpora)
    if not (corpora / "kwdlc" / "id" / "train.id").is_file():
        raise SystemExit(f"no KWDLC under {corpora}")
    with tempfile.TemporaryDirectory(prefix="polyparse-ja-") as folder:
        workdir = Path(folder)
        test_file = documents(corpora, "kwdlc", "test.id", workdir / "test.knp")
        text = test_file.read_text(encoding="utf-8")
        big_file = workdir / "big.knp"
        big_file.write_text(text * args.copies, encoding="utf-8")
        n_big = text.count("\nEOS\n") * args.copies + (args.copies if text.startswith("EOS\n")
                                                        else 0)
        for config in args.configs.split(","):
            measure(config, corpora, workdir, test_file, big_file, n_big, args.runs)
        if args.wac:
            wac(corpora, workdir)
    emit(peak_memory_record(DATA))
    return 0


if __name__ == "__main__":
    sys.exit(main())
