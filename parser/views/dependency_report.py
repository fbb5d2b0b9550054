"""The page `polyparse dep evaluate GOLD SYSTEM [SYSTEM2] --html REPORT` writes: the scores as
`--json` prints them, errors by relation, by UPOS, by arc length and by sentence length (tables
and charts), the most frequent confusions, and every sentence with an error drawn with its gold
and system trees together, most errors first, filterable by relation; with two systems, where
they differ and which is right.

Words are judged as `evaluate` aligns and scores them (parser/dependency/evaluate.py's
judge_words): a word has its head right for UAS, head and universal relation right for LAS;
words the punctuation policy leaves out are drawn but not counted. Relations are the universal
part of DEPREL (before ":"), as LAS compares them.
"""
from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from html import escape

from polyparse.parser.dependency.evaluate import METRICS, Scores, WordJudgement, judge_words
from polyparse.parser.formats.conll import Sentence
from polyparse.parser.views.bar_charts import bar_chart
from polyparse.parser.views.error_tables import Breakdown, Tally, html_table, percent_text
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
from polyparse.parser.views.sentence_tree import SentenceTree, conll_tree

__all__ = ["dependency_report", "judged_dependency_sentences"]

CARDS = ("UAS", "LAS", "CLAS", "MLAS", "BLEX", "LAS_exact", "UEM", "LEM")
ARC_LENGTHS = ("root", "1", "2", "3", "4", "5", "6", "7–10", "11+")
SENTENCE_LENGTHS = ("1–10", "11–20", "21–30", "31–40", "41–50", "51+")
TOP_GROUPS = 15
TOP_CONFUSIONS = 20
# The classes of a chart's two bars.
_BARS = ("pp-bar-first", "pp-bar-second")


def judged_dependency_sentences(gold: Sequence[Sentence],
                                judgements: Sequence[Sequence[Sequence[WordJudgement]]]
                                ) -> list[JudgedSentence]:
    """Each gold sentence with each system's tree over its words (judge_words' per system)."""
    found = []
    for index, sentence in enumerate(gold):
        tree = conll_tree(sentence)
        systems: list[SentenceTree] = []
        judged: list[tuple[JudgedUnit, ...]] = []
        for per_system in judgements:
            words = per_system[index]
            units = tuple(JudgedUnit(-1 if w.system_head is None else w.system_head,
                                     w.system_deprel or "", w.head_right,
                                     w.head_and_label_right, w.excluded) for w in words)
            systems.append(tree.with_tree(tuple(u.system_head for u in units),
                                          tuple(u.system_label for u in units)))
            judged.append(units)
        found.append(JudgedSentence(index + 1, tree, tuple(systems), tuple(judged)))
    return found


def relation(label: str) -> str:
    return label.partition(":")[0]


def arc_length(head: int, word: int) -> str:
    """The group of an arc by its length in words (root: the root's arc)."""
    if head == 0:
        return "root"
    length = abs(head - word)
    return str(length) if length <= 6 else "7–10" if length <= 10 else "11+"


