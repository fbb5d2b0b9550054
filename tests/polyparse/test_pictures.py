"""polyparse.render and the parsed sentences that Jupyter shows as pictures: what they draw,
and that parse still gives TokenLists (and lists) in every other way."""
from __future__ import annotations

import pickle
import xml.etree.ElementTree as ET

import conllu
import pytest

import polyparse
from tests.parser.cli.test_show import KNP, KNP_TREE
from tests.parser.views.test_text_tree import CROSSING_TEXT
from tests.parser.views.trees import CROSSING

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def parsed() -> list:
    parser = polyparse.load_parser()
    return parser.parse([[("Dogs", "NOUN"), ("bark", "VERB"), (".", "PUNCT")],
                         [("Cats", "NOUN"), ("sleep", "VERB")]])


def test_parse_still_gives_token_lists(parsed: list) -> None:
    assert isinstance(parsed, list) and all(isinstance(s, conllu.TokenList) for s in parsed)
    plain = conllu.parse("".join(sentence.serialize() for sentence in parsed))
    assert parsed == plain and parsed[0] == plain[0]
    again = pickle.loads(pickle.dumps(parsed))
    assert again == parsed and type(again[0]) is type(parsed[0])
    one = polyparse.load_parser().parse(plain[0])
    assert isinstance(one, conllu.TokenList) and one.metadata == plain[0].metadata


def test_jupyter_shows_the_trees(parsed: list) -> None:
    one = parsed[0]._repr_html_()
    assert one.count("<svg") == 1 and "<script" not in one and ".pp-tree" in one
    both = parsed._repr_html_()
    assert both.count("<svg") == 2 and "Cats sleep" in both


def test_render_text_svg_html() -> None:
    sentence = conllu.parse(CROSSING)[0]
    assert polyparse.render(sentence, format="text") == CROSSING_TEXT
    assert polyparse.render(CROSSING, format="text") == CROSSING_TEXT
    picture = ET.fromstring(polyparse.render(sentence).split("\n", 1)[1])
    arcs = [g for g in picture.iter(f"{SVG}g") if g.get("class", "").startswith("arc")]
    assert len(arcs) == 6
    page = polyparse.render([sentence, sentence], format="html")
    assert page.startswith("<!DOCTYPE html>") and "<script src" not in page
    assert "\x1b[" in polyparse.render(sentence, format="text", color=True)


def test_render_japanese() -> None:
    assert polyparse.render(KNP, format="text", input_format="knp") == KNP_TREE
    assert "太郎は" in polyparse.render(KNP, input_format="knp")


def test_render_refuses_what_it_cannot_draw() -> None:
    with pytest.raises(ValueError, match="an SVG picture is one sentence; got 2"):
        polyparse.render(CROSSING + CROSSING, format="svg")
    with pytest.raises(ValueError, match="format must be one of text, svg, html"):
        polyparse.render(CROSSING, format="png")
    with pytest.raises(polyparse.InputError, match=r"<text>:8: HEAD is missing"):
        polyparse.render(CROSSING.replace("\t2\tnmod", "\t_\tnmod"))
    with pytest.raises(TypeError, match="takes the file's text"):
        polyparse.render([], input_format="knp")
