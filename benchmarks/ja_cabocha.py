"""Reading and parsing CaboCha: UD Japanese GSD's CaboCha file with its gold bunsetsu, as `polyparse
ja parse --format cabocha` reads it (the Cython scanner of parser/formats/cabocha_scan.pyx),
against KNP's reading (knp_scan) per sentence, against J.DepP on the same file, and where the
parse spends its time. Prints one JSON object per measurement and, with --results, writes its
section of docs/results.md.

    python benchmarks/ja_cabocha.py [--corpora DIR] [--sentences 10860] [--runs 5]
                                    [--jdepp BINARY --jdepp-model DIR] [--results docs/results.md]

Data: the 10,860 sentences of UD Japanese GSD (train, dev and test) are the issue's measure; the
corpora hold the dev part alone (ud_gsd_dev.cabocha, 507 sentences), so its sentences are
repeated in order to --sentences. KNP: KWDLC test (kwdlc/id/test.id) repeated to as many
sentences.

- Reading, in this process (the least of --runs, one core): the Python readers (read_cabocha,
  read_knp) and the scanners (scan_cabocha with the bundled UniDic model's lexicon, scan_knp
  with the JUMAN model's), per sentence and per MB.
- The whole `ja parse --format cabocha --model ja_unidic FILE -o OUT` process (start, imports,
  the model's load, reading, parsing, writing), on both cores (the decoder's threads) and on
  one, and given no sentence; its output is checked once against the Python path's (the same
  file in UTF-16, which never takes the fast path). These and J.DepP's run in turn, one of each
  a round, --runs rounds after a warm-up round: the least wall time of each.
- Where that parse spends its time: the same work in this process, stage by stage (the
  model's load, the scan, in one piece and cut in parts scanned at once as each batch is, the
  decoder, the byte rewrite), beside the Python path of the same sentences (read_cabocha,
  parse, format_cabocha) and a whole process given no sentence.
- J.DepP with --jdepp (a built `jdepp`) and --jdepp-model (a model it trained, `-t 0`, on the
  UniDic training file of parser/models/ja_unidic.md, as the bundled model was): `jdepp -I 2
  -v -1 -i '#' -m MODEL < FILE`, the same sentences with their gold bunsetsu, on one core (it
  has one thread); without them the issue's figure for J.DepP is quoted.
"""
from __future__ import annotations

import argparse
import io
import os
import sys
from pathlib import Path

from child_process import launched_run, measured_run, pinned_to_one_core, polyparse_command
from knp_corpora import documents
from machine import Records, least_time, timed, work_folder
from tables import grouped, markdown_table, significant

DATA = "UD Japanese GSD dev repeated to {n:,} sentences (ud_gsd_dev.cabocha, 507 sentences)"
KNP_DATA = "KWDLC test repeated to {n:,} sentences"
# J.DepP on UD Japanese GSD's 10,860 sentences with their gold bunsetsu, quoted from the issue
# (measured in the same minute as polyparse's 6.7 s there; not measured here unless --jdepp).
JDEPP_QUOTED_SECONDS = 0.83
JDEPP_QUOTED_SENTENCES = 10860
PARSE = "polyparse ja parse --format cabocha --model ja_unidic, whole process"
JDEPP = "J.DepP (jdepp -I 2 -v -1), whole process, one core"


def repeated_blocks(data: bytes, n: int) -> tuple[bytes, int]:
    """The EOS blocks of data repeated in order until n of them (the whole blocks of data
    when n is 0), and their number."""
    blocks = [block + b"EOS\n" for block in data.split(b"EOS\n")[:-1]]
    n = n or len(blocks)
    return b"".join(blocks[k % len(blocks)] for k in range(n)), n


