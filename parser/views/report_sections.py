"""The parts every evaluation report shares: its heading, the scores (as `--json` prints them),
a chart beside its table, and the sentences drawn with gold and system trees together (one
system: its errors; two systems: where they differ, and which is right)."""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from html import escape

from polyparse.parser.views.error_tables import html_table
from polyparse.parser.views.html_page import SentenceEntry, search_box, sentence_list, tree_entry
from polyparse.parser.views.judged_trees import HEAD_WRONG, LABEL_WRONG, JudgedSentence, JudgedUnit
from polyparse.parser.views.svg_tree import comparison_svg, tree_svg

__all__ = ["LETTERS", "chart_and_table", "differences_section", "heading", "per_system_header",
           "scores_section", "sentence_section", "system_names", "system_suffix"]

# The systems of a report are named A and B.
LETTERS = ("A", "B")
# The kinds of a sentence the list filters by.
HEAD_KIND, LABEL_KIND = "head", "label"
FIRST_RIGHT, SECOND_RIGHT, BOTH_WRONG = "A right", "B right", "both wrong"


def system_names(paths: Sequence[str]) -> list[str]:
    """"A" for one system; "A", "B" for two."""
    return [LETTERS[i] for i in range(len(paths))] if len(paths) > 1 else [""]


def system_suffix(letters: Sequence[str], system: int) -> str:
    """What follows a column's name for a system: " A" or " B", nothing for one system."""
    return f" {letters[system]}" if letters[system] else ""


def per_system_header(first: Sequence[str], columns: Sequence[str], letters: Sequence[str],
                      n_systems: int) -> list[str]:
    """A table's header: the first columns, then the columns of each system in turn."""
    return [*first, *(f"{column}{system_suffix(letters, k)}"
                      for k in range(n_systems) for column in columns)]


def heading(title: str, gold: str, systems: Sequence[str], lines: Sequence[str]) -> str:
    """The top of a report: what it scores against what, and more lines (HTML)."""
    named = [f"system{' ' + LETTERS[i] if len(systems) > 1 else ''}: "
             f"<code>{escape(path)}</code>" for i, path in enumerate(systems)]
    rows = [f"gold: <code>{escape(gold)}</code>", *named, *lines]
    return f"<h1>{escape(title)}</h1>" + "".join(f"<p>{row}</p>" for row in rows)


def scores_section(meanings: Mapping[str, str], scores: Sequence[Mapping[str, object]],
                   json_lines: Sequence[str], cards: Sequence[str]) -> str:
    """The scores: a card for each key of cards, a table of every key of any system with its
    meaning (– where a system has no such key), and the JSON lines the command prints with
    --json (one per system), verbatim."""
    letters = system_names([""] * len(scores))
    scores = [flattened(score) for score in scores]
    meanings = {**meanings, **{key: f"{meanings.get(key.partition('.')[0], '')}: "
                               f"{key.partition('.')[2]}"
                               for score in scores for key in score if "." in key}}
    keys = list(dict.fromkeys(key for score in scores for key in score))
    card_html = []
    for key in cards:
        values = [_shown(score.get(key)) for score in scores]
        other = "".join(f'<div class="pp-other">{letter} {value}</div>'
                        for letter, value in zip(letters, values)) if len(scores) > 1 else ""
        card_html.append(f'<div class="pp-card"><div class="pp-value">{values[0]}</div>'
                         f'<div class="pp-name">{escape(key)}'
                         f'{" (A)" if len(scores) > 1 else ""}</div>{other}</div>')
    header = ["score", *(letter or "value" for letter in letters), "meaning"]
    rows = "".join(
        f'<tr data-key="{escape(key)}"><td>{escape(key)}</td>'
        + "".join(f'<td title="{escape(repr(score.get(key)))}">{escape(_shown(score.get(key)))}'
                  "</td>" for score in scores)
        + f'<td class="pp-text-cell">{escape(meanings.get(key, ""))}</td></tr>'
        for key in keys)
    head = "".join(f"<th>{escape(cell)}</th>" for cell in header)
    table = (f'<table class="pp-table" id="pp-scores"><thead><tr>{head}</tr></thead>'
             f"<tbody>{rows}</tbody></table>")
    raw = "\n".join(json_lines)
    return (f'<section><h2>Scores</h2><div class="pp-cards">{"".join(card_html)}</div>'
            f'<div class="pp-grid"><div class="pp-panel pp-scroll">{table}</div></div>'
            '<details class="pp-json"><summary>as <code>--json</code> prints them</summary>'
            f'<pre id="pp-json">{escape(raw)}</pre></details></section>')


