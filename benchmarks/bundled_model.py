"""The bundled English model as a user meets it: file size, the time and peak memory of parsing
the bundled example in a fresh process, EWT test scores with UPOS alone and with all tags, and
parse speed. Prints one JSON object per measurement.

    python benchmarks/bundled_model.py [--corpora DIR] [--model FILE] [--runs 9]

The example is parsed by the installed `polyparse dep parse` command (wall time of the whole
process: interpreter start, imports, model load, parse, write), `--runs` times; the median and
the least are reported, with the largest maximum resident set size of those runs. EWT test is
parsed twice, once as it is and once with every XPOS replaced by "_" (a file with UPOS alone).
"""
from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

from child_process import child_run, polyparse_command
from machine import corpora_arguments, emit, peak_memory_record, record

DATA = "UD English-EWT 2.16"


def without_xpos(source: Path, target: Path) -> None:
    with open(source, encoding="utf-8") as lines, open(target, "w", encoding="utf-8") as out:
        for line in lines:
            columns = line.rstrip("\n").split("\t")
            if len(columns) == 10 and columns[0][:1].isdigit():
                columns[4] = "_"
                line = "\t".join(columns) + "\n"
            out.write(line)


def main() -> int:
    ap = corpora_arguments(__doc__)
    ap.add_argument("--model", help="a model file instead of the bundled one")
    ap.add_argument("--runs", type=int, default=9, help="fresh processes parsing the example")
    args = ap.parse_args()
    from parser.models.bundled import bundled_example, bundled_model

    model = Path(args.model) if args.model else bundled_model()
    example = bundled_example()
    emit(record("bundled model file size", "parser/models/en_ewt.model",
                round(model.stat().st_size / 1e6, 2), "MB", bytes=model.stat().st_size))
    command = polyparse_command() + ["dep", "parse", str(example)]
    if args.model:
        command += ["--model", str(model)]
    child_run(command)
    runs = [child_run(command) for _ in range(args.runs)]
    seconds = [s for s, _ in runs]
    emit(record("parse the bundled example (whole process)", "parser/models/example.conllu",
                round(statistics.median(seconds), 3), "s (median)", least=round(min(seconds), 3),
                runs=args.runs))
    emit(record("parse the bundled example, peak memory", "parser/models/example.conllu",
                round(max(rss for _, rss in runs), 1), "MB (max RSS)"))

    from parser.dependency.dependency_parser import DependencyParser
    from parser.dependency.evaluate import evaluate
    from parser.formats.conll import read_conll

    test = Path(args.corpora) / "en_ewt" / "en_ewt-ud-test.conllu"
    if not test.is_file():
        return 0
    parser = DependencyParser.load(str(model))
    with tempfile.TemporaryDirectory(prefix="polyparse-bundled-") as folder:
        workdir = Path(folder)
        upos_only = workdir / "test-upos.conllu"
        without_xpos(test, upos_only)
        gold = list(read_conll(test))
        for name, path in (("all tags", test), ("UPOS alone (XPOS _)", upos_only)):
            sentences = list(read_conll(path))
            started = time.perf_counter()
            parsed = parser.parse(sentences)
            seconds = time.perf_counter() - started
            from dataclasses import replace

            system = [replace(s, head=h, deprel=d) for s, (h, d) in zip(sentences, parsed)]
            scores = evaluate(gold, system).as_dict()
            for key in ("UAS", "LAS"):
                emit(record(f"bundled model EWT test {key}, {name}", DATA + " test",
                            round(scores[key], 2), "%"))
            emit(record(f"bundled model parse speed, {name} (decode, one core)", DATA + " test",
                        round(len(sentences) / seconds), "sentences/s"))
    emit(peak_memory_record(DATA))
    return 0


if __name__ == "__main__":
    sys.exit(main())
