"""SVG pictures (parser/views/svg_tree.py): they parse as XML, hold one arc per word but the
root, and put the arcs and their labels where they belong, on a hand-checked sentence with a
crossing arc."""
from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from polyparse.parser.views.svg_tree import comparison_svg, tree_svg
from tests.parser.views.trees import CROSSING, conllu, tree_of

SVG = "{http://www.w3.org/2000/svg}"
PATH = re.compile(r"M(-?\d+) (-?\d+)V(-?\d+)Q-?\d+ -?\d+ -?\d+ (-?\d+)H-?\d+Q-?\d+ -?\d+ (-?\d+) "
                  r"-?\d+V(-?\d+)$")


def parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def groups(root: ET.Element, kind: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if kind in g.get("class", "").split()]


def arc_geometry(arc: ET.Element) -> dict[str, float]:
    """left x, right x, the y of the top and of the base of an arc's line, its arrow's tip and
    its label's place."""
    line, arrow = (path.get("d") for path in arc.findall(f"{SVG}path"))
    left, base, _, top, right, end = map(int, PATH.match(line).groups())
    tip_x, tip_y = map(int, re.match(r"M(-?\d+) (-?\d+)l", arrow).groups())
    label = arc.find(f"{SVG}text")
    assert base == end
    return {"left": left, "right": right, "top": top, "base": base, "tip_x": tip_x,
            "tip_y": tip_y, "label_x": float(label.get("x")), "label_y": float(label.get("y")),
            "label": label.text}


@pytest.fixture(scope="module")
def picture() -> ET.Element:
    return parsed(tree_svg(tree_of(CROSSING)))


def test_a_standalone_picture_is_an_svg_document_with_its_style(picture: ET.Element) -> None:
    assert picture.tag == f"{SVG}svg"
    assert float(picture.get("width")) > 0 and float(picture.get("height")) > 0
    assert picture.find(f"{SVG}style").text.count(".pp-tree") > 5
    assert picture.find(f"{SVG}title").text == "crossing-1: A hearing is scheduled on it today"
    assert tree_svg(tree_of(CROSSING)).startswith('<?xml version="1.0" encoding="UTF-8"?>\n')


def test_one_arc_per_word_but_the_root(picture: ET.Element) -> None:
    arcs = groups(picture, "arc")
    assert sorted((int(a.get("data-dependent")), int(a.get("data-head"))) for a in arcs) == \
        [(1, 2), (2, 4), (3, 4), (5, 6), (6, 2), (7, 4)]
    assert [arc_geometry(a)["label"] for a in arcs] == ["det", "nsubj", "aux", "case", "nmod",
                                                        "obl:tmod"]
    (root,) = groups(picture, "root")
    assert root.get("data-dependent") == "4" and root.find(f"{SVG}text").text == "root"


def test_words_in_order_with_their_tags_below(picture: ET.Element) -> None:
    words = groups(picture, "word")
    assert [w.get("data-word") for w in words] == [str(i) for i in range(1, 8)]
    forms = [w.find(f"{SVG}text[@class='form']") for w in words]
    assert [f.text for f in forms] == ["A", "hearing", "is", "scheduled", "on", "it", "today"]
    xs = [float(f.get("x")) for f in forms]
    assert xs == sorted(xs) and len(set(xs)) == 7
    upos, xpos = words[3].findall(f"{SVG}text[@class='tag']")
    assert (upos.text, xpos.text) == ("VERB", "VBN")
    assert float(forms[3].get("y")) < float(upos.get("y")) < float(xpos.get("y"))


