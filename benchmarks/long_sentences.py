"""How parse time grows with the length of one sentence: the bundled English parser on single
sentences of 10,000, 20,000 and 40,000 words without punctuation. Arc-eager parsing makes 2n
transitions for n words, so the time should grow with n: a sentence four times as long should
take about four times as long. Prints one JSON object per measurement and, with --results,
writes its section of docs/results.md.

    python benchmarks/long_sentences.py [--corpora DIR] [--sizes 10000,20000,40000]
                                        [--repeat 3] [--seed 1] [--results docs/results.md]

Each sentence's words are drawn (seed --seed) from the words of EWT train that are not
punctuation, with their UPOS and XPOS, so that the parser needs no tagger; without the corpus,
from the bundled example's words. A sentence is parsed (`Parser.parse` of the library, the
model loaded once before) --repeat times in this process, on one core: the least wall time is
the figure, beside the words per second and the ratio to the smallest size's time. The whole
`polyparse dep parse` of the largest sentence (start-up and writing included) is timed once as
a user runs it.
"""
from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
from pathlib import Path

from child_process import child_run, pinned_to_one_core, polyparse_command
from machine import Records, least_time, publish
from tables import markdown_table


def tagged_words(corpora: Path) -> tuple[list[tuple[str, str, str]], str]:
    """(form, UPOS, XPOS) of the words that sentences are drawn from, and where they came
    from."""
    from polyparse.parser.formats.conll import read_conll
    from polyparse.parser.models.bundled import bundled_example

    train = corpora / "en_ewt" / "en_ewt-ud-train.conllu"
    source, name = (train, "UD English-EWT train") if train.is_file() else (
        bundled_example(), "the bundled example")
    words = [(form, upos, xpos) for sentence in read_conll(source)
             for form, upos, xpos in zip(sentence.form, sentence.upos, sentence.xpos)
             if upos != "PUNCT"]
    return words, name


def long_sentence(words: list[tuple[str, str, str]], n: int, seed: int) -> str:
    """One CoNLL-U sentence of n words drawn from words."""
    rng = random.Random(seed)
    lines = [f"# sent_id = long-{n}"]
    for i in range(1, n + 1):
        form, upos, xpos = rng.choice(words)
        lines.append(f"{i}\t{form}\t_\t{upos}\t{xpos}\t_\t_\t_\t_\t_")
    return "\n".join(lines) + "\n\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--sizes", default="10000,20000,40000",
                    help="words of each sentence, comma-separated (default %(default)s)")
    ap.add_argument("--repeat", type=int, default=3, help="parses of each sentence")
    ap.add_argument("--seed", type=int, default=1, help="seed of the words drawn")
    ap.add_argument("--results", help="write this benchmark's section of a results page")
    args = ap.parse_args()
    try:
        sizes = sorted(int(size) for size in args.sizes.split(","))
    except ValueError:
        ap.error(f"--sizes takes whole numbers separated by commas, not {args.sizes!r}")
    if not sizes or sizes[0] < 1 or args.repeat < 1:
        ap.error("--sizes and --repeat must be at least 1")

    import polyparse

    words, source = tagged_words(Path(args.corpora))
    parser = polyparse.load_parser()
    records = Records(f"generated sentences, words of {source}")
    rows = []
    first = None
    with tempfile.TemporaryDirectory(prefix="polyparse-long-") as folder:
        for n in sizes:
            text = long_sentence(words, n, args.seed)
            with pinned_to_one_core():
                parser.parse(text)
                timing = least_time(args.repeat, parser.parse, text)
            first = first or timing.wall
            ratio = timing.wall / first
            records.emit(f"Parser.parse of one sentence of {n} words, one core",
                         round(timing.wall, 3), "s", words=n,
                         words_per_second=round(n / timing.wall),
                         ratio_to_smallest=round(ratio, 2), cpu_seconds=round(timing.cpu, 3))
            rows.append((f"{n:,}", f"{timing.wall:.3f} s", f"{n / timing.wall:,.0f}",
                         f"{ratio:.2f} (size x{n / sizes[0]:g})"))
        path = Path(folder) / f"long-{sizes[-1]}.conllu"
        path.write_text(long_sentence(words, sizes[-1], args.seed), encoding="utf-8")
        seconds, rss = child_run([*polyparse_command(), "dep", "parse", str(path), "-o",
                                  os.devnull], quiet_stderr=True)
        records.emit(f"polyparse dep parse of one sentence of {sizes[-1]} words",
                     round(seconds, 3), "s", words=sizes[-1], peak_rss_mb=round(rss, 1))

    if args.results:
        lines = markdown_table(("words in the sentence", "parse time (least of "
                                f"{args.repeat})", "words/s", "time / smallest size's"), rows)
        lines += ["", f"One sentence each, words drawn from {source} without punctuation "
                  f"(seed {args.seed}), the bundled model loaded once, `Parser.parse` on one "
                  f"core. The whole `polyparse dep parse` of the {sizes[-1]:,}-word sentence "
                  f"(start-up, reading and writing included): {seconds:.2f} s, {rss:.0f} MB. "
                  "With the deprojectivization before this benchmark was written (it "
                  "recomputed every word's depth and children for each lifted arc, hundreds in "
                  "such sentences), the same 10,000 / 20,000 / 40,000-word sentences took 5.7 / "
                  "29.4 / 64.8 s on this machine (one run each): the time grew with the square "
                  "of the length."]
        publish(args.results, "long_sentences", "Parse time and sentence length", lines)
    return 0


if __name__ == "__main__":
    sys.exit(main())
