"""Argument-boundary instances of a gold_conll file in SVM-light-TK's format, as
datasets/srl_boundary/README.md defines them (parser/srl/ builds them).

    python corpora_scripts/gold_conll_to_tk.py TRAIN.gold_conll -o train.tk \\
        --write-vocab features.vocab
    python corpora_scripts/gold_conll_to_tk.py TEST.gold_conll -o test.tk --vocab features.vocab

One line per (predicate, candidate node): `+1 |BT| PAF tree |ET| id:1 ...`. The feature ids come
from a vocabulary numbered in order of first appearance: `--write-vocab FILE` builds it on this
file (the training file) and writes it; `--vocab FILE` reads one (dev and test files: features
it lacks are dropped). `--subsets N ...` also writes nested random subsets beside the output
(`train.5k.tk` for 5000): the first N of one `random.Random(SEED).shuffle` of the line indices,
in the original line order. The files of the SRL boundary dataset come from
`gold_conll_split.py`'s train/dev/test files with `--write-vocab` and `--subsets 5000 20000
50000` on train and `--subsets 10000` on test.

Prints one line of statistics (or one JSON object with --json): instances, +1 and -1,
predicates, average PAF tree size (nodes including POS, and words), argument spans matched by a
candidate node. The whole input is read and checked before anything is written; a malformed
row stops the run with one line naming file and line.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Sequence
from pathlib import Path

from polyparse.features.errors import InputError
from polyparse.features.output_files import check_output_path, output_stream
from polyparse.parser.cli.scripts import run_script, script_parser
from polyparse.parser.formats.gold_conll import LAYOUTS, PROPBANK_RELEASE
from polyparse.parser.srl.feature_vocab import FirstSeenVocab
from polyparse.parser.srl.instances import file_instances, tk_lines
from polyparse.parser.srl.statistics import BoundaryStatistics


def subset_path(output: Path, size: int) -> Path:
    """train.tk -> train.5k.tk for 5000, train.1234.tk for 1234."""
    name = f"{size // 1000}k" if size % 1000 == 0 else str(size)
    return output.with_name(f"{output.stem}.{name}{output.suffix}")


def subset_indices(n_lines: int, size: int, seed: int) -> list[int]:
    """The first size of one random.Random(seed) shuffle of range(n_lines), ascending."""
    order = list(range(n_lines))
    random.Random(seed).shuffle(order)
    return sorted(order[:size])


def write_lines(path: Path, lines: Sequence[str]) -> None:
    with output_stream(path, newline="\n") as out:
        out.write("".join(lines))


def build_parser() -> argparse.ArgumentParser:
    parser = script_parser(
        "gold_conll_to_tk.py",
        "Write the argument-boundary instances of a gold_conll file as an "
                    "SVM-light-TK file (datasets/srl_boundary/README.md).")
    parser.add_argument("input", help="the gold_conll file (- for standard input)")
    parser.add_argument("-o", "--output", required=True, type=Path, metavar="FILE.tk",
                        help="the SVM-light-TK file to write")
    vocab = parser.add_mutually_exclusive_group(required=True)
    vocab.add_argument("--write-vocab", type=Path, metavar="FILE",
                       help="number the features on this file and write the vocabulary")
    vocab.add_argument("--vocab", type=Path, metavar="FILE",
                       help="number the features by this vocabulary (unseen ones are dropped)")
    parser.add_argument("--subsets", type=int, nargs="+", default=[], metavar="N",
                        help="also write random subsets of N lines (train.5k.tk, ...)")
    parser.add_argument("--seed", type=int, default=1,
                        help="seed of the subsets' shuffle (default: %(default)s)")
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default=PROPBANK_RELEASE.name,
                        help="the fixed columns (default: %(default)s)")
    parser.add_argument("--json", action="store_true", help="print the statistics as JSON")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_script(build_parser(), argv, _write_instances)


def _write_instances(args: argparse.Namespace) -> None:
    """The instances (and subsets, vocabulary) written, and their statistics printed."""
    output: Path = args.output
    subsets = {size: subset_path(output, size) for size in args.subsets}
    for size in subsets:
        if size < 1:
            raise InputError(f"--subsets {size}: a subset has at least one line")
    targets = [output, *subsets.values(), *([args.write_vocab] if args.write_vocab else [])]
    if len({os.path.realpath(target) for target in targets}) != len(targets):
        raise InputError("the output, subset and vocabulary files must differ")
    for target in targets:
        check_output_path(target)
    vocab = FirstSeenVocab.read(args.vocab) if args.vocab else FirstSeenVocab()
    predicates = file_instances(args.input, LAYOUTS[args.layout])
    lines = list(tk_lines(predicates, vocab))
    for size in subsets:
        if size > len(lines):
            raise InputError(f"--subsets {size}: {args.input} gives only {len(lines):,} "
                             f"instances")
    statistics = BoundaryStatistics().add(predicates)
    features = [feature for group in predicates for instance in group.instances
                for feature in instance.features]
    given = len(features)
    dropped = sum(feature not in vocab for feature in features)
    write_lines(output, lines)
    for size, path in subsets.items():
        write_lines(path, [lines[k] for k in subset_indices(len(lines), size, args.seed)])
    if args.write_vocab:
        vocab.write(args.write_vocab)
    if args.json:
        print(json.dumps({**statistics.as_dict(), "vocabulary": len(vocab),
                          "features_dropped": dropped}, sort_keys=True))
    else:
        print(statistics.summary(output.name))
        print(f"features: {len(vocab):,} in the vocabulary, {dropped:,} of the instances' "
              f"{given:,} not in it (dropped)")


if __name__ == "__main__":
    sys.exit(main())
