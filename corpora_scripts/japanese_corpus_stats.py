"""Statistics of a KNP corpus: documents, sentences, bunsetsu, morphemes and malformed trees.

    python corpora_scripts/japanese_corpus_stats.py FILE... [--json]
    python corpora_scripts/japanese_corpus_stats.py --ids ID_FILE --corpus DIR/knp [--json]

The files are read by `parser.formats.knp.read_knp` without validation, so that malformed
trees are counted instead of stopping the run; `--ids/--corpus` reads the documents of an id
list as `knp_documents.py` finds them. A bunsetsu's head is the index (from 0) of the bunsetsu
it depends on, -1 for none. A sentence's tree is malformed when it has

- `self_loop`: a bunsetsu that depends on itself;
- `no_root` / `several_roots`: no bunsetsu, or more than one, without a head;
- `head_outside`: a head that is not -1 and not a bunsetsu of the sentence;
- `head_to_left`: a head before its dependent (Japanese dependencies point right).

A sentence counts once under each problem it has, and once in `malformed_trees`. Documents are
counted by the document ids of the sentence ids (`document_id`).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from itertools import chain
from pathlib import Path
from typing import Protocol

from polyparse.parser.cli.main import run_guarded
from polyparse.parser.cli.scripts import script_parser
from polyparse.parser.formats.knp_documents import document_paths

PROBLEMS = ("self_loop", "no_root", "several_roots", "head_outside", "head_to_left")
# KWDLC `w201106-0000060050-1`, the Wikipedia Annotated Corpus `wiki00010002-00-01`, the Kyoto
# University Text Corpus `950101003-001`: the document id runs to the first hyphen after at
# least 8 digits.
DOCUMENT_ID = re.compile(r"(.*?\d{8,})-")


class Sentence(Protocol):
    """What corpus_stats reads of a sentence (parser.formats.bunsetsu_sentence has them)."""

    sid: str
    chunk_starts: list[int]
    heads: list[int]
    surface: list[str]


def document_id(sid: str) -> str:
    """The document id of a sentence id (module notes), without a leading `S-ID:`; a sentence
    id of another shape is its own document up to its last hyphen."""
    sid = sid.removeprefix("S-ID:")
    match = DOCUMENT_ID.match(sid)
    if match:
        return match.group(1)
    return sid.rpartition("-")[0] or sid


def tree_problems(heads: Sequence[int]) -> list[str]:
    """The names (from PROBLEMS, in that order) of the problems of a bunsetsu tree."""
    n = len(heads)
    found = set()
    for i, head in enumerate(heads):
        if head == i:
            found.add("self_loop")
        elif head != -1 and not 0 <= head < n:
            found.add("head_outside")
        elif 0 <= head < i:
            found.add("head_to_left")
    roots = sum(1 for head in heads if head == -1)
    if roots == 0:
        found.add("no_root")
    elif roots > 1:
        found.add("several_roots")
    return [problem for problem in PROBLEMS if problem in found]


def corpus_stats(sentences: Iterable[Sentence]) -> dict[str, object]:
    """Counts of documents, sentences, bunsetsu, morphemes and malformed trees (module notes):
    `malformed` maps each problem to its number of sentences and `examples` to the id of the
    first sentence that has it."""
    documents: set[str] = set()
    counts = {"sentences": 0, "bunsetsu": 0, "morphemes": 0, "malformed_trees": 0}
    malformed = dict.fromkeys(PROBLEMS, 0)
    examples: dict[str, str] = {}
    for sentence in sentences:
        documents.add(document_id(sentence.sid))
        counts["sentences"] += 1
        counts["bunsetsu"] += len(sentence.heads)
        counts["morphemes"] += len(sentence.surface)
        problems = tree_problems(sentence.heads)
        counts["malformed_trees"] += bool(problems)
        for problem in problems:
            malformed[problem] += 1
            examples.setdefault(problem, sentence.sid)
    return {"documents": len(documents), **counts, "malformed": malformed, "examples": examples}


def format_table(stats: dict[str, object]) -> str:
    """The statistics as an aligned two-column table."""
    rows = [(key, f"{stats[key]:,}") for key in
            ("documents", "sentences", "bunsetsu", "morphemes", "malformed_trees")]
    malformed = stats["malformed"]
    examples = stats["examples"]
    for problem in PROBLEMS:
        if malformed[problem]:
            rows.append((f"  {problem}", f"{malformed[problem]:,}  (first: {examples[problem]})"))
    width = max(len(key) for key, _ in rows)
    return "\n".join(f"{key:<{width}}  {value}" for key, value in rows) + "\n"


def read_sentences(paths: Sequence[Path]) -> Iterator[Sentence]:
    """The sentences of the KNP files at paths, in order, unvalidated."""
    from polyparse.parser.formats.knp import read_knp

    return chain.from_iterable(read_knp(path, validate=False) for path in paths)


def build_parser() -> argparse.ArgumentParser:
    parser = script_parser(
        "japanese_corpus_stats.py",
        "Documents, sentences, bunsetsu, morphemes and malformed trees of KNP files.")
    parser.add_argument("files", nargs="*", type=Path, metavar="FILE", help="KNP files")
    parser.add_argument("--ids", type=Path, metavar="ID_FILE",
                        help="read the documents of this id list (with --corpus)")
    parser.add_argument("--corpus", type=Path, metavar="DIR", help="the corpus's knp/ folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if (args.ids is None) != (args.corpus is None):
        parser.error("--ids and --corpus go together")
    if bool(args.files) == (args.ids is not None):
        parser.error("give KNP files or --ids with --corpus, not both or neither")

    def run() -> None:
        paths = args.files if args.files else document_paths(args.ids, args.corpus)
        stats = corpus_stats(read_sentences(paths))
        if args.json:
            print(json.dumps(stats, ensure_ascii=False))
        else:
            sys.stdout.write(format_table(stats))

    return run_guarded("japanese_corpus_stats.py", run, debug=args.debug)


if __name__ == "__main__":
    sys.exit(main())
