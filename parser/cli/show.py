"""`polyparse dep show` and `polyparse ja show`: trees to look at. Text-mode trees (udapi's
TextModeTrees for dependency trees, CaboCha's -f0 for bunsetsu trees), coloured on a terminal;
an SVG picture per sentence; or one HTML page of them all. This module declares the commands
and reads and picks the sentences; parser/views/ draws them, imported when a command runs."""
from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths, is_regular_stream
from polyparse.features.output_files import check_output_path, output_stream
from polyparse.parser.cli.common import text_encoding
from polyparse.parser.formats.text_lines import ENCODING_ERRORS

__all__ = ["PICTURE_FORMATS", "register_show", "run_show", "sentence_number"]

PICTURE_FORMATS = ("text", "svg", "html")
# Characters kept in the file name an SVG picture takes from its sentence's id.
_NAME_UNSAFE = re.compile(r"[^\w.-]+")


def sentence_number(text: str) -> int:
    """An --index value: a sentence number from 1."""
    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if number < 1:
        raise argparse.ArgumentTypeError("sentences are numbered from 1")
    return number


def register_show(commands: argparse._SubParsersAction, parent: argparse.ArgumentParser,
                  group: str, input_formats: tuple[str, ...]) -> None:
    """Add the `show` command to a group's commands ("dep" or "ja")."""
    text_style = "udapi's text-mode trees" if group == "dep" else "CaboCha's -f0 trees"
    show = commands.add_parser(
        "show", parents=[parent], help="draw trees: text, SVG pictures or an HTML page",
        description=f"Draws the trees of a file: text ({text_style}, coloured when the "
                    "output is a terminal), one SVG picture per sentence, or one HTML page "
                    "(self-contained: nothing is fetched from anywhere).")
    show.add_argument("input", nargs="?", default="-",
                      help=("CoNLL file" if group == "dep" else "KNP or CaboCha file")
                      + ", or - for stdin")
    which = show.add_mutually_exclusive_group()
    which.add_argument("--sent-id", help="only the sentence with this id (CoNLL-U's "
                                         "# sent_id, KNP's and CaboCha's # S-ID)")
    which.add_argument("--index", type=sentence_number, metavar="N",
                       help="only the N-th sentence (from 1)")
    show.add_argument("--format", default="text", choices=PICTURE_FORMATS,
                      help="text (default), svg (one picture per sentence) or html")
    show.add_argument("--no-color", action="store_true",
                      help="no colour, even on a terminal (so does NO_COLOR in the environment)")
    show.add_argument("-o", "--output",
                      help="output file (default stdout); for --format svg of several "
                           "sentences, an existing folder to write one NUMBER-ID.svg each into")
    if group == "dep":
        show.add_argument("--input-format", default=input_formats[0], choices=input_formats,
                          help="default %(default)s")
    else:
        show.add_argument("--input-format", choices=input_formats,
                          help="knp or cabocha (default: what the input's first lines show, "
                               "knp when they tell nothing)")
    show.add_argument("--encoding", default="utf-8", type=text_encoding,
                      help="of the input and output files and of stdout (default utf-8)")
    if group == "ja":
        show.add_argument("--encoding-errors", default="strict", choices=ENCODING_ERRORS,
                          help="a byte that is not valid in the encoding: strict stops at it "
                               "(naming its line), replace reads it as U+FFFD (default "
                               "%(default)s)")
    show.set_defaults(run=run_show, group=group, uses_numpy=False)


def run_show(args: argparse.Namespace) -> int:
    svg_folder = args.format == "svg" and args.output is not None and os.path.isdir(args.output)
    if not svg_folder:
        check_output_path(args.output)
    check_input_paths([args.input])
    name = "<stdin>" if args.input == "-" else args.input
    trees = _chosen(_read_trees(args), args, name)
    if args.format == "text":
        _write_text(trees, args)
    elif args.format == "html":
        from polyparse.parser.views.html_page import trees_page

        page = trees_page(list(trees), os.path.basename(name))
        with output_stream(args.output, encoding=args.encoding) as out:
            out.write(page)
    else:
        _write_svgs(list(trees), args, name, svg_folder)
    return 0