def reading(records: Records, cabocha: bytes, knp: bytes, n: int, runs: int) -> None:
    """The Python readers and the scanners, in this process on one core."""
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from polyparse.parser.formats.cabocha import UNIDIC_ONLY_POS, read_cabocha
    from polyparse.parser.formats.cabocha_scan import scan_cabocha
    from polyparse.parser.formats.knp import read_knp
    from polyparse.parser.formats.knp_scan import KnpLexicon, scan_knp
    from polyparse.parser.models.bundled import bundled_japanese_model

    unidic = KnpLexicon(BunsetsuParser.load(str(bundled_japanese_model("ja_unidic")))
                        .lexicon.strings)
    juman = KnpLexicon(BunsetsuParser.load(str(bundled_japanese_model("ja_wac")))
                       .lexicon.strings)
    marks = sorted(UNIDIC_ONLY_POS)
    cases = [
        ("CaboCha", "the Python reader (read_cabocha)", cabocha,
         lambda: sum(1 for _ in read_cabocha(io.BytesIO(cabocha), validate=False))),
        ("CaboCha", "the scanner (scan_cabocha)", cabocha,
         lambda: scan_cabocha(unidic, cabocha, marks).n_fast),
        ("KNP", "the Python reader (read_knp)", knp,
         lambda: sum(1 for _ in read_knp(io.BytesIO(knp), validate=False))),
        ("KNP", "the scanner (scan_knp)", knp, lambda: scan_knp(juman, knp).n_fast),
    ]
    with pinned_to_one_core():
        for fmt, how, data, work in cases:
            counted, _ = timed(work)
            assert counted == n, (fmt, how, counted)
            best = least_time(runs, work)
            records.emit(f"reading {fmt}, {how}", round(best.wall / n * 1e6, 2), "µs/sentence",
                         data=(DATA if fmt == "CaboCha" else KNP_DATA).format(n=n),
                         seconds=round(best.wall, 3), mb_per_s=round(len(data) / best.wall / 1e6))


def whole_process(records: Records, source: Path, workdir: Path, n: int, runs: int,
                  jdepp: tuple[str, str] | None) -> None:
    """The whole processes, polyparse's on both cores and on one, given the file and given no
    sentence, and J.DepP's (jdepp: its binary and model) on the same sentences: one run of each
    in turn, --runs rounds after a warm-up round, so that a load on the machine that comes and
    goes weighs on all alike; the least wall time of each."""
    # Both write to /dev/null, the output checked once beforehand: a regular file's -o is
    # synced to the disk (os.fsync), which a shell's redirection of J.DepP's is not.
    check_output(source, workdir / "out.cabocha", workdir)
    command = polyparse_command() + ["ja", "parse", "--format", "cabocha", "--model",
                                     "ja_unidic", str(source), "-o", os.devnull]
    empty = workdir / "empty.cabocha"
    empty.write_bytes(b"")
    nothing = polyparse_command() + ["ja", "parse", "--format", "cabocha", "--model",
                                     "ja_unidic", str(empty), "-o", os.devnull]
    # (what, command, sentences, on one core)
    measured = [(f"{PARSE}, both cores", command, n, False),
                (f"{PARSE}, one core", command, n, True),
                ("the same process given no sentence, both cores", nothing, 0, False),
                ("the same process given no sentence, one core", nothing, 0, True)]
    if jdepp is not None:
        measured.append((JDEPP, jdepp_command(*jdepp, source, workdir, n), n, True))
    timings: dict[str, list] = {what: [] for what, *_ in measured}
    for round_number in range(runs + 1):
        for what, argv, _, pinned in measured:
            if pinned:
                with pinned_to_one_core():
                    run = launched_run(argv, quiet_stderr=True)
            else:
                run = launched_run(argv, quiet_stderr=True)
            if round_number:
                timings[what].append(run)
    for what, _, count, _ in measured:
        best = min(timings[what], key=lambda run: run.wall_seconds)
        records.emit(what, round(best.wall_seconds, 3), "s", data=DATA.format(n=n),
                     cpu_seconds=round(best.cpu_seconds, 3),
                     sentences_per_s=round(count / best.wall_seconds) if count else None,
                     peak_rss_mib=round(max(t.peak_rss_mib for t in timings[what]), 1))


