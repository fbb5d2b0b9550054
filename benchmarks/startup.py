"""What a user pays on every call, measured as whole processes: `polyparse --version`, `import
polyparse`, parsing the bundled example, parsing EWT test with the bundled model, the Python API
loading the parser for one sentence, `polyparse ja parse` of KWDLC test x20 on one core, and
(with --ci) a fresh clone's `bash .ci/run`. Prints one JSON object per measurement and, with
--results, writes its section of docs/results.md.

    python benchmarks/startup.py [--corpora DIR] [--runs 5] [--ja-model FILE] [--ci]
                                 [--results docs/results.md]

Each command runs --runs times after one warm-up run (which caches the bytecode, as a user's
first call does) in a fresh process started by child_process.LAUNCHER: the least wall time is
the figure, with the largest peak resident set size of the runs. The
installed `polyparse` is measured (the one beside this Python), as a user would run it. EWT
test is parsed as it is (the bundled pipeline's parser reads its XPOS and FEATS; until
2026-11-29 the bundled parser read UPOS alone and the file was parsed with XPOS blanked), and
the output's sha256 is printed beside the time. The Japanese model is trained here with the
defaults on the documents of kwdlc/id/train.id unless --ja-model is given.
"""
from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from child_process import best_of, polyparse_command
from machine import Records, publish, work_folder
from tables import markdown_table

