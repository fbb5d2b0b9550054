"""`--html REPORT` and a second system file on `polyparse dep evaluate` and `polyparse ja
evaluate`: the scores are printed as without them (a line, or a JSON object, per system) and
the report page of parser/views/ is written, through a temporary file. The views are imported
only when a report is asked for."""
from __future__ import annotations

import argparse
import json
import os
from collections.abc import Callable, Iterable
from typing import Any

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths
from polyparse.features.output_files import check_output_apart, check_output_path, output_stream
from polyparse.parser.cli.common import progress_log

__all__ = ["add_report_options", "bunsetsu_summary", "run_bunsetsu_report",
           "run_dependency_report", "wants_report"]


def add_report_options(evaluate: argparse.ArgumentParser) -> None:
    """The optional second system file and --html, after the system file."""
    evaluate.add_argument("system2", nargs="?", metavar="SYSTEM2",
                          help="a second system output to compare with the first (needs "
                               "--html)")
    evaluate.add_argument("--html", metavar="REPORT",
                          help="also write a self-contained HTML page of the errors: tables "
                               "and charts, and every sentence with an error drawn (with "
                               "SYSTEM2: where the two systems differ, and which is right)")


def wants_report(args: argparse.Namespace, command: str) -> bool:
    """Whether the run writes a report; its options are checked here, before any data is
    read: a second system needs --html, stdin gives one system at most, and the report may
    not overwrite an input."""
    if args.system2 is not None and args.html is None:
        raise InputError(f"{command}: a second system file is compared in a report: add "
                         "--html REPORT")
    if args.html is None:
        return False
    systems = [path for path in (args.system, args.system2) if path is not None]
    if systems.count("-") > 1:
        raise InputError(f"{command}: only one system output may come from stdin (-)")
    check_output_path(args.html, "report")
    check_input_paths([args.gold, *systems])
    check_output_apart(args.html, [args.gold, *systems], "report")
    return True


def _print_scores(args: argparse.Namespace, names: list[str], lines: list[str]) -> None:
    """The scores as the command prints them, one JSON object (with --json) or summary per
    system; with two systems, a summary's lines start with the file's name."""
    for name, text in zip(names, lines):
        if len(names) > 1 and not args.json:
            text = "\n".join(f"{name}: {line}" for line in text.splitlines())
        print(text)


def _write_report(args: argparse.Namespace, page: str) -> None:
    with output_stream(args.html, encoding="utf-8") as out:
        out.write(page)
    progress_log(args)(f"report written to {args.html}")


def _display(path: str) -> str:
    return "<stdin>" if path == "-" else path


def run_dependency_report(args: argparse.Namespace,
                          read: Callable[[argparse.Namespace, str], Iterable[Any]]) -> int:
    """dep evaluate with a report: read(args, path) gives a file's trees."""
    from polyparse.parser.dependency.evaluate import Scores, evaluate
    from polyparse.parser.views.dependency_report import dependency_report

    gold = list(read(args, args.gold))
    paths = [path for path in (args.system, args.system2) if path is not None]
    systems = [(_display(path), list(read(args, path))) for path in paths]
    scores: list[Scores] = [evaluate(gold, sentences, punct=args.punct, gold_name=args.gold,
                                     system_name=name) for name, sentences in systems]
    _print_scores(args, [name for name, _ in systems],
                  [json.dumps(score.as_dict(), sort_keys=True) if args.json else score.summary()
                   for score in scores])
    _write_report(args, dependency_report(args.gold, gold, systems, scores, args.punct))
    return 0


def run_bunsetsu_report(args: argparse.Namespace) -> int:
    """ja evaluate with a report."""
    from polyparse.parser.bunsetsu.bunsetsu_files import sentence_scores
    from polyparse.parser.formats.bunsetsu import read_bunsetsu
    from polyparse.parser.views.bunsetsu_report import bunsetsu_report

    if args.by_characters:
        raise InputError("ja evaluate: --html draws the bunsetsu of files with the same "
                         "morphemes; it does not go with --by-characters")
    gold = list(read_bunsetsu(os.fspath(args.gold), args.gold_format or args.format,
                              encoding=args.encoding, errors=args.encoding_errors))
    paths = [path for path in (args.system, args.system2) if path is not None]
    systems = []
    scores = []
    for path in paths:
        name = _display(path)
        sentences = list(read_bunsetsu(None if path == "-" else path, args.format,
                                       encoding=args.encoding, name=name,
                                       errors=args.encoding_errors))
        scores.append(sentence_scores(gold, sentences, args.gold, name, args.chunked))
        systems.append((name, sentences))
    _print_scores(args, [name for name, _ in systems],
                  [json.dumps(score, sort_keys=True) if args.json else bunsetsu_summary(score)
                   for score in scores])
    _write_report(args, bunsetsu_report(args.gold, gold, systems, scores))
    return 0


def bunsetsu_summary(scores: dict[str, Any]) -> str:
    """The lines ja evaluate prints for people."""
    lines = [f"dependency accuracy {scores['dependency_accuracy']:.2f}",
             f"sentence accuracy   {scores['sentence_accuracy']:.2f}"]
    if "chunk_f1" in scores:
        lines.append(f"chunk F1            {scores['chunk_f1']:.2f}")
        lines.append(f"dependency F1       {scores['dependency_f1']:.2f}")
    return "\n".join(lines)