def test_arcs_and_labels_are_where_they_belong(picture: ET.Element) -> None:
    """Each arc runs from near its head's centre to near its dependent's, its arrow at the
    dependent, its label on the middle of its top; the heights are those worked out by hand
    (each arc above those it spans; the crossing nmod one level above obl:tmod): det, aux and
    case 1, nsubj and obl:tmod 2, nmod 3."""
    centres = {int(w.get("data-word")): float(w.find(f"{SVG}text").get("x"))
               for w in groups(picture, "word")}
    form_top = min(float(w.find(f"{SVG}text").get("y")) for w in groups(picture, "word")) - 15
    tops = {}
    for arc in groups(picture, "arc"):
        head, dependent = int(arc.get("data-head")), int(arc.get("data-dependent"))
        found = arc_geometry(arc)
        low, high = sorted((head, dependent))
        assert abs(found["left"] - centres[low]) <= 12 and abs(found["right"] - centres[high]) <= 12
        assert found["tip_x"] == (found["left"] if dependent < head else found["right"])
        assert found["tip_y"] == found["base"] and form_top - 6 <= found["base"] <= form_top
        assert abs(found["label_x"] - (found["left"] + found["right"]) / 2) <= 1
        assert 0 <= found["label_y"] - found["top"] <= 6
        tops[found["label"]] = found["top"]
    assert tops["det"] == tops["aux"] == tops["case"] > tops["nsubj"] == tops["obl:tmod"] > \
        tops["nmod"]
    level = tops["det"] - tops["nsubj"]
    assert tops["nsubj"] - tops["nmod"] == level > 0


def test_the_crossing_arcs_cross(picture: ET.Element) -> None:
    """The right leg of hearing -> it goes down through the top of scheduled -> today: two
    lines that cross, not one line the two arcs share; the non-projective arc is marked."""
    arcs = {arc_geometry(a)["label"]: (a, arc_geometry(a)) for a in groups(picture, "arc")}
    nmod_arc, nmod = arcs["nmod"]
    _, obl = arcs["obl:tmod"]
    assert obl["left"] < nmod["right"] < obl["right"]
    assert nmod["top"] < obl["top"] < nmod["base"]
    assert "crossing" in nmod_arc.get("class").split()
    assert all("crossing" not in a.get("class").split() for name, (a, _) in arcs.items()
               if name != "nmod")
    (root,) = groups(picture, "root")
    root_x = int(re.match(r"M(\d+)", root.find(f"{SVG}path").get("d")).group(1))
    assert nmod["left"] < root_x < nmod["right"]


def test_text_is_escaped() -> None:
    tree = tree_of(conllu([("<&>", "SYM", "'\"", 0, "root")],
                          "# sent_id = a&b\n# text = <&>\n"))
    picture = parsed(tree_svg(tree))
    assert picture.find(f"{SVG}title").text == "a&b: <&>"
    assert [t.text for t in picture.iter(f"{SVG}text")] == ["<&>", "SYM", "'\"", "root"]


def test_a_comparison_draws_gold_above_and_the_system_below() -> None:
    gold = tree_of(CROSSING)
    system = gold.with_tree((2, 4, 4, 0, 6, 4, 4), ("det", "nsubj", "aux", "root", "case",
                                                    "obl", "obj"))
    marks = ["", "", "", "", "", "head-wrong", "label-wrong"]
    picture = parsed(comparison_svg(gold, system, marks, standalone=True))
    gold_arcs = groups(picture, "gold")
    system_arcs = groups(picture, "system")
    assert len(gold_arcs) == 7 and len(system_arcs) == 7   # 6 arcs and the root each
    words_y = float(picture.find(f".//{SVG}text[@class='form']").get("y"))
    for arc in gold_arcs + system_arcs:
        y = [int(v) for v in re.findall(r"V(-?\d+)", arc.find(f"{SVG}path").get("d"))]
        assert all(v < words_y for v in y) if "gold" in arc.get("class") else \
            all(v > words_y for v in y)
    wrong = {a.get("data-dependent"): a.get("class") for a in system_arcs}
    assert wrong["6"] == "arc system head-wrong" and wrong["7"] == "arc system label-wrong"
    assert wrong["1"] == "arc system"
    word_classes = [w.get("class") for w in groups(picture, "word")]
    assert word_classes[5:] == ["word head-wrong", "word label-wrong"]
    sides = [t.text for t in picture.iter(f"{SVG}text") if t.get("class") == "side"]
    assert sides == ["gold", "system"]