def check_output(source: Path, output: Path, workdir: Path) -> None:
    """The fast path's output equals the Python path's (UTF-16 is never fast)."""
    measured_run(polyparse_command() + ["ja", "parse", "--format", "cabocha", "--model",
                                        "ja_unidic", str(source), "-o", str(output)])
    utf16 = workdir / "in.utf16"
    utf16.write_text(source.read_text(encoding="utf-8"), encoding="utf-16")
    slow = workdir / "slow.utf16"
    measured_run(polyparse_command() + ["ja", "parse", "--format", "cabocha", "--model",
                                        "ja_unidic", "--encoding", "utf-16", str(utf16),
                                        "-o", str(slow)])
    if slow.read_text(encoding="utf-16").encode("utf-8") != output.read_bytes():
        raise SystemExit("the fast path's output differs from the Python path's")


def stages(records: Records, cabocha: bytes, n: int, runs: int) -> None:
    """Where the parse spends its time, in this process: the model's load, scan, decoder and
    rewrite of the fast path, and the Python path of the same sentences."""
    from polyparse.parser.bunsetsu.bunsetsu_files import parsed_blocks
    from polyparse.parser.bunsetsu.bunsetsu_parser import BunsetsuParser
    from polyparse.parser.bunsetsu.stream_parsing import KnpStreamParser
    from polyparse.parser.formats.cabocha import read_cabocha
    from polyparse.parser.models.bundled import bundled_japanese_model

    path = str(bundled_japanese_model("ja_unidic"))
    data = DATA.format(n=n)
    load = least_time(runs, BunsetsuParser.load, path)
    records.emit("stage: the model's load (BunsetsuParser.load)", round(load.wall, 3), "s",
                 data=data)
    parser = BunsetsuParser.load(path)
    reader = KnpStreamParser(parser, "in", "ja_unidic", parser.tag_coverage(), "utf-8",
                             fmt="cabocha")
    scan = reader.scan(cabocha)
    reader.scheme_counts(scan)
    heads = reader.parse_scanned(scan)
    view = memoryview(cabocha)
    parts = [view[start:stop] for start, stop in reader.part_spans(view)]
    steps = [
        ("stage: scan (scan_cabocha)", lambda: reader.scan(cabocha)),
        (f"stage: scan, cut in {len(parts)} parts at sentence ends (both cores)",
         lambda: reader.in_threads(reader.scan, parts)),
        ("stage: parse (the decoder, both cores)", lambda: reader.parse_scanned(scan)),
        ("stage: rewrite the heads into the input bytes",
         lambda: scan.rewrite(heads, 0, scan.n_blocks)),
    ]
    for what, work in steps:
        best = least_time(runs, work)
        records.emit(what, round(best.wall, 3), "s", data=data, cpu_seconds=round(best.cpu, 3))
    reader.close()

    def python_path() -> int:
        sentences = list(read_cabocha(io.BytesIO(cabocha), validate=False))
        return len("".join(parsed_blocks(parser, sentences, "cabocha")))

    best = least_time(max(1, runs // 2), python_path)
    records.emit("the Python path (read_cabocha, parse, format_cabocha)", round(best.wall, 3),
                 "s", data=data, cpu_seconds=round(best.cpu, 3))


def jdepp_command(binary: str, model: str, source: Path, workdir: Path, n: int) -> list[str]:
    """J.DepP on the same sentences with their gold bunsetsu (-I 2: the input's bunsetsu are
    kept, their heads parsed; -v -1 writes the parse; -i '#' passes the #! metadata lines),
    checked once to write every sentence. J.DepP takes any line that begins with * for a
    bunsetsu line, so the copy it reads has the morphemes whose surface is * (UD GSD's, in 2 of
    its 507 sentences) written ＊."""
    copy = workdir / "gsd.jdepp"
    copy.write_bytes(source.read_bytes().replace(b"\n*\t", "\n＊\t".encode()))
    script = 'exec "$0" -I 2 -v -1 -i "#" -m "$1" < "$2" > "$3"'
    output = workdir / "jdepp.out"
    launched_run(["sh", "-c", script, binary, model, str(copy), str(output)],
                 quiet_stderr=True)
    parsed = output.read_bytes().count(b"EOS\n")
    if parsed != n:
        raise SystemExit(f"J.DepP wrote {parsed} sentences of {n}")
    return ["sh", "-c", script, binary, model, str(copy), os.devnull]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--sentences", type=int, default=JDEPP_QUOTED_SENTENCES,
                    help="the file's sentences (default: UD Japanese GSD's %(default)s)")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--jdepp", help="a built J.DepP binary, measured on the same file")
    ap.add_argument("--jdepp-model", help="the model directory J.DepP reads (with --jdepp)")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    if bool(args.jdepp) != bool(args.jdepp_model):
        raise SystemExit("--jdepp and --jdepp-model go together")
    # The warm-up run caches the bytecode, as a user's first call (or pip install) does; a
    # PYTHONDONTWRITEBYTECODE environment would make every measured run compile it again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    corpora = Path(args.corpora)
    gsd = corpora / "ja_gsd_cabocha" / "ud_gsd_dev.cabocha"
    if not gsd.is_file() or not (corpora / "kwdlc" / "id" / "test.id").is_file():
        raise SystemExit(f"no ja_gsd_cabocha or KWDLC under {corpora}")
    records = Records(DATA.format(n=args.sentences))
    with work_folder("polyparse-ja-cabocha-") as workdir:
        cabocha, n = repeated_blocks(gsd.read_bytes(), args.sentences)
        source = workdir / "gsd.cabocha"
        source.write_bytes(cabocha)
        kwdlc_test = documents(corpora, "kwdlc", "test.id", workdir / "kwdlc-test.knp")
        knp, _ = repeated_blocks(kwdlc_test.read_bytes(), n)
        reading(records, cabocha, knp, n, args.runs)
        whole_process(records, source, workdir, n, args.runs,
                      (args.jdepp, args.jdepp_model) if args.jdepp else None)
        stages(records, cabocha, n, args.runs)
    records.finish(args.results, "ja_cabocha", "Reading and parsing CaboCha (UD Japanese GSD)",
                   lambda: section(records, n, bool(args.jdepp)))
    return 0


def installation() -> str:
    """How the polyparse that was measured is installed: an editable install's interpreter
    start also runs its import hook, and a Python's global site-packages its .pth files."""
    import json
    from importlib.metadata import PackageNotFoundError, distribution

    try:
        url = json.loads(distribution("polyparse").read_text("direct_url.json") or "{}")
    except PackageNotFoundError:
        return "run from the source tree"
    editable = url.get("dir_info", {}).get("editable", False)
    how = "an editable install (`pip install -e .`)" if editable else "installed by `pip install .`"
    where = "a virtual environment" if sys.prefix != sys.base_prefix else "the system's Python"
    return f"{how} in {where}"


def section(records: Records, n: int, measured_jdepp: bool) -> list[str]:
    data = DATA.format(n=n)

    def row(what: str) -> dict:
        found = records.find(what, data=data)
        if found is None:
            raise SystemExit(f"no record {what!r}")
        return found

    read_rows = []
    for fmt in ("CaboCha", "KNP"):
        for how in ("the Python reader", "the scanner"):
            found = next(r for r in records.rows
                         if r["what"].startswith(f"reading {fmt}, {how}"))
            read_rows.append([fmt, found["what"].split(", ", 1)[1], significant(found["figure"]),
                              grouped(found["mb_per_s"])])
    lines = [f"Data: {data}; KNP: {KNP_DATA.format(n=n)}. The corpora hold GSD's dev part "
             "alone, so its sentences are repeated in order to the size of the issue's file "
             "(GSD's train, dev and test). Reading, in this process on one core, the least of "
             "the runs:", ""]
    lines += markdown_table(["format", "reader", "µs per sentence", "MB/s"], read_rows)
    lines += ["", "The whole `ja parse --format cabocha --model ja_unidic` process (start, "
              "imports, the model's load, reading, parsing, writing CaboCha to /dev/null; its "
              "output, checked once, equals the Python path's byte for byte) and J.DepP's, run "
              f"in turn round by round, the least wall time of each; polyparse {installation()}:",
              ""]
    whole = []
    for cores in ("both cores", "one core"):
        parse = row(f"{PARSE}, {cores}")
        empty = row(f"the same process given no sentence, {cores}")
        whole.append([f"polyparse, {cores}", significant(parse["figure"]),
                      significant(parse["cpu_seconds"]), grouped(parse["sentences_per_s"]),
                      f"{parse['peak_rss_mib']} MiB", significant(empty["figure"])])
    jd = records.find(JDEPP, data=data)
    if measured_jdepp and jd is not None:
        whole.append(["J.DepP (`jdepp -I 2 -v -1`), one core, measured in this run",
                      significant(jd["figure"]), significant(jd["cpu_seconds"]),
                      grouped(jd["sentences_per_s"]), f"{jd['peak_rss_mib']} MiB", ""])
    else:
        whole.append(["J.DepP, quoted from the issue (10,860 sentences; not measured here)",
                      significant(JDEPP_QUOTED_SECONDS), "",
                      grouped(JDEPP_QUOTED_SENTENCES / JDEPP_QUOTED_SECONDS), "", ""])
    lines += markdown_table(["process", "seconds", "CPU seconds (that run)", "sentences/s",
                             "peak RSS", "seconds given no sentence"], whole)
    both, empty = row(f"{PARSE}, both cores"), row("the same process given no sentence, "
                                                   "both cores")
    jdepp_seconds = jd["figure"] if measured_jdepp and jd is not None else JDEPP_QUOTED_SECONDS
    lines += ["", f"polyparse on both cores takes {both['figure'] / jdepp_seconds:.2f} times "
              f"J.DepP's time{' in this run' if measured_jdepp else ' as quoted'}; "
              f"{significant(empty['figure'])} s of its {significant(both['figure'])} s is the "
              "process given no sentence (Python, NumPy, the model's load and decompression), "
              f"{significant(both['figure'] - empty['figure'])} s the sentences."]
    lines += ["", "Where the parse spends its time (the same work in this process, the least "
              "of the runs):", ""]
    stage_rows = [[r["what"].removeprefix("stage: "), significant(r["figure"]),
                   significant(r.get("cpu_seconds"))]
                  for r in records.rows if r["what"].startswith("stage: ")]
    python = row("the Python path (read_cabocha, parse, format_cabocha)")
    stage_rows.append(["for comparison: " + python["what"], significant(python["figure"]),
                       significant(python["cpu_seconds"])])
    lines += markdown_table(["stage", "wall seconds", "CPU seconds"], stage_rows)
    if measured_jdepp:
        lines += ["", "J.DepP: the lighttransport/jdepp-python snapshot of J.DepP's C++ source "
                  "(J.DepP 2015 with its opal and pecco), built with its CMake file (Release) "
                  "outside this repository. Its model was trained on the UniDic training file "
                  "of parser/models/ja_unidic.md, as the bundled ja_unidic was (PA-I, d = 2, 40 "
                  "passes, J.DepP's C = 0.00005): `jdepp -t 0 -I 2 -c unidic-train.cabocha -m "
                  "model -- opal -t 1 -d 2 -i 40 -c 0.00005`, and its chunker (which it loads "
                  "even for gold bunsetsu) with `-I 1`; its FST classifier (that snapshot's "
                  "default; it does not read the classifier's options) takes the training "
                  "examples as its event files (`cp model/depnd.p0.train model/depnd.p0.event`, "
                  "and chunk's). J.DepP reads the features by position, JUMAN's, so it sees "
                  "other fields of UniDic's than polyparse does: its speed is the comparison, "
                  "not its accuracy."]
    return lines


if __name__ == "__main__":
    raise SystemExit(main())
