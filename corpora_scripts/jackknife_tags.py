"""A training file with predicted tags: each sentence tagged by a tagger that never saw it.

    python corpora_scripts/jackknife_tags.py TRAIN.conllu -o TRAIN.jackknifed.conllu
        [--folds 5] [--like TAGGER_MODEL] [--blank-feats]

A parser trained on gold tags meets predicted ones when it parses raw text; trained on tags as
wrong as those it will meet, it learns not to trust them too far. Jackknifing gives such tags
for the training file itself (as the CoNLL 2009 shared task made its predicted columns): the
file is cut into K folds of consecutive sentences, and each fold is tagged by a tagger trained
on the other K - 1. Consecutive sentences keep a document's sentences together, so that a
fold's tagger has not seen the names and topics of the documents it tags (dealt round-robin,
EWT train's folds were tagged 96.3 % right, above the 95.2 % the tagger scores on EWT dev).
The taggers are trained with the settings of `--like` (default: the bundled English
tagger's), so that the tags are as good as those of the tagger that will run before the
parser, only from a little less data.

Only the UPOS, XPOS and LEMMA columns of the words' lines change (as `polyparse tag tag`
writes them); every other byte of the file is kept, FEATS included, but for `--blank-feats`,
which writes FEATS as `_` (they are gold, so a parser for raw text must not learn to read
them). Prints how many words each fold's tagger got right (UPOS, XPOS). The same file, folds
and settings give the same bytes. The output is written to standard output or, with `-o`,
through a temporary file that replaces OUT only when complete.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from polyparse.features.errors import InputError
from polyparse.features.input_files import check_input_paths
from polyparse.features.output_files import check_output_apart, check_output_path, output_stream
from polyparse.parser.cli.scripts import run_script, script_parser
from polyparse.parser.formats.conll import FEATS, Sentence, read_conll
from polyparse.parser.tagging.jackknife import jackknifed

MAX_FOLDS = 100


def blanked_feats(sentence: Sentence) -> Sentence:
    """A copy of the sentence whose words' FEATS column is `_`."""
    lines = list(sentence.lines)
    for index in sentence.word_lines:
        columns = lines[index].split("\t")
        columns[FEATS] = "_"
        lines[index] = "\t".join(columns)
    return Sentence(lines, sentence.word_lines, sentence.form, sentence.lemma, sentence.upos,
                    sentence.xpos, sentence.head, sentence.deprel, sentence.start_line,
                    ["_"] * len(sentence.word_lines))


def build_parser() -> argparse.ArgumentParser:
    parser = script_parser(
        "jackknife_tags.py",
        "A CoNLL-U training file with jackknifed predicted UPOS, XPOS and LEMMA.")
    parser.add_argument("train", metavar="TRAIN", help="CoNLL-U file with gold tags")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="output file (default: standard output)")
    parser.add_argument("--folds", type=int, default=5,
                        help=f"the file cut into this many folds of consecutive sentences, 2 to "
                             f"{MAX_FOLDS} (default 5)")
    parser.add_argument("--like", metavar="TAGGER_MODEL",
                        help="train the folds' taggers with this model's settings (default: "
                             "the bundled English tagger's)")
    parser.add_argument("--blank-feats", action="store_true",
                        help="write FEATS as _ (the file's are gold)")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_script(build_parser(), argv, _jackknife)


def _jackknife(args: argparse.Namespace) -> None:
    if not 2 <= args.folds <= MAX_FOLDS:
        raise InputError(f"--folds must be 2 to {MAX_FOLDS}, not {args.folds}")
    check_output_path(args.output)
    check_input_paths([args.train, args.like])
    from polyparse.parser.models.bundled import bundled_tagger

    like = args.like or bundled_tagger()
    if like is None:
        raise InputError("no --like model given and this installation has no bundled tagger")
    check_output_apart(args.output, [args.train, like])
    from polyparse.parser.tagging.tagger import Tagger

    config = Tagger.load(like).config
    sentences = list(read_conll(args.train))
    for sentence in sentences:
        if "_" in sentence.upos:
            word = sentence.upos.index("_") + 1
            raise InputError(f"{args.train}:{sentence.line_number(word)}: UPOS is missing "
                             '("_"); the folds\' taggers learn from tagged words')
    if len(sentences) < args.folds:
        raise InputError(f"{args.train}: {len(sentences)} sentences cannot fill "
                         f"{args.folds} folds")
    tagged = jackknifed(sentences, args.folds, config,
                        log=lambda message: print(message, file=sys.stderr))
    from polyparse.parser.tagging.conll_files import write_sentence

    with output_stream(args.output) as stream:
        for sentence in tagged:
            write_sentence(blanked_feats(sentence) if args.blank_feats else sentence, stream)


if __name__ == "__main__":
    sys.exit(main())