def flattened(score: Mapping[str, object]) -> dict[str, object]:
    """The scores with each nested mapping (precision, recall, ... per metric) written as rows
    of their own, "precision.UAS", in the order of the keys."""
    flat: dict[str, object] = {}
    for key, value in score.items():
        if isinstance(value, Mapping):
            flat.update((f"{key}.{inner}", v) for inner, v in value.items())
        else:
            flat[key] = value
    return flat


def _shown(value: object) -> str:
    """A score as the tables show it: two decimals for a percentage, – for none, notes (a
    list of sentences) one after the other."""
    if value is None:
        return "–"
    if isinstance(value, list):
        return " ".join(map(str, value)) or "–"
    return f"{value:.2f}" if isinstance(value, float) else str(value)


def chart_and_table(title: str, chart: str, table: str, note: str = "") -> str:
    """A section: its title, a note, and the chart beside the table."""
    note_html = f'<p class="pp-note">{note}</p>' if note else ""
    return (f"<section><h2>{escape(title)}</h2>{note_html}<div class=\"pp-grid\">"
            f'<div class="pp-panel">{chart}</div>'
            f'<div class="pp-panel pp-scroll">{table}</div></div></section>')


def legend() -> str:
    items = [("gold", "gold tree (above the words)"), ("right", "system: right"),
             ("head", "system: wrong head"), ("label", "system: right head, wrong label")]
    html = "".join(f'<span><span class="pp-swatch {css}"></span>{escape(text)}</span>'
                   for css, text in items)
    return f'<div class="pp-legend">{html}</div>'


def _select(element_id: str, label: str, options: Sequence[tuple[str, str]]) -> str:
    choices = "".join(f'<option value="{escape(value)}">{escape(text)}</option>'
                      for value, text in options)
    return f'<label>{escape(label)} <select id="{element_id}">{choices}</select></label>'


def sentence_section(judged: Sequence[JudgedSentence], paths: Sequence[str],
                     category: Callable[[JudgedSentence, int, int], str],
                     category_name: str, units: tuple[str, str] = ("word", "words")) -> str:
    """The sentences with errors (one system) or where the two systems differ, drawn with the
    gold tree above the words and the system's below, most errors (differences) first;
    category(sentence, system, unit index) names the group a unit is filtered by (its gold
    relation, say), for the filter called category_name."""
    entries: list[tuple[int, int, SentenceEntry]] = []
    counts: dict[str, int] = {}
    for sentence in judged:
        entry = (_error_entry(sentence, category) if len(paths) == 1
                 else _difference_entry(sentence, category, units))
        if entry is None:
            continue
        weight, found = entry
        entries.append((-weight, sentence.number, found))
        for name in found.relations:
            counts[name] = counts.get(name, 0) + 1
    entries.sort(key=lambda item: item[:2])
    by_count = sorted(counts, key=lambda name: (-counts[name], name))
    options = [("", f"every {category_name}")] + [(name, f"{name} ({counts[name]})")
                                                   for name in by_count]
    if len(paths) == 1:
        kinds = [("", "every error"), (HEAD_KIND, "a wrong head"),
                 (LABEL_KIND, "a wrong label")]
        title = "Sentences with errors, most errors first"
    else:
        kinds = [("", "every difference"), (FIRST_RIGHT, "A right, B wrong"),
                 (SECOND_RIGHT, "B right, A wrong"), (BOTH_WRONG, "both wrong")]
        title = "Sentences where A and B differ, most differences first"
    controls = (_select("pp-relation", category_name, options)
                + _select("pp-kind", "with", kinds) + search_box())
    listed = sentence_list([entry for _, _, entry in entries], controls, legend())
    return f'<section id="pp-sentence-list"><h2>{escape(title)}</h2>{listed}</section>'


def _system_side(sentence: JudgedSentence, system: int, name: str) -> str:
    """The picture of one system's tree against the gold one: one picture when the system's
    units are the gold ones, else the two trees one under the other."""
    tree = sentence.systems[system]
    if sentence.has_gold_units(system):
        return comparison_svg(sentence.gold, tree,
                              [unit.mark for unit in sentence.judged[system]],
                              names=("gold", name))
    return (f'<p class="pp-caption">gold</p>{tree_svg(sentence.gold, standalone=False)}'
            f'<p class="pp-caption">{escape(name)}, over its own units</p>'
            f"{tree_svg(tree, standalone=False)}")