REPO = Path(__file__).resolve().parents[1]
# The start-up bars polyparse holds itself to, and the anchors quoted beside them (other tools'
# figures), beside each figure in the results table.
BARS = {
    "version": ("<= 0.15 s", "J.DepP starts in ~0.05 s"),
    "import": ("<= 0.25 s, no nltk or scipy", "`import dask` ~0.1 s"),
    "example": ("<= 0.3 s, <= 150 MB", "0.25 s / 97 MB before the tree kernels landed"),
    "ewt": ("<= 1.0 s, <= 250 MB", "MaltParser ~400 sentences/s with its JVM"),
    "api": ("<= 0.5 s, <= 250 MB", ""),
    "ja": (">= 30,000 sentences/s, <= 120 MB", "J.DepP measured the same way: 26,600/s, 96 MB"),
    "ci": ("<= 480 s", "CI's hard limit: 90 minutes"),
}
ONE_SENTENCE = ("import polyparse\n"
                "parser = polyparse.load_parser()\n"
                "parser.parse([[('The', 'DET', 'DT'), ('dog', 'NOUN', 'NN'), "
                "('barks', 'VERB', 'VBZ'), ('.', 'PUNCT', '.')]])")


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def loaded_heavy_modules() -> list[str]:
    code = ("import sys, polyparse\n"
            "print(' '.join(sorted({m.split('.')[0] for m in sys.modules} & "
            "{'nltk', 'scipy', 'numpy'})))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True, cwd=tempfile.gettempdir())
    return result.stdout.split()


def kwdlc_test_copies(corpora: Path, target: Path, copies: int) -> int:
    """KWDLC test (the documents of kwdlc/id/test.id) repeated copies times; its sentences."""
    import polyparse

    paths = polyparse.knp_documents(corpora / "kwdlc" / "id" / "test.id",
                                    corpora / "kwdlc" / "knp")
    text = b"".join(Path(path).read_bytes() for path in paths)
    target.write_bytes(text * copies)
    return text.count(b"\nEOS\n") * copies + (copies if text.startswith(b"EOS\n") else 0)


def ci_seconds(workdir: Path) -> float:
    """Wall seconds of `bash .ci/run` in a fresh clone of this checkout's HEAD, with the
    checkout's ../shared beside it."""
    clone = workdir / "ci" / "repo"
    subprocess.run(["git", "clone", "-q", str(REPO), str(clone)], check=True)
    shared = REPO.parent / "shared"
    if shared.is_dir():
        (clone.parent / "shared").symlink_to(shared.resolve())
    started = time.perf_counter()
    subprocess.run(["bash", ".ci/run"], cwd=clone, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--runs", type=int, default=5, help="counted runs of each command")
    ap.add_argument("--ja-model", help="a `polyparse ja train` model (default: train one on "
                                       "KWDLC train with the defaults)")
    ap.add_argument("--copies", type=int, default=20, help="copies of KWDLC test parsed")
    ap.add_argument("--ci", action="store_true", help="also time a fresh clone's .ci/run")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    if args.runs < 1 or args.copies < 1:
        ap.error("--runs and --copies must be at least 1")
    # The warm-up run caches the bytecode, as a user's first call (or pip install) does; a
    # PYTHONDONTWRITEBYTECODE environment would make every measured run compile it again.
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    corpora = Path(args.corpora)
    polyparse = polyparse_command()
    rows: list[tuple[str, str, str]] = []
    records = Records("-")
    with work_folder("polyparse-startup-") as workdir:
        seconds, rss = best_of([*polyparse, "--version"], args.runs)
        records.emit("polyparse --version", round(seconds, 3), "s", peak_rss_mb=round(rss, 1))
        rows.append(("version", "`polyparse --version`", f"{seconds:.3f} s, {rss:.0f} MB"))

        heavy = loaded_heavy_modules()
        seconds, rss = best_of([sys.executable, "-c", "import polyparse"], args.runs)
        records.emit("python -c 'import polyparse'", round(seconds, 3), "s",
                     peak_rss_mb=round(rss, 1), loads=heavy)
        loads = ", ".join(heavy) or "none of numpy, nltk, scipy"
        rows.append(("import", "`python -c \"import polyparse\"`",
                     f"{seconds:.3f} s, {rss:.0f} MB, loads {loads}"))

        from polyparse.parser.formats.conll import read_conll
        from polyparse.parser.models.bundled import bundled_example

        out = workdir / "example.out.conllu"
        seconds, rss = best_of([*polyparse, "dep", "parse", str(bundled_example()), "-o",
                                str(out)], args.runs, output=out)
        records.emit("polyparse dep parse of the bundled example", round(seconds, 3), "s",
                     data="parser/models/example.conllu", peak_rss_mb=round(rss, 1))
        rows.append(("example", "`polyparse dep parse` of the bundled example",
                     f"{seconds:.3f} s, {rss:.0f} MB"))

        test = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
        if test.is_file():
            n = sum(1 for sentence in read_conll(test))
            out = workdir / "ewt.out.conllu"
            seconds, rss = best_of([*polyparse, "dep", "parse", str(test), "-o", str(out)],
                                   args.runs, output=out)
            subprocess.run([*polyparse, "dep", "parse", str(test), "-o", str(out)], check=True)
            digest = sha256(out)
            records.emit("polyparse dep parse of EWT test, bundled model",
                         round(seconds, 3), "s", data="UD English-EWT test", sentences=n,
                         sentences_per_second=round(n / seconds), peak_rss_mb=round(rss, 1),
                         output_sha256=digest)
            rows.append(("ewt", f"`polyparse dep parse` of EWT test ({n:,} sentences), "
                         "bundled model",
                         f"{seconds:.3f} s ({n / seconds:,.0f} sentences/s), {rss:.0f} MB; "
                         f"output sha256 {digest[:12]}"))

        seconds, rss = best_of([sys.executable, "-c", ONE_SENTENCE], args.runs)
        records.emit("Python: polyparse.load_parser() and one sentence", round(seconds, 3),
                     "s", peak_rss_mb=round(rss, 1))
        rows.append(("api", "Python: `polyparse.load_parser()` + one sentence",
                     f"{seconds:.3f} s, {rss:.0f} MB"))

        if (corpora / "kwdlc" / "id" / "test.id").is_file():
            model = args.ja_model
            if model is None:
                model = str(workdir / "kwdlc.model")
                subprocess.run([*polyparse, "ja", "train", "--ids",
                                str(corpora / "kwdlc" / "id" / "train.id"), "--corpus",
                                str(corpora / "kwdlc" / "knp"), "--model", model, "--quiet"],
                               check=True)
            big = workdir / "kwdlc-test-copies.knp"
            n = kwdlc_test_copies(corpora, big, args.copies)
            out = workdir / "kwdlc.out.knp"
            seconds, rss = best_of([*polyparse, "ja", "parse", "--model", model, str(big),
                                    "-o", str(out)], args.runs, one_core=True, output=out)
            records.emit(f"polyparse ja parse of KWDLC test x{args.copies}, one core",
                         round(n / seconds), "sentences/s", data="KWDLC test", sentences=n,
                         seconds=round(seconds, 3), peak_rss_mb=round(rss, 1))
            rows.append(("ja", f"`polyparse ja parse` of KWDLC test x{args.copies} ({n:,} "
                         "sentences), one core, start-up included",
                         f"{n / seconds:,.0f} sentences/s ({seconds:.2f} s), {rss:.0f} MB"))

        if args.ci:
            seconds = ci_seconds(workdir)
            records.emit("a fresh clone's bash .ci/run", round(seconds, 1), "s")
            rows.append(("ci", "a fresh clone's `bash .ci/run` (venv, build, tests)",
                         f"{seconds:.0f} s"))

    if args.results:
        lines = markdown_table(("what a user runs", "measured", "bar", "anchor"),
                              [(what, figure, *BARS[key]) for key, what, figure in rows])
        lines += ["", f"Whole processes, least wall time of {args.runs} runs after a warm-up, "
                  "largest peak RSS (each child's own, started by a small launcher); the installed "
                  "`polyparse`, its bytecode cached by the warm-up run."]
        publish(args.results, "startup", "Start-up and whole-process speed", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
