"""The segmenter end to end on made-up languages: a script written without spaces, tokens
holding spaces, multiword tokens; every character accounted for on any text; text already split
into sentences; long texts in pieces."""
from __future__ import annotations

import random

import pytest

from polyparse.parser.segmentation import segmenter as segmenter_module
from polyparse.parser.segmentation.model import SegmenterModel
from polyparse.parser.segmentation.scoring import raw_text_scores
from polyparse.parser.segmentation.sentences import detokenize
from tests.parser.segmentation import synthetic
from tests.parser.segmentation.conftest import sentences_of
from tests.parser.segmentation.texts import PIECES, random_text


def test_a_script_written_without_spaces(unspaced_model: SegmenterModel) -> None:
    assert not unspaced_model.spaces_in_tokens
    assert unspaced_model.header["training"]["sentence_gap"] == ""
    gold = sentences_of(synthetic.unspaced(100, seed=2))
    scores = raw_text_scores(unspaced_model, gold)
    assert scores["Tokens"] > 97.0
    # The made-up full stop always ends a sentence; sentences without it end anywhere.
    text = "".join(synthetic.unspaced_words()[:12]) + synthetic.FULL_STOP + \
        "".join(synthetic.unspaced_words()[20:26])
    found = unspaced_model.segment(text)
    holding = [sentence.tokens for sentence in found if synthetic.FULL_STOP in sentence.tokens]
    assert len(holding) == 1 and holding[0][-1] == synthetic.FULL_STOP
    assert detokenize(found) == text and all(space == "" for s in found for space in s.spaces)


def test_tokens_holding_spaces(spaced_model: SegmenterModel) -> None:
    assert spaced_model.spaces_in_tokens
    gold = sentences_of(synthetic.spaced_tokens(100, seed=2))
    scores = raw_text_scores(spaced_model, gold)
    assert scores["Tokens"] > 90.0 and scores["Sentences"] > 98.0
    found = spaced_model.segment(" ".join(synthetic.spaced_vocabulary()) + ".")
    spaced = [token for sentence in found for token in sentence.tokens if " " in token]
    assert len(spaced) >= 10


def test_a_token_across_a_line_break_has_a_one_line_form(spaced_model: SegmenterModel) -> None:
    # A two-syllable token the model joins in a sentence, written across a line break.
    for token in synthetic.spaced_vocabulary():
        if token.count(" ") != 1:
            continue
        text = f"Ba {token} ku."
        found = spaced_model.segment(text)
        if token not in found[0].tokens:
            continue
        broken = text.replace(token, token.replace(" ", "\n"))
        sentence = spaced_model.segment(broken)[0]
        position = found[0].tokens.index(token)
        assert sentence.tokens[position] == token.replace(" ", "\n")
        assert sentence.forms[position] == token
        assert sentence.tokenized().tokens[position] == token
        assert "\n" not in sentence.text
        return
    pytest.fail("the model joined no two-syllable token")


def test_multiword_tokens(multiword_model: SegmenterModel) -> None:
    gold = sentences_of(synthetic.multiword(100, seed=2))
    scores = raw_text_scores(multiword_model, gold)
    assert scores["Words"] > 99.0
    found = multiword_model.segment("Mesa kaldeni zla patu ko dar. Vika dar soro.")
    assert [sentence.words for sentence in found] == [
        [["Mesa"], ["kalde", "ni"], ["zo", "la"], ["patu"], ["ko"], ["da", "ra"], ["."]],
        [["Vika"], ["dar"], ["soro"], ["."]]]
    # kalde was never seen with its pronoun: a suffix rule cut it.
    assert "kaldeni" not in multiword_model.segmenter.splitter.table


@pytest.mark.parametrize("seed", range(10))
def test_every_character_is_accounted_for(seed: int, spaced_model: SegmenterModel,
                                          unspaced_model: SegmenterModel,
                                          multiword_model: SegmenterModel) -> None:
    text = random_text(seed, 2000)
    for model in (spaced_model, unspaced_model, multiword_model):
        for presegmented in (False, True):
            found = model.segment(text, presegmented)
            assert detokenize(found) == text
            for sentence in found:
                assert all(token and not token[0].isspace() and not token[-1].isspace()
                           for token in sentence.tokens)
                assert len(sentence.tokens) == len(sentence.spaces) == len(sentence.words)
                assert "\n" not in sentence.text and "\t" not in "".join(sentence.forms)


@pytest.mark.parametrize("text", ["", " ", "\n\n\n", "\t \x00 \u2029"])
def test_text_without_characters_has_no_sentences(text: str,
                                                 multiword_model: SegmenterModel) -> None:
    assert multiword_model.segment(text) == []
    assert multiword_model.segment(text, presegmented=True) == []


def test_edges(multiword_model: SegmenterModel) -> None:
    model = multiword_model
    # Whitespace before the first token, control characters between tokens.
    found = model.segment("  \tMesa\x00patu\x07\n")
    assert found[0].before == "  \t" and found[0].tokens == ["Mesa", "patu"]
    assert found[0].spaces == ["\x00", "\x07\n"]
    # Paragraphs always end a sentence and start a paragraph; the first sentence starts one.
    found = model.segment("mesa patu\n\nsoro vika\n\n\nlenda")
    assert [s.tokens for s in found] == [["mesa", "patu"], ["soro", "vika"], ["lenda"]]
    assert [s.new_paragraph for s in found] == [True, True, True]
    # A very long line without spaces or punctuation, and another script.
    line = "mesa" * 50_000
    found = model.segment(line)
    assert detokenize(found) == line
    other = "Ηγουμενίτσα 480 χλμ. 日本語の文です。😀 \ud800 e\u0301"
    assert detokenize(model.segment(other)) == other


def test_presegmented_text_keeps_each_line_one_sentence(multiword_model: SegmenterModel
                                                        ) -> None:
    text = "Mesa tumani. Vika seko.\n\n  soro dar\nlenda zla patu\n"
    found = multiword_model.segment(text, presegmented=True)
    assert [s.tokens for s in found] == [
        ["Mesa", "tumani", ".", "Vika", "seko", "."], ["soro", "dar"],
        ["lenda", "zla", "patu"]]
    assert [s.new_paragraph for s in found] == [True, True, False]
    assert found[1].words[1] == ["dar"] and found[2].words[1] == ["zo", "la"]
    assert detokenize(found) == text


def test_pieces_give_the_same_sentences(monkeypatch: pytest.MonkeyPatch,
                                        spaced_model: SegmenterModel) -> None:
    rng = random.Random(5)
    paragraphs = [" ".join(rng.choices(synthetic.spaced_vocabulary(), k=40)) + "."
                  for _ in range(30)]
    text = "\n\n".join(paragraphs) + "\n \n" + random_text(3, 500)
    whole = spaced_model.segment(text)
    monkeypatch.setattr(segmenter_module, "PIECE_CHARS", 200)
    assert len(list(segmenter_module._pieces(text))) > 10
    assert spaced_model.segment(text) == whole
    assert detokenize(whole) == text


def test_a_model_reads_text_of_any_script(unspaced_model: SegmenterModel) -> None:
    rng = random.Random(9)
    text = "".join(rng.choice(PIECES) for _ in range(5000))
    found = unspaced_model.segment(text)
    assert detokenize(found) == text and found