def _error_entry(sentence: JudgedSentence, category: Callable[[JudgedSentence, int, int], str]
                 ) -> tuple[int, SentenceEntry] | None:
    units = sentence.judged[0]
    heads = [i for i, unit in enumerate(units) if unit.mark == HEAD_WRONG]
    labels = [i for i, unit in enumerate(units) if unit.mark == LABEL_WRONG]
    if not heads and not labels:
        return None
    groups = sorted({category(sentence, 0, i) for i in heads + labels})
    kinds = ((HEAD_KIND,) if heads else ()) + ((LABEL_KIND,) if labels else ())
    errors = len(heads) + len(labels)
    note = (f"{errors} error{'s' * (errors != 1)}: {len(heads)} wrong head"
            f"{'s' * (len(heads) != 1)}, {len(labels)} wrong label{'s' * (len(labels) != 1)}")
    html = tree_entry(sentence.number, sentence.gold,
                      _system_side(sentence, 0, "system"), note)
    return errors, SentenceEntry(html, sentence.gold.sent_id, sentence.gold.text,
                                 tuple(groups), kinds)


def _difference_entry(sentence: JudgedSentence,
                      category: Callable[[JudgedSentence, int, int], str],
                      units: tuple[str, str]) -> tuple[int, SentenceEntry] | None:
    first, second = sentence.judged[0], sentence.judged[1]
    differing = [i for i, (a, b) in enumerate(zip(first, second))
                 if not a.excluded and _differ(a, b)]
    if not differing:
        return None
    kinds = {i: (FIRST_RIGHT if first[i].both_right else SECOND_RIGHT if second[i].both_right
                 else BOTH_WRONG) for i in differing}
    tally = {kind: sum(1 for k in kinds.values() if k == kind)
             for kind in (FIRST_RIGHT, SECOND_RIGHT, BOTH_WRONG)}
    note = (f"A and B differ on {len(differing)} {units[len(differing) != 1]}: A right on "
            f"{tally[FIRST_RIGHT]}, B right on {tally[SECOND_RIGHT]}, both wrong on "
            f"{tally[BOTH_WRONG]}")
    pictures = (_system_side(sentence, 0, "A") + _system_side(sentence, 1, "B"))
    html = tree_entry(sentence.number, sentence.gold, pictures, note)
    groups = sorted({category(sentence, 0, i) for i in differing})
    return len(differing), SentenceEntry(html, sentence.gold.sent_id, sentence.gold.text,
                                         tuple(groups), tuple(sorted(set(kinds.values()))))


def _differ(first: JudgedUnit, second: JudgedUnit) -> bool:
    """Whether two systems give a unit another head, or another label (the universal part)."""
    return (first.system_head != second.system_head
            or first.system_label.partition(":")[0] != second.system_label.partition(":")[0])


def differences_section(judged: Sequence[JudgedSentence],
                        category: Callable[[JudgedSentence, int, int], str],
                        category_name: str, units: tuple[str, str] = ("word", "words")) -> str:
    """Two systems: the scored units they give another head or label, by category, and which
    of the two is right there (head and label)."""
    rows: dict[str, list[int]] = {}
    for sentence in judged:
        for i, (a, b) in enumerate(zip(sentence.judged[0], sentence.judged[1])):
            if a.excluded or not _differ(a, b):
                continue
            counts = rows.setdefault(category(sentence, 0, i), [0, 0, 0, 0])
            counts[0] += 1
            counts[1 if a.both_right else 2 if b.both_right else 3] += 1
    total = [sum(counts[k] for counts in rows.values()) for k in range(4)]
    order = sorted(rows, key=lambda name: (-rows[name][0], name))
    table = html_table([category_name, "differ", "A right", "B right", "both wrong"],
                       [[name, *map(str, rows[name])] for name in order],
                       ["all", *map(str, total)], better=[(2, 3)])
    note = (f"A and B give {total[0]} scored {units[total[0] != 1]} another head or label: "
            f"A is right on {total[1]}, B on {total[2]}, neither on {total[3]} (right: head "
            "and label, as the scores count them).")
    return (f"<section><h2>Where A and B differ</h2><p class=\"pp-note\">{note}</p>"
            f'<div class="pp-grid"><div class="pp-panel pp-scroll">{table}</div></div>'
            "</section>")
