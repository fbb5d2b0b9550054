"""The UD treebanks that the per-language benchmarks measure (every folder of DIR/ud22 and
DIR/en_ewt) and UDPipe 1.2's published figures for them, as DIR/ud22/README.md quotes them from
the CoNLL 2018 shared task's results pages."""
from __future__ import annotations

import argparse
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from machine import Records, work_folder
from tables import grouped, significant

# The columns of the README's table after the treebank's name and the system's, in order.
README_COLUMNS = ("Tokens", "Sentences", "Words", "UPOS", "XPOS", "UFeats", "AllTags", "Lemmas",
                  "UAS", "LAS", "CLAS", "MLAS", "BLEX")
BASELINE = "UDPipe 1.2 baseline"


def quoted_baseline(readme: Path, metrics: Sequence[str]) -> dict[str, dict[str, float]]:
    """UDPipe 1.2's figure for each of metrics per treebank, from the corpora's README table
    (`| name | UDPipe 1.2 baseline | Tokens | Sentences | Words | UPOS | ...`); a treebank whose
    row lacks a number for one of them is left out."""
    found: dict[str, dict[str, float]] = {}
    if not readme.is_file():
        return found
    for line in readme.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[1] != BASELINE:
            continue
        figures = dict(zip(README_COLUMNS, cells[2:]))
        if all(re.fullmatch(r"[\d.]+", figures.get(metric, "")) for metric in metrics):
            found[cells[0]] = {metric: float(figures[metric]) for metric in metrics}
    return found


def treebanks(corpora: Path, chosen: list[str] | None) -> list[tuple[str, Path]]:
    """(name, folder) of each treebank to measure."""
    found = sorted((folder.name, folder) for folder in (corpora / "ud22").glob("*")
                   if (folder / f"{folder.name}-ud-train.conllu").is_file())
    if (corpora / "en_ewt" / "en_ewt-ud-train.conllu").is_file():
        found.append(("en_ewt", corpora / "en_ewt"))
    if chosen:
        unknown = set(chosen) - {name for name, _ in found}
        if unknown:
            raise SystemExit(f"no such treebank under {corpora}: {', '.join(sorted(unknown))}")
        found = [(name, folder) for name, folder in found if name in chosen]
    return found


def ewt_files(corpora: str) -> dict[str, Path]:
    """UD English EWT's train, dev and test files under the corpora folder, or the end of the
    benchmark where there is no train file."""
    ewt = Path(corpora) / "en_ewt"
    files = {split: ewt / f"en_ewt-ud-{split}.conllu" for split in ("train", "dev", "test")}
    if not files["train"].is_file():
        raise SystemExit(f"no EWT under {corpora}")
    return files


def chosen_treebanks(corpora: Path, names: str | None, metrics: Sequence[str],
                     ) -> list[tuple[str, Path, dict[str, float] | None]]:
    """(name, folder, UDPipe 1.2's figures or None) of each treebank that a --treebanks option
    (comma-separated names, or None for all) chooses; ends the benchmark when there is none."""
    chosen = treebanks(corpora, names.split(",") if names else None)
    if not chosen:
        raise SystemExit(f"no treebanks under {corpora}/ud22 or {corpora}/en_ewt")
    baseline = quoted_baseline(corpora / "ud22" / "README.md", metrics)
    return [(name, folder, baseline.get(name)) for name, folder in chosen]


def against_baseline(key: str, score: float, theirs: float | None) -> dict[str, object]:
    """The fields a measurement carries beside its score: UDPipe 1.2's figure (under key) and the
    difference, or none where the README quotes no figure."""
    if theirs is None:
        return {}
    return {key: theirs, "difference": round(score - theirs, 2)}


def score_cells(records: Records, data: str, whats: Iterable[str], key: str) -> list[str]:
    """A results table's cells for one treebank: each measurement's figure, with UDPipe 1.2's
    (its field key) in brackets where there is one."""
    cells = []
    for what in whats:
        row = records.find(what, data=data)
        theirs = row.get(key)
        cells.append(f"{row['figure']:.2f}" + ("" if theirs is None else f" ({theirs:.2f})"))
    return cells


def test_text(folder: Path, name: str) -> str:
    """The shared task's test text, or the one conllu_to_text.pl makes of the test file."""
    from polyparse.parser.tokenize.treebank_text import raw_text

    given = folder / f"{name}-ud-test.txt"
    text = (given.read_text(encoding="utf-8") if given.is_file()
            else raw_text(folder / f"{name}-ud-test.conllu"))
    return unicodedata.normalize("NFC", text)


def treebank_row(records: Records, name: str, data: str, scores: Iterable[str], key: str,
                 trained: tuple[str, str, str], speed: str) -> list[str]:
    """One treebank's row of a per-treebank table: its scores (UDPipe 1.2's, field key, in
    brackets), then its training figure and model MiB (trained: the record's name, its field
    of the time, its field of the model's bytes) and the figure of the speed record."""
    training = records.find(trained[0], data=data)
    return [name, *score_cells(records, data, scores, key), significant(training[trained[1]]),
            significant(training[trained[2]] / 2**20),
            grouped(records.find(speed, data=data)["figure"])]


def add_treebank_options(ap: argparse.ArgumentParser) -> None:
    """--corpora and --treebanks, as chosen_treebanks() reads them."""
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    ap.add_argument("--treebanks", help="comma-separated names (default: all found)")


# measure(treebank, folder, UDPipe 1.2's figures or None, work folder, records).
Measure = Callable[[str, Path, "dict[str, float] | None", Path, Records], None]


def run_per_treebank(args: argparse.Namespace, metrics: Sequence[str], data: str, name: str,
                     title: str, measure: Measure,
                     section: Callable[[Records, list[str]], list[str]]) -> int:
    """A per-treebank benchmark's run: measure each treebank that args (add_treebank_options)
    choose in one work folder, then write the section `name` of the results page args.results
    names (section(records, treebanks) gives its lines)."""
    chosen = chosen_treebanks(Path(args.corpora), args.treebanks, metrics)
    records = Records(data)
    with work_folder(f"polyparse-{name.replace('_', '-')}-") as workdir:
        for treebank, folder, baseline in chosen:
            measure(treebank, folder, baseline, workdir, records)
    records.finish(args.results, name, title,
                   lambda: section(records, [treebank for treebank, _, _ in chosen]))
    return 0