def sentence_length(n: int) -> str:
    return SENTENCE_LENGTHS[min((n - 1) // 10, len(SENTENCE_LENGTHS) - 1)]


class DependencyErrors:
    """Right and wrong words of every system, by the groups the report shows."""

    def __init__(self, judged: Sequence[JudgedSentence], n_systems: int) -> None:
        self.n = n_systems
        self.relations = Breakdown(n_systems)
        self.predicted_relations = Breakdown(n_systems)
        self.upos = Breakdown(n_systems)
        self.gold_lengths = Breakdown(n_systems)
        self.system_lengths = Breakdown(n_systems)
        self.sentence_words = Breakdown(n_systems)
        self.sentences = Breakdown(n_systems)
        self.label_confusions = [Counter() for _ in range(n_systems)]
        self.head_confusions = [Counter() for _ in range(n_systems)]
        for sentence in judged:
            for system in range(n_systems):
                self._add(sentence, system)

    def _add(self, sentence: JudgedSentence, system: int) -> None:
        gold = sentence.gold
        length = sentence_length(len(gold))
        all_heads = all_labels = True
        for index, unit in enumerate(sentence.judged[system]):
            if unit.excluded:
                continue
            word = index + 1
            right = (unit.head_right, unit.both_right)
            gold_relation = relation(gold.labels[index])
            self.relations.add(gold_relation, system, *right)
            self.upos.add(gold.tag(word) or "_", system, *right)
            self.gold_lengths.add(arc_length(gold.heads[index], word), system, *right)
            self.sentence_words.add(length, system, *right)
            all_heads &= unit.head_right
            all_labels &= unit.both_right
            if unit.system_label:
                system_relation = relation(unit.system_label)
                self.predicted_relations.add(system_relation, system, *right)
                if system_relation != gold_relation:
                    self.label_confusions[system][(gold_relation, system_relation)] += 1
            if unit.system_head >= 0:
                self.system_lengths.add(arc_length(unit.system_head, word), system, *right)
            if not unit.head_right:
                self.head_confusions[system][(gold_relation, head_tag(gold, gold.heads[index]),
                                              head_tag(gold, unit.system_head))] += 1
        self.sentences.add(length, system, all_heads, all_labels)


def head_tag(tree: SentenceTree, head: int) -> str:
    """What a head is called in the confusions: its UPOS, ROOT, or "none" (not aligned)."""
    return "none" if head < 0 else "ROOT" if head == 0 else tree.tag(head) or "_"


def relation_section(errors: DependencyErrors, letters: Sequence[str]) -> str:
    header = per_system_header(("relation", "gold"), ("precision", "recall", "F1", "head wrong",
                                                      "label wrong"), letters, errors.n)
    rows = []
    for group in errors.relations.ordered():
        row = [group, str(errors.relations.tally(group, 0).units)]
        for k in range(errors.n):
            gold = errors.relations.tally(group, k)
            predicted = errors.predicted_relations.tally(group, k)
            row += [percent_text(predicted.both_right, predicted.units),
                    percent_text(gold.both_right, gold.units),
                    percent_text(2 * gold.both_right, gold.units + predicted.units),
                    str(gold.head_wrong), str(gold.label_wrong)]
        rows.append(row)
    chart = _error_chart("Errors by relation", errors.relations, letters, errors.n)
    better = [(4, 9)] if errors.n == 2 else []
    note = ("Gold words by their relation (the universal part of DEPREL): precision over the "
            "words the system gives that relation, recall over the gold ones, both counting "
            "words with the right head and relation (LAS); a wrong label is counted only where "
            "the head is right.")
    return chart_and_table("Errors by relation", chart, html_table(header, rows, better=better),
                           note)


def _error_chart(title: str, breakdown: Breakdown, letters: Sequence[str], n: int) -> str:
    """Bars of the groups with the most errors: wrong heads and wrong labels stacked (one
    system), or each system's errors side by side (two)."""
    groups = sorted(breakdown.groups, key=lambda g: (-breakdown.tally(g, 0).errors, g))
    groups = [g for g in groups[:TOP_GROUPS] if any(breakdown.tally(g, k).errors
                                                     for k in range(n))]
    if n == 1:
        rows = [(g, [breakdown.tally(g, 0).head_wrong, breakdown.tally(g, 0).label_wrong])
                for g in groups]
        return bar_chart(title, rows, [("wrong head", "pp-bar-head"),
                                       ("wrong label", "pp-bar-label")], stacked=True)
    rows = [(g, [breakdown.tally(g, k).errors for k in range(n)]) for g in groups]
    return bar_chart(title, rows, [(f"errors {letters[0]}", "pp-bar-first"),
                                   (f"errors {letters[1]}", "pp-bar-second")])


def upos_section(errors: DependencyErrors, letters: Sequence[str]) -> str:
    header = per_system_header(("UPOS", "words"), ("UAS", "LAS", "head wrong", "label wrong"),
                               letters, errors.n)
    rows = [_accuracy_row(errors.upos, group, errors.n) for group in errors.upos.ordered()]
    total = _accuracy_row_of([errors.upos.total(k) for k in range(errors.n)], "all")
    chart = _error_chart("Errors by UPOS", errors.upos, letters, errors.n)
    better = [(3, 7)] if errors.n == 2 else []
    return chart_and_table("Errors by part of speech", chart,
                           html_table(header, rows, total, better),
                           "Gold words by their gold UPOS.")


def _accuracy_row(breakdown: Breakdown, group: str, n: int) -> list[str]:
    return _accuracy_row_of([breakdown.tally(group, k) for k in range(n)], group)


def _accuracy_row_of(tallies: Sequence[Tally], name: str) -> list[str]:
    row = [name, str(tallies[0].units)]
    for tally in tallies:
        row += [percent_text(tally.head_right, tally.units),
                percent_text(tally.both_right, tally.units), str(tally.head_wrong),
                str(tally.label_wrong)]
    return row


def arc_length_section(errors: DependencyErrors, letters: Sequence[str]) -> str:
    header = per_system_header(("length", "gold arcs"), ("system arcs", "UAS recall",
                                                         "LAS recall", "LAS precision"),
                               letters, errors.n)
    rows = []
    for group in ARC_LENGTHS:
        gold = errors.gold_lengths.tally(group, 0)
        if not gold.units and not any(errors.system_lengths.tally(group, k).units
                                      for k in range(errors.n)):
            continue
        row = [group, str(gold.units)]
        for k in range(errors.n):
            gold = errors.gold_lengths.tally(group, k)
            system = errors.system_lengths.tally(group, k)
            row += [str(system.units), percent_text(gold.head_right, gold.units),
                    percent_text(gold.both_right, gold.units),
                    percent_text(system.both_right, system.units)]
        rows.append(row)
    note = ("Arcs by their length in words (root: the arc from the root): recall over the gold "
            "arcs of that length, precision over the system's arcs of that length (words not "
            "aligned with a gold word have none).")
    return _charted_table("Errors by arc length", "LAS by arc length", header, rows, letters,
                          errors.n, (("LAS recall", 4), ("LAS precision", 5)), "LAS recall",
                          note)


def _charted_table(title: str, chart_title: str, header: list[str], rows: list[list[str]],
                   letters: Sequence[str], n_systems: int,
                   one_system: tuple[tuple[str, int], ...], compared: str, note: str) -> str:
    """A section of a table (four columns a system, the LAS one at 4 for the first system and
    8 for the second, which the table compares) and its chart: for one system the columns
    one_system names, for two the LAS column `compared` of each."""
    if n_systems == 1:
        series = [(name, bar) for (name, _), bar in zip(one_system, _BARS)]
        columns = [column for _, column in one_system]
    else:
        series = [(f"{compared} {letter}", bar) for letter, bar in zip(letters, _BARS)]
        columns = [4, 8]
    values = [(row[0], [_value(row[column]) for column in columns]) for row in rows]
    chart = bar_chart(chart_title, values, series, maximum=100, decimals=1)
    better = [(4, 8)] if n_systems == 2 else []
    return chart_and_table(title, chart, html_table(header, rows, better=better), note)


def _value(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 0.0


def sentence_length_section(errors: DependencyErrors, letters: Sequence[str]) -> str:
    header = per_system_header(("words", "sentences", "scored words"),
                               ("UAS", "LAS", "UEM", "LEM"), letters, errors.n)
    rows = []
    for group in SENTENCE_LENGTHS:
        sentences = errors.sentences.tally(group, 0)
        if not sentences.units:
            continue
        row = [group, str(sentences.units), str(errors.sentence_words.tally(group, 0).units)]
        for k in range(errors.n):
            words = errors.sentence_words.tally(group, k)
            sentences = errors.sentences.tally(group, k)
            row += [percent_text(words.head_right, words.units),
                    percent_text(words.both_right, words.units),
                    percent_text(sentences.head_right, sentences.units),
                    percent_text(sentences.both_right, sentences.units)]
        rows.append(row)
    note = ("Sentences by their number of words; UEM and LEM: the sentences whose scored words "
            "all have the right head (and relation).")
    return _charted_table("Errors by sentence length", "Scores by sentence length", header,
                          rows, letters, errors.n, (("UAS", 3), ("LAS", 4)), "LAS", note)


def confusion_section(errors: DependencyErrors, letters: Sequence[str]) -> str:
    panels = []
    for k in range(errors.n):
        s = system_suffix(letters, k)
        labels = errors.label_confusions[k].most_common(TOP_CONFUSIONS)
        rows = [[gold, system, str(count),
                 percent_text(count, errors.relations.tally(gold, k).units)]
                for (gold, system), count in labels]
        panels.append(f"<div class=\"pp-panel\"><h3>Relations confused{escape(s)}</h3>"
                      + html_table(["gold", "system", "words", "% of gold"], rows) + "</div>")
        heads = errors.head_confusions[k].most_common(TOP_CONFUSIONS)
        rows = [[gold_relation, gold_head, system_head, str(count)]
                for (gold_relation, gold_head, system_head), count in heads]
        panels.append(f"<div class=\"pp-panel\"><h3>Wrong heads{escape(s)}</h3>"
                      + html_table(["relation", "gold head", "system head", "words"], rows)
                      + "</div>")
    note = ("The most frequent relations the system gives instead of the gold one (whatever "
            "the head), and the words attached to the wrong head, by their gold relation and "
            "the UPOS of the gold and of the system's head (ROOT: the root; none: not aligned).")
    return (f"<section><h2>Most frequent confusions</h2><p class=\"pp-note\">{note}</p>"
            f'<div class="pp-grid">{"".join(panels)}</div></section>')


def dependency_report(gold_name: str, gold: Sequence[Sentence],
                      systems: Sequence[tuple[str, Sequence[Sentence]]],
                      scores: Sequence[Scores], punct: str = "none") -> str:
    """The report page of gold against one or two systems (name, sentences), whose scores
    evaluate gave (under the punctuation policy punct)."""
    judgements = [judge_words(gold, sentences, punct, gold_name, name)
                  for name, sentences in systems]
    judged = judged_dependency_sentences(gold, judgements)
    paths = [name for name, _ in systems]
    letters = system_names(paths)
    errors = DependencyErrors(judged, len(systems))
    as_dicts = [score.as_dict() for score in scores]
    excluded = f", {as_dicts[0]['excluded']} words left out" if as_dicts[0]["excluded"] else ""
    lines = [f"{as_dicts[0]['sentences']} sentences, {as_dicts[0]['words']} scored words; "
             f"punctuation policy <code>{escape(punct)}</code>{excluded}; CoNLL 2018 "
             "conventions (<code>conll18_ud_eval.py</code>)"]
    sections = [scores_section(METRICS, as_dicts,
                               [json.dumps(d, sort_keys=True) for d in as_dicts], CARDS),
                relation_section(errors, letters), upos_section(errors, letters),
                arc_length_section(errors, letters), sentence_length_section(errors, letters),
                confusion_section(errors, letters)]

    def gold_relation(sentence: JudgedSentence, system: int, index: int) -> str:
        return relation(sentence.gold.labels[index])

    if len(systems) == 2:
        sections.append(differences_section(judged, gold_relation, "relation"))
    sections.append(sentence_section(judged, paths, gold_relation, "relation"))
    title = "polyparse dep evaluate"
    return html_document(f"{title}: {gold_name}", heading(title, gold_name, paths, lines),
                         "".join(sections))

