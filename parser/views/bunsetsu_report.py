"""The page `polyparse ja evaluate GOLD SYSTEM [SYSTEM2] --html REPORT` writes: the scores as
`--json` prints them, errors by the dependent bunsetsu's ending (the part of speech of its last
morpheme that is not punctuation, with the particle itself: 助詞 は), by the distance to the
gold head and by sentence length (tables and charts), the most frequent wrong heads, and every
sentence with an error drawn with its gold and system trees together, most errors first,
filterable by ending; with two systems, where they differ and which is right.

Bunsetsu are judged as parser/bunsetsu/evaluate.py scores them: every bunsetsu but the last of
its sentence, right when its head is. When a system made other bunsetsu than the gold ones (it
chunked the sentence), a gold bunsetsu is right when the system has one with its span whose
head has the span of its gold head, and the two trees are drawn one under the other.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from polyparse.parser.bunsetsu.evaluate import METRICS, chunk_spans
from polyparse.parser.formats.bunsetsu_sentence import BunsetsuSentence
from polyparse.parser.views.bar_charts import bar_chart
from polyparse.parser.views.error_tables import Breakdown, html_table, percent_text
from polyparse.parser.views.html_page import html_document
from polyparse.parser.views.judged_trees import JudgedSentence, JudgedUnit
from polyparse.parser.views.report_sections import (
    chart_and_table,
    differences_section,
    heading,
    per_system_header,
    scores_section,
    sentence_section,
    system_names,
    system_suffix,
)
from polyparse.parser.views.sentence_tree import SentenceTree, bunsetsu_tree

__all__ = ["bunsetsu_endings", "bunsetsu_report", "judged_bunsetsu_sentences"]

DISTANCES = ("1", "2", "3", "4", "5", "6+")
SENTENCE_LENGTHS = ("1–5", "6–10", "11–15", "16–20", "21–30", "31+")
PUNCTUATION = "特殊"
PARTICLES = ("助詞",)
TOP_GROUPS = 15
TOP_CONFUSIONS = 20


def bunsetsu_endings(sentence: BunsetsuSentence) -> list[str]:
    """The ending of each bunsetsu: the part of speech (pos1) of its last morpheme that is
    not punctuation (JUMAN's 特殊; UniDic's 補助記号), with the morpheme itself for a
    particle."""
    endings = []
    for start, end in chunk_spans(sentence.chunk_starts, len(sentence.surface)):
        last = end - 1
        while last > start and sentence.pos1[last] in (PUNCTUATION, "補助記号"):
            last -= 1
        pos = sentence.pos1[last]
        endings.append(f"{pos} {sentence.surface[last]}" if pos in PARTICLES else pos)
    return endings


def judged_bunsetsu_sentences(gold: Sequence[BunsetsuSentence],
                              systems: Sequence[Sequence[BunsetsuSentence]]
                              ) -> list[JudgedSentence]:
    """Each gold sentence with each system's tree (over the gold bunsetsu when the system's
    are the same) and its judged bunsetsu."""
    found = []
    for index, sentence in enumerate(gold):
        tree = bunsetsu_tree(sentence)
        trees: list[SentenceTree] = []
        judged: list[tuple[JudgedUnit, ...]] = []
        same: list[bool] = []
        for per_system in systems:
            other = per_system[index]
            units = _judged_units(sentence, other)
            judged.append(units)
            if other.chunk_starts == sentence.chunk_starts:
                same.append(True)
                trees.append(tree.with_tree(tuple(u.system_head for u in units),
                                            ("",) * len(units)))
            else:
                same.append(False)
                trees.append(bunsetsu_tree(other))
        found.append(JudgedSentence(index + 1, tree, tuple(trees), tuple(judged), tuple(same)))
    return found


def _judged_units(gold: BunsetsuSentence, system: BunsetsuSentence) -> tuple[JudgedUnit, ...]:
    n = len(gold.surface)
    gold_spans = chunk_spans(gold.chunk_starts, n)
    system_spans = chunk_spans(system.chunk_starts, len(system.surface))
    system_index = {span: i for i, span in enumerate(system_spans)}
    gold_index = {span: i for i, span in enumerate(gold_spans)}
    units = []
    for i, span in enumerate(gold_spans):
        j = system_index.get(span)
        head = -1
        right = False
        if j is not None:
            system_head = system.heads[j]
            head_span = None if system_head < 0 else system_spans[system_head]
            head = 0 if head_span is None else gold_index.get(head_span, -2) + 1
            gold_head = gold.heads[i]
            right = head_span == (None if gold_head < 0 else gold_spans[gold_head])
        units.append(JudgedUnit(head, "", right, right, excluded=i == len(gold_spans) - 1))
    return tuple(units)


def distance(head: int, unit: int) -> str:
    """The group of a head by how many bunsetsu to the right it is (heads are to the right)."""
    gap = head - unit
    return str(gap) if gap < 6 else "6+"


def sentence_length(n: int) -> str:
    if n <= 20:
        return SENTENCE_LENGTHS[(n - 1) // 5]
    return "21–30" if n <= 30 else "31+"


class BunsetsuErrors:
    """Right and wrong bunsetsu of every system, by the groups the report shows."""

    def __init__(self, judged: Sequence[JudgedSentence], endings: Sequence[Sequence[str]],
                 n_systems: int) -> None:
        self.n = n_systems
        self.endings = Breakdown(n_systems)
        self.distances = Breakdown(n_systems)
        self.lengths = Breakdown(n_systems)
        self.sentences = Breakdown(n_systems)
        self.wrong_heads = [Counter() for _ in range(n_systems)]
        for sentence, sentence_endings in zip(judged, endings):
            length = sentence_length(len(sentence.gold))
            for system in range(n_systems):
                all_right = True
                for index, unit in enumerate(sentence.judged[system]):
                    if unit.excluded:
                        continue
                    right = (unit.head_right, unit.both_right)
                    self.endings.add(sentence_endings[index], system, *right)
                    self.distances.add(distance(sentence.gold.heads[index], index + 1), system,
                                       *right)
                    self.lengths.add(length, system, *right)
                    all_right &= unit.head_right
                    if not unit.head_right:
                        self.wrong_heads[system][(
                            sentence_endings[index],
                            _ending_of(sentence_endings, sentence.gold.heads[index]),
                            _ending_of(sentence_endings, unit.system_head))] += 1
                self.sentences.add(length, system, all_right, all_right)


def _ending_of(endings: Sequence[str], head: int) -> str:
    """How a head bunsetsu is named in the wrong heads: its ending, or "other bunsetsu" (the
    system's head is none of the gold bunsetsu)."""
    return endings[head - 1] if head > 0 else "other bunsetsu" if head < 0 else "ROOT"


def _accuracy_table(breakdown: Breakdown, groups: Sequence[str], letters: Sequence[str],
                    n: int, first: str) -> str:
    header = per_system_header((first, "bunsetsu"), ("accuracy", "wrong"), letters, n)
    rows = []
    for group in groups:
        tally = breakdown.tally(group, 0)
        row = [group, str(tally.units)]
        for k in range(n):
            tally = breakdown.tally(group, k)
            row += [percent_text(tally.head_right, tally.units), str(tally.head_wrong)]
        rows.append(row)
    totals = [breakdown.total(k) for k in range(n)]
    total = ["all", str(totals[0].units)]
    for tally in totals:
        total += [percent_text(tally.head_right, tally.units), str(tally.head_wrong)]
    return html_table(header, rows, total, [(2, 4)] if n == 2 else [])


def _wrong_chart(title: str, breakdown: Breakdown, groups: Sequence[str],
                 letters: Sequence[str], n: int) -> str:
    series = [(f"wrong heads{system_suffix(letters, k)}", "pp-bar-head" if n == 1 else
               ("pp-bar-first", "pp-bar-second")[k]) for k in range(n)]
    rows = [(g, [breakdown.tally(g, k).head_wrong for k in range(n)]) for g in groups]
    return bar_chart(title, rows, series)


def bunsetsu_report(gold_name: str, gold: Sequence[BunsetsuSentence],
                    systems: Sequence[tuple[str, Sequence[BunsetsuSentence]]],
                    scores: Sequence[Mapping[str, Any]]) -> str:
    """The report page of gold against one or two systems (name, sentences) with their scores
    (ja evaluate's)."""
    judged = judged_bunsetsu_sentences(gold, [sentences for _, sentences in systems])
    endings = [bunsetsu_endings(sentence) for sentence in gold]
    paths = [name for name, _ in systems]
    letters = system_names(paths)
    n = len(systems)
    errors = BunsetsuErrors(judged, endings, n)
    cards = [key for key in ("dependency_accuracy", "sentence_accuracy", "chunk_f1",
                             "dependency_f1") if key in scores[0]]
    first = scores[0]
    lines = [f"{first['sentences']} sentences, {first['bunsetsu']} scored bunsetsu (all but the "
             "last of each sentence)"]
    sections = [scores_section(METRICS, scores, [json.dumps(dict(s), sort_keys=True)
                                                 for s in scores], cards)]
    by_errors = sorted(errors.endings.groups,
                       key=lambda g: (-errors.endings.tally(g, 0).head_wrong, g))[:TOP_GROUPS]
    sections.append(chart_and_table(
        "Errors by ending", _wrong_chart("Wrong heads by ending", errors.endings, by_errors,
                                         letters, n),
        _accuracy_table(errors.endings, errors.endings.ordered(), letters, n, "ending"),
        "Bunsetsu by their ending: the part of speech of their last morpheme that is not "
        "punctuation, with the particle itself."))
    distances = [d for d in DISTANCES if d in errors.distances.groups]
    sections.append(chart_and_table(
        "Errors by distance to the head",
        _wrong_chart("Wrong heads by distance", errors.distances, distances, letters, n),
        _accuracy_table(errors.distances, distances, letters, n, "distance"),
        "Bunsetsu by how far to the right their gold head is, in bunsetsu."))
    lengths = [g for g in SENTENCE_LENGTHS if g in errors.lengths.groups]
    rows = [(g, [100.0 * errors.lengths.tally(g, k).head_right
                 / max(1, errors.lengths.tally(g, k).units) for k in range(n)])
            for g in lengths]
    chart = bar_chart("Accuracy by sentence length", rows,
                      [(f"accuracy{system_suffix(letters, k)}",
                        ("pp-bar-first", "pp-bar-second")[k]) for k in range(n)],
                      maximum=100, decimals=1)
    table = _accuracy_table(errors.lengths, lengths, letters, n, "bunsetsu in sentence")
    sections.append(chart_and_table("Errors by sentence length", chart, table,
                                    "Sentences by their number of gold bunsetsu."))
    panels = []
    for k in range(n):
        rows_html = [[ending, gold_head, system_head, str(count)] for
                     (ending, gold_head, system_head), count in
                     errors.wrong_heads[k].most_common(TOP_CONFUSIONS)]
        panels.append(f"<div class=\"pp-panel\"><h3>Wrong heads{escape(system_suffix(letters, k))}"
                      "</h3>" + html_table(["ending", "gold head", "system head", "bunsetsu"],
                                           rows_html) + "</div>")
    sections.append("<section><h2>Most frequent wrong heads</h2><p class=\"pp-note\">"
                    "Bunsetsu attached to the wrong head, by their ending and the endings of "
                    "the gold and of the system's head.</p>"
                    f'<div class="pp-grid">{"".join(panels)}</div></section>')

    def ending(sentence: JudgedSentence, system: int, index: int) -> str:
        return endings[sentence.number - 1][index]

    if n == 2:
        sections.append(differences_section(judged, ending, "ending", ("bunsetsu", "bunsetsu")))
    sections.append(sentence_section(judged, paths, ending, "ending", ("bunsetsu", "bunsetsu")))
    title = "polyparse ja evaluate"
    return html_document(f"{title}: {gold_name}", heading(title, gold_name, paths, lines),
                         "".join(sections))
