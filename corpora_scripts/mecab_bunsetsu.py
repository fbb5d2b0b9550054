"""Gold bunsetsu trees over MeCab's morphemes: KNP corpora re-analysed by MeCab with the
dictionary of a tag scheme (UniDic: unidic-lite; IPAdic: ipadic; JUMAN: jumandic).

    python corpora_scripts/mecab_bunsetsu.py --dictionary unidic|ipadic|juman
        --ids ID_FILE --corpus DIR/knp [--ids ID_FILE --corpus DIR/knp ...] -o OUT.cabocha
        [--json]

KWDLC and the Wikipedia Annotated Corpus are segmented into JUMAN morphemes by hand; text that a
user brings is segmented by MeCab, with UniDic or IPAdic (CaboCha's usual dictionary), whose
units draw other lines. A parser that reads MeCab's output must be trained on the morphemes it
will see. Each well-formed sentence of the documents is joined back into its text and segmented
again by parser/tokenize/mecab.py (fugashi and the dictionary); the gold bunsetsu are
carried over by character offsets, so each gold bunsetsu becomes the morphemes that lie inside
its span, with its gold head and dependency type.

The rule for a morpheme that crosses a gold bunsetsu boundary (むかし|むかし read as one
morpheme むかしむかし, 髪の|毛を as 髪の毛): the bunsetsu on both sides of that boundary are
merged into one, which keeps the later bunsetsu's head and type (the trees are head-final, so
the earlier one usually depends on the later); dependents of either point to the merged
bunsetsu. Malformed gold trees are skipped, as `ja train` skips them.

The output is CaboCha (`# S-ID:` line, `* ID HEADD HEAD/FUNC SCORE` lines, MeCab's morpheme
lines as the dictionary writes them), one file for all the documents in order, written through
a temporary file. The alignment statistics go to standard error (or standard output as one
JSON object with --json): sentences written and skipped, gold and MeCab morphemes, gold
bunsetsu, boundaries crossed, sentences with a merge.
"""
from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from itertools import accumulate
from pathlib import Path

from polyparse.features.errors import InputError
from polyparse.features.output_files import check_output_path, output_stream
from polyparse.parser.cli.scripts import run_script, script_parser
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence, malformed
from polyparse.parser.formats.cabocha import format_cabocha, read_cabocha_block
from polyparse.parser.formats.knp import read_knp
from polyparse.parser.formats.knp_documents import document_paths
from polyparse.parser.tokenize.mecab import DICTIONARIES, MeCabTagger, require_mecab


@dataclass
class AlignmentStats:
    """What the re-analysis did to the corpus."""

    sentences: int = 0
    skipped_malformed: int = 0
    gold_morphemes: int = 0
    mecab_morphemes: int = 0
    gold_bunsetsu: int = 0
    bunsetsu_written: int = 0
    boundaries_crossed: int = 0
    sentences_with_merge: int = 0


def realigned(sentence: BunsetsuSentence, morpheme_lines: list[str]
              ) -> tuple[list[int], list[int], list[str], int]:
    """(chunk starts, heads, types, boundaries crossed) of the gold bunsetsu of sentence over
    the MeCab morphemes morpheme_lines of its text (EOS last), merged where a morpheme
    crosses."""
    gold_offsets = [0, *accumulate(len(surface) for surface in sentence.surface)]
    bounds = [gold_offsets[start] for start in sentence.chunk_starts]
    morpheme_starts = {offset: index for index, offset in enumerate(
        accumulate((len(line.partition("\t")[0]) for line in morpheme_lines[:-1]), initial=0))}
    # group[j]: the output bunsetsu of gold bunsetsu j; a crossed boundary joins j to j-1.
    group: list[int] = []
    starts: list[int] = []
    crossed = 0
    for j, bound in enumerate(bounds):
        if j == 0 or bound in morpheme_starts:
            starts.append(morpheme_starts[bound] if j else 0)
            group.append(len(starts) - 1)
        else:
            crossed += 1
            group.append(len(starts) - 1)
    last_of_group = {g: j for j, g in enumerate(group)}
    heads = []
    types = []
    for g in range(len(starts)):
        j = last_of_group[g]
        head = sentence.heads[j]
        heads.append(-1 if head == -1 else group[head])
        types.append(sentence.dep_types[j])
    return starts, heads, types, crossed


def cabocha_block(sid: str, lines: list[str], starts: list[int], heads: list[int],
                  types: list[str], tagset: str) -> str:
    """A CaboCha sentence block of the morpheme lines (of the dictionary of tagset) with these
    bunsetsu, written by format_cabocha (CaboCha's `* ID HEADD HEAD/FUNC SCORE` lines)."""
    block = ([f"# S-ID:{sid}"] if sid else []) + lines + ["EOS"]
    sentence = read_cabocha_block(block, 1, "<realigned>", tagset)
    return format_cabocha(sentence, heads, types, starts)


def realign_corpus(paths: Iterable[Path], output: str | None, stats: AlignmentStats,
                   tagset: str) -> None:
    """The sentences of the KNP files at paths, re-analysed by MeCab with the dictionary of
    tagset, as CaboCha to output."""
    tagger = MeCabTagger(tagset)
    with output_stream(output) as stream:
        for path in paths:
            for sentence in read_knp(path, validate=False):
                if malformed(sentence) is not None or not sentence.heads:
                    stats.skipped_malformed += 1
                    continue
                text = "".join(sentence.surface)
                lines = tagger.morpheme_lines(text)
                starts, heads, types, crossed = realigned(sentence, lines)
                stats.sentences += 1
                stats.gold_morphemes += len(sentence.surface)
                stats.mecab_morphemes += len(lines)
                stats.gold_bunsetsu += len(sentence.heads)
                stats.bunsetsu_written += len(starts)
                stats.boundaries_crossed += crossed
                stats.sentences_with_merge += crossed > 0
                stream.write(cabocha_block(sentence.sid, lines, starts, heads, types, tagset))


def build_parser() -> argparse.ArgumentParser:
    parser = script_parser(
        "mecab_bunsetsu.py",
        "Gold bunsetsu trees of KNP documents over MeCab's morphemes with a dictionary.")
    parser.add_argument("--dictionary", required=True, choices=tuple(DICTIONARIES),
                        help="the tag scheme whose MeCab dictionary segments the text: unidic "
                             "(unidic-lite), ipadic (ipadic) or juman (jumandic)")
    parser.add_argument("--ids", required=True, action="append", type=Path, metavar="ID_FILE",
                        help="one document id a line (repeat with --corpus for more corpora)")
    parser.add_argument("--corpus", required=True, action="append", type=Path, metavar="DIR",
                        help="the corpus's knp/ folder, one per --ids")
    parser.add_argument("-o", "--output", required=True, metavar="OUT",
                        help="CaboCha file to write")
    parser.add_argument("--json", action="store_true",
                        help="print the alignment statistics as one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    return run_script(build_parser(), argv, _realign)


def _realign(args: argparse.Namespace) -> None:
    if len(args.ids) != len(args.corpus):
        raise InputError("mecab_bunsetsu.py: give one --corpus for each --ids")
    check_output_path(args.output)
    require_mecab(args.dictionary)
    paths = [path for ids, corpus in zip(args.ids, args.corpus)
             for path in document_paths(ids, corpus)]
    stats = AlignmentStats()
    realign_corpus(paths, args.output, stats, args.dictionary)
    if args.json:
        print(json.dumps(asdict(stats), sort_keys=True))
    else:
        for key, value in asdict(stats).items():
            print(f"{key:22s} {value}", file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
