"""The HTML pages open in headless Chromium (docs/scripts/headless_chromium.py) without a
console error, draw their sentences, filter them, and show the numbers `dep evaluate --json`
prints: on small hand-made files, and on EWT test parsed by the bundled model (with
POLYPARSE_CORPORA). Skipped when no Chromium is installed."""
from __future__ import annotations

import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

from tests.parser.cli.user_runs import POLYPARSE
from tests.parser.views.pages import page_sentences, shown
from tests.parser.views.test_dependency_report import GOLD, SYSTEM_A, SYSTEM_B
from tests.parser.views.trees import CROSSING

ROOT = Path(__file__).resolve().parents[3]


def driver() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "headless_chromium", ROOT / "docs" / "scripts" / "headless_chromium.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


CHROMIUM = driver()
pytestmark = pytest.mark.skipif(CHROMIUM.find_chromium() is None,
                                reason="no chromium on PATH (Debian: apt-get install chromium)")
# What the page shows of each score: its table cells, by key.
SCORE_CELLS = ("Object.fromEntries([...document.querySelectorAll('#pp-scores tbody tr')]"
               ".map(row => [row.dataset.key, [...row.querySelectorAll('td[title]')]"
               ".map(cell => cell.textContent)]))")


@pytest.fixture(scope="module")
def browser():
    with CHROMIUM.HeadlessChromium(width=1200, height=800) as opened:
        yield opened


def run(*argv: str, **options) -> subprocess.CompletedProcess:
    result = subprocess.run([POLYPARSE, *argv], capture_output=True, text=True, **options)
    assert result.returncode == 0, result.stderr
    return result


def test_the_show_page_draws_and_finds(browser, tmp_path: Path) -> None:
    source = tmp_path / "three.conllu"
    source.write_text("".join(CROSSING.replace("crossing-1", f"crossing-{i}")
                              for i in range(1, 4)), encoding="utf-8")
    page = tmp_path / "trees.html"
    run("dep", "show", str(source), "--format", "html", "-o", str(page))
    browser.open(page)
    assert browser.evaluate("document.querySelectorAll('#pp-sentences svg.pp-tree').length") == 3
    browser.evaluate("const box = document.getElementById('pp-search'); box.value = "
                     "'crossing-2'; box.dispatchEvent(new Event('input'))")
    assert browser.evaluate("document.getElementById('pp-count').textContent") == \
        "1 of 3 sentences"
    assert browser.console_errors() == []


def test_a_two_system_report_opens_and_filters(browser, tmp_path: Path) -> None:
    for name, text in (("gold", GOLD), ("a", SYSTEM_A), ("b", SYSTEM_B)):
        (tmp_path / f"{name}.conllu").write_text(text, encoding="utf-8")
    page = tmp_path / "two.html"
    run("dep", "evaluate", str(tmp_path / "gold.conllu"), str(tmp_path / "a.conllu"),
        str(tmp_path / "b.conllu"), "--html", str(page))
    browser.open(page)
    assert browser.evaluate("document.querySelectorAll('#pp-sentences article').length") == 2
    browser.evaluate("const kind = document.getElementById('pp-kind'); kind.value = "
                     "'A right'; kind.dispatchEvent(new Event('input'))")
    assert browser.evaluate("[...document.querySelectorAll('#pp-sentences h3')]"
                            ".map(h => h.textContent)") == ["3 · cats"]
    assert browser.console_errors() == []


def test_the_ewt_report_opens_clean_with_the_json_numbers(browser, corpora: Path,
                                                          tmp_path: Path) -> None:
    gold = corpora / "en_ewt" / "en_ewt-ud-test.conllu"
    parsed = tmp_path / "pred.conllu"
    run("dep", "parse", str(gold), "-o", str(parsed))
    printed = run("dep", "evaluate", str(gold), str(parsed), "--json").stdout
    page = tmp_path / "report.html"
    run("dep", "evaluate", str(gold), str(parsed), "--json", "--html", str(page))
    browser.open(page)
    assert browser.console_errors() == []
    scores = json.loads(printed)
    assert browser.evaluate(SCORE_CELLS) == {key: [shown(v)] for key, v in scores.items()}
    assert browser.evaluate("document.getElementById('pp-json').textContent") == printed.strip()
    listed = page_sentences(page.read_text(encoding="utf-8"))
    assert len(listed) == round(scores["sentences"] * (100 - scores["LEM"]) / 100)
    assert browser.evaluate("document.getElementById('pp-count').textContent") == \
        f"{len(listed)} of {len(listed)} sentences"
    assert browser.evaluate("document.querySelectorAll('#pp-sentences article').length") >= 20
