"""Concatenate the KNP documents of an id list, in the list's order, into one file.

    python corpora_scripts/knp_documents.py --ids ID_FILE --corpus DIR/knp [-o OUT]

ID_FILE holds one document id a line (blank lines are skipped). The document of an id is looked
up as the two corpora lay them out, the first that exists winning:

- `DIR/<id minus its last 5 characters>/<id>.knp` (KWDLC: `w201106-00000/w201106-0000060050.knp`);
- `DIR/<first 8 characters of the id>/<id>.knp` (the Wikipedia Annotated Corpus:
  `wiki0001/wiki00010002.knp`).

Every id is looked up before anything is written; a missing document stops the run with one
line naming the id file and line. The documents are copied byte for byte (a newline is added
after a document that does not end with one), to standard output or, with `-o`, through a
temporary file that replaces OUT only when complete.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from polyparse.features.output_files import check_output_path, output_stream
from polyparse.parser.cli.scripts import run_script, script_parser
from polyparse.parser.formats.knp_documents import document_paths

COPY_CHUNK = 1 << 20


def concatenate(paths: Sequence[Path], output: str | None) -> None:
    """Copy the files at paths, in order, to output (None or "-": standard output)."""
    with output_stream(output, binary=True) as stream:
        for path in paths:
            last = b"\n"
            with open(path, "rb") as document:
                while chunk := document.read(COPY_CHUNK):
                    stream.write(chunk)
                    last = chunk[-1:]
            if last != b"\n":
                stream.write(b"\n")


def build_parser() -> argparse.ArgumentParser:
    parser = script_parser(
        "knp_documents.py",
        "Concatenate the KNP documents of an id list, in order, into one file.")
    parser.add_argument("--ids", required=True, type=Path, metavar="ID_FILE",
                        help="one document id a line")
    parser.add_argument("--corpus", required=True, type=Path, metavar="DIR",
                        help="the corpus's knp/ folder")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file (default: standard output)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_script(build_parser(), argv, _concatenate_documents)


def _concatenate_documents(args: argparse.Namespace) -> None:
    """The documents of the id list, in order, to the output."""
    check_output_path(args.output)
    concatenate(document_paths(args.ids, args.corpus), args.output)


if __name__ == "__main__":
    sys.exit(main())
