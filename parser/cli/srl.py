"""`polyparse srl evaluate`: argument-boundary scores of a gold_conll file against a gold one
(node-level precision, recall and F1 as parser/srl/evaluate.py defines them)."""
from __future__ import annotations

import argparse
import json

from features.errors import InputError
from parser.cli.common import debug_parent
from parser.formats.gold_conll import LAYOUTS, PROPBANK_RELEASE


def register(groups: argparse._SubParsersAction) -> None:
    srl = groups.add_parser("srl", help="SRL argument-boundary detection on gold_conll files")
    commands = srl.add_subparsers(dest="command", metavar="{evaluate}", required=True)
    parent = debug_parent()

    evaluate = commands.add_parser(
        "evaluate", parents=[parent], help="node-level boundary precision, recall and F1",
        description="Argument-boundary precision, recall and F1 over the candidate nodes of "
                    "the gold trees: a node is positive when its span is an argument span of "
                    "its predicate (argument labels are ignored). A system span that is no "
                    "node counts against precision unless it is a gold span; gold spans that "
                    "are no node are not counted (no node classifier can find them). The two "
                    "files must hold the same sentences, words and predicates.")
    evaluate.add_argument("gold", help="gold gold_conll file")
    evaluate.add_argument("system", help="system gold_conll file, or - for stdin")
    evaluate.add_argument("--layout", choices=sorted(LAYOUTS), default=PROPBANK_RELEASE.name,
                          help="the fixed columns (default: %(default)s)")
    evaluate.add_argument("--json", action="store_true", help="print one JSON object")
    evaluate.set_defaults(run=run_evaluate)


def run_evaluate(args: argparse.Namespace) -> int:
    from parser.srl.evaluate import file_scores

    if args.gold == "-":
        raise InputError("srl evaluate: the gold file must be a file; only the system output "
                         "may come from stdin (-)")
    scores = file_scores(args.gold, args.system, LAYOUTS[args.layout])
    if args.json:
        print(json.dumps(scores, sort_keys=True))
        return 0
    lines = [f"precision {scores['precision']:.2f}",
             f"recall    {scores['recall']:.2f}",
             f"F1        {scores['F1']:.2f}",
             f"({scores['correct_nodes']:,} correct of {scores['system_nodes']:,} system and "
             f"{scores['gold_nodes']:,} gold positive nodes, {scores['predicates']:,} "
             f"predicates; argument spans on no node: {scores['gold_spans_off_nodes']:,} gold "
             f"(not counted), {scores['system_spans_off_nodes']:,} system)"]
    print("\n".join(lines))
    return 0
