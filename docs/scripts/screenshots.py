"""The screenshots in docs/img/, taken in headless Chromium (docs/scripts/headless_chromium.py)
from pages the installed `polyparse` writes:

- example-tree.png: the first sentence of the bundled example (parser/models/example.conllu,
  the README's) parsed by the bundled model, as `dep show --format html` draws it;
- example-bunsetsu.png: the bundled Japanese example parsed by the bundled model (`ja show`);
- ewt-report.png and ewt-report-sentence.png: the top of `dep evaluate --html` of UD English
  EWT test parsed by the bundled model, and a sentence of its error list;
- ewt-compare.png (with --compare): where the bundled model and a linear model trained on the
  first 2,000 sentences of EWT train differ on EWT test.

Prints one JSON object per page: its size, and the milliseconds from the start of its opening
until its script had drawn the first sentences (the page's own clock), then one per screenshot.

    python docs/scripts/screenshots.py [--corpora DIR] [--out docs/img] [--compare]
"""
from __future__ import annotations

import argparse
import base64
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from headless_chromium import HeadlessChromium, pause_a_frame

REPO = Path(__file__).resolve().parents[2]
WIDTH = 1200


def readable_sentence(page: Path, wanted: Callable[[dict], bool]) -> str:
    """The id of the first sentence of a report's list whose pictures fit the window and that
    is wanted (it shows both kinds of error, say)."""
    found = re.search(r'id="pp-data" data-encoding="gzip\+base64">([^<]*)</script>',
                      page.read_text(encoding="utf-8"))
    sentences = json.loads(gzip.decompress(base64.b64decode(found.group(1))))["sentences"]
    for sentence in sentences:
        widths = [int(w) for w in re.findall(r"<svg [^>]*? width='(\d+)'", sentence["html"])]
        if max(widths) <= WIDTH - 60 and wanted(sentence):
            return sentence["id"]
    return sentences[0]["id"]


def find(browser: HeadlessChromium, sent_id: str) -> None:
    """Show only that sentence in the page's list (its search box)."""
    browser.evaluate(f"const box = document.getElementById('pp-search'); "
                     f"box.value = {json.dumps(sent_id)}; box.dispatchEvent(new Event('input'))")


def polyparse(*argv: str, stdin: bytes | None = None, cwd: Path | None = None) -> str:
    """Run the installed polyparse (the one beside this Python) in cwd; its stdout."""
    command = shutil.which("polyparse", path=str(Path(sys.executable).parent)) or "polyparse"
    result = subprocess.run([command, *argv], input=stdin, capture_output=True, check=False,
                            cwd=cwd)
    if result.returncode != 0:
        raise SystemExit(f"polyparse {' '.join(argv)}: {result.stderr.decode().strip()}")
    return result.stdout.decode()


def emit(**record: object) -> None:
    print(json.dumps(record, ensure_ascii=False), flush=True)


def opened(browser: HeadlessChromium, page: Path) -> None:
    milliseconds = browser.open(page)
    errors = browser.console_errors()
    emit(what="page opened", page=page.name, bytes=page.stat().st_size,
         milliseconds=round(milliseconds), console_errors=errors)
    if errors:
        raise SystemExit(f"{page.name}: the console shows errors: {errors}")


def shot(browser: HeadlessChromium, path: Path, selector: str | None = None,
         height: int | None = None, padding: int = 8) -> None:
    pause_a_frame(browser)
    browser.screenshot(path, selector, height, padding)
    emit(what="screenshot", file=str(path.relative_to(REPO) if path.is_relative_to(REPO)
                                     else path))


def example_pictures(browser: HeadlessChromium, work: Path, out: Path) -> None:
    parsed = work / "example.conllu"
    parsed.write_text(polyparse("dep", "parse", str(REPO / "parser/models/example.conllu")),
                      encoding="utf-8")
    page = work / "example.html"
    polyparse("dep", "show", str(parsed), "--index", "1", "--format", "html", "-o", str(page))
    opened(browser, page)
    shot(browser, out / "example-tree.png", "#pp-sentences svg")
    knp = polyparse("ja", "parse", str(REPO / "parser/models/example.knp"))
    page = work / "example-ja.html"
    polyparse("ja", "show", "--format", "html", "-o", str(page), stdin=knp.encode())
    opened(browser, page)
    shot(browser, out / "example-bunsetsu.png", "#pp-sentences svg")


def ewt_report(browser: HeadlessChromium, corpora: Path, work: Path, out: Path,
               compare: bool) -> None:
    ewt = corpora / "en_ewt"
    gold = ewt / "en_ewt-ud-test.conllu"
    parsed = work / "bundled.conllu"
    polyparse("dep", "parse", str(gold), "-o", str(parsed))
    page = work / "ewt-report.html"
    polyparse("dep", "evaluate", str(gold), parsed.name, "--html", page.name, "-q", cwd=work)
    opened(browser, page)
    shot(browser, out / "ewt-report.png", height=1180, padding=0)
    find(browser, readable_sentence(page, lambda s: s["kinds"] == ["head", "label"]))
    shot(browser, out / "ewt-report-sentence.png", "#pp-sentences article")
    if not compare:
        return
    train = work / "train-2000.conllu"
    blocks = (ewt / "en_ewt-ud-train.conllu").read_text(encoding="utf-8").split("\n\n")
    train.write_text("\n\n".join(blocks[:2000]) + "\n\n", encoding="utf-8")
    model = work / "small.model"
    polyparse("dep", "train", "--train", str(train), "--model", str(model), "--classifier",
              "linear", "-q")
    small = work / "small.conllu"
    polyparse("dep", "parse", "--model", str(model), str(gold), "-o", str(small))
    page = work / "ewt-compare.html"
    polyparse("dep", "evaluate", str(gold), parsed.name, small.name, "--html", page.name, "-q",
              cwd=work)
    opened(browser, page)
    find(browser, readable_sentence(page, lambda s: {"A right", "B right"} <= set(s["kinds"])))
    shot(browser, out / "ewt-compare.png", "#pp-sentences article")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpora", type=Path,
                        default=Path(os.environ.get("POLYPARSE_CORPORA",
                                                    REPO.parent / "shared" / "corpora")),
                        help="a folder laid out like ../shared/corpora (en_ewt/ in it)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "img",
                        help="where the PNG files go (default docs/img)")
    parser.add_argument("--compare", action="store_true",
                        help="also train a small model and shoot the two-system report")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as work, \
            HeadlessChromium(width=WIDTH, height=900) as browser:
        example_pictures(browser, Path(work), args.out)
        ewt_report(browser, args.corpora, Path(work), args.out, args.compare)


if __name__ == "__main__":
    main()