def _read_trees(args: argparse.Namespace) -> Iterator[Any]:
    """The SentenceTree of every sentence of the input, in order."""
    from polyparse.parser.views.sentence_tree import bunsetsu_tree, conll_tree

    if args.group == "dep":
        from polyparse.parser.formats.conll import read_conll

        for sentence in read_conll(args.input, fmt=args.input_format, encoding=args.encoding,
                                   require_tree=True, single_root=False, require_deprel=False):
            yield conll_tree(sentence)
        return
    from polyparse.parser.formats.bunsetsu import read_bunsetsu

    for sentence in read_bunsetsu(args.input, args.input_format, encoding=args.encoding,
                                  errors=args.encoding_errors):
        if sentence.surface and not sentence.chunk_lines:
            raise InputError(f"{sentence.source}:{sentence.start_line}: the sentence has no "
                             "bunsetsu lines (only morphemes): parse it first (polyparse ja "
                             "parse)")
        yield bunsetsu_tree(sentence)


def _chosen(trees: Iterable[Any], args: argparse.Namespace,
            name: str) -> Iterator[tuple[int, Any]]:
    """(number from 1, tree) of the sentences --sent-id or --index choose (all by default);
    InputError when the one chosen is not there."""
    count = 0
    for count, tree in enumerate(trees, 1):
        if args.index is not None and count == args.index:
            yield count, tree
            return
        if args.sent_id is not None and tree.sent_id == args.sent_id:
            yield count, tree
            return
        if args.index is None and args.sent_id is None:
            yield count, tree
    if args.index is not None:
        raise InputError(f"{name}: --index {args.index}, but the input has {count} "
                         f"sentence{'s' * (count != 1)}")
    if args.sent_id is not None:
        raise InputError(f"{name}: no sentence has the id {args.sent_id!r}")


def _write_text(trees: Iterable[tuple[int, Any]], args: argparse.Namespace) -> None:
    from polyparse.parser.views.terminal_colors import wants_color

    if args.group == "dep":
        from polyparse.parser.views.text_tree import text_tree as draw
    else:
        from polyparse.parser.views.cabocha_tree import cabocha_tree as draw
    color = args.output in (None, "-") and wants_color(sys.stdout, args.no_color)
    # udapi leaves an empty line between trees; CaboCha's EOS lines part them.
    gap = "\n" if args.group == "dep" else ""
    with output_stream(args.output, encoding=args.encoding) as out:
        if getattr(args, "encoding_errors", "strict") == "replace" and \
                hasattr(out, "reconfigure"):
            # U+FFFD in an encoding that lacks it (EUC-JP, Shift_JIS) is written as "?".
            out.reconfigure(errors="replace")
        flush = not is_regular_stream(out)
        for written, (_, tree) in enumerate(trees):
            out.write((gap if written else "") + draw(tree, color=color))
            if flush:
                out.flush()


def _write_svgs(trees: list[tuple[int, Any]], args: argparse.Namespace, name: str,
                folder: bool) -> None:
    from polyparse.parser.views.svg_tree import tree_svg

    if not folder:
        if len(trees) != 1:
            raise InputError(f"{args.group} show: {name} holds {len(trees)} sentences and "
                             "--format svg draws one picture per sentence: give -o FOLDER (an "
                             "existing folder), or choose one with --sent-id or --index")
        with output_stream(args.output, encoding=args.encoding) as out:
            out.write(tree_svg(trees[0][1]))
        return
    digits = len(str(trees[-1][0])) if trees else 1
    for number, tree in trees:
        stem = f"{number:0{digits}d}" + (f"-{_NAME_UNSAFE.sub('_', tree.sent_id)}"
                                         if tree.sent_id else "")
        with output_stream(os.path.join(args.output, stem + ".svg"),
                           encoding="utf-8") as out:
            out.write(tree_svg(tree))

