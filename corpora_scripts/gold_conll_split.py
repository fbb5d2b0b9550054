"""Split a WSJ gold_conll file by document into the train, dev and test files of the SRL
boundary dataset (datasets/srl_boundary/README.md).

    python corpora_scripts/gold_conll_split.py --input FILE.gold_conll --output-dir DIR

Documents wsj_0001-0139 go to `DIR/train.gold_conll`, wsj_0140-0169 to `DIR/dev.gold_conll` and
wsj_0170-0199 to `DIR/test.gold_conll` (the number is that of the document id's last path
part, `ontonotes/nw/wsj/00/wsj_0001`). Documents are copied whole and in the input's order,
with the lines around their sentences (blank lines, `#begin document` / `#end document`), so
each output is a valid gold_conll file. The whole input is read and checked before anything
is written (DIR is made then, when missing); a bad row or a document outside wsj_0001-0199
stops the run with one line naming file and line. Prints one line per split: documents,
sentences, predicates, argument spans (labels other than V and C-V).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from polyparse.features.errors import InputError
from polyparse.features.output_files import check_output_path, output_stream
from polyparse.parser.cli.scripts import run_script, script_parser
from polyparse.parser.formats.gold_conll import (
    LAYOUTS,
    PROPBANK_RELEASE,
    ConllSrlSentence,
    gold_conll_documents,
    read_gold_conll,
    sentence_lines,
)

# (split, first document number, last document number), as in datasets/srl_boundary/README.md.
SPLITS = (("train", 1, 139), ("dev", 140, 169), ("test", 170, 199))
WSJ_DOCUMENT = re.compile(r"wsj_(\d{4})")


def split_of(document_id: str) -> str | None:
    """The split of a WSJ document id, None when it is in none of them."""
    match = WSJ_DOCUMENT.fullmatch(document_id.rsplit("/", 1)[-1])
    if match is None:
        return None
    number = int(match.group(1))
    return next((name for name, first, last in SPLITS if first <= number <= last), None)


def split_documents(path: str, layout_name: str) -> dict[str, list[list[ConllSrlSentence]]]:
    """The documents of the file at path, per split, in order; InputError for a document
    outside the splits."""
    splits: dict[str, list[list[ConllSrlSentence]]] = {name: [] for name, _, _ in SPLITS}
    for document in gold_conll_documents(read_gold_conll(path, layout=LAYOUTS[layout_name])):
        first = document[0]
        name = split_of(first.document_id)
        if name is None:
            ranges = ", ".join(f"wsj_{a:04d}-{b:04d}" for _, a, b in SPLITS)
            display = "<stdin>" if path == "-" else path
            raise InputError(f"{display}:{first.first_line}: document {first.document_id} is in "
                             f"none of the splits ({ranges})")
        splits[name].append(document)
    return splits


def write_split(documents: list[list[ConllSrlSentence]], output: Path) -> None:
    with output_stream(output) as stream:
        for document in documents:
            for sentence in document:
                stream.write("".join(f"{line}\n" for line in sentence_lines(sentence)))


def summary(name: str, documents: list[list[ConllSrlSentence]]) -> str:
    sentences = [sentence for document in documents for sentence in document]
    predicates = sum(len(sentence.predicates) for sentence in sentences)
    arguments = sum(sentence.argument_count for sentence in sentences)
    return (f"{name}: {len(documents):,} documents, {len(sentences):,} sentences, "
            f"{predicates:,} predicates, {arguments:,} argument spans")


def build_parser() -> argparse.ArgumentParser:
    parser = script_parser(
        "gold_conll_split.py",
        "Split a WSJ gold_conll file by document into train/dev/test "
                    "(wsj_0001-0139, wsj_0140-0169, wsj_0170-0199).")
    parser.add_argument("--input", required=True, metavar="FILE",
                        help="the gold_conll file (- for standard input)")
    parser.add_argument("--output-dir", required=True, type=Path, metavar="DIR",
                        help="folder for train.gold_conll, dev.gold_conll, test.gold_conll "
                             "(made when missing, in an existing folder)")
    parser.add_argument("--layout", choices=sorted(LAYOUTS), default=PROPBANK_RELEASE.name,
                        help="the fixed columns (default: %(default)s)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_script(build_parser(), argv, _split)


def _split(args: argparse.Namespace) -> None:
    """The three splits written, and their summaries printed."""
    folder: Path = args.output_dir
    outputs = {name: folder / f"{name}.gold_conll" for name, _, _ in SPLITS}
    if folder.is_dir():
        for output in outputs.values():
            check_output_path(output)
    elif folder.exists():
        raise InputError(f"{folder}: exists and is not a folder")
    else:
        check_output_path(folder, what="output folder")
    splits = split_documents(os.fspath(args.input), args.layout)
    folder.mkdir(exist_ok=True)
    for name, output in outputs.items():
        write_split(splits[name], output)
    for name, _, _ in SPLITS:
        print(summary(name, splits[name]))


if __name__ == "__main__":
    sys.exit(main())
