"""Raw text -> sentences -> CoNLL-U with the bundled pipeline's tokenizer (a learned segmenter):
every character comes back (random text), sentences end where English ones do, whitespace and
control characters are kept."""
from __future__ import annotations

import io

import conllu
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from polyparse.parser.formats.conll import read_conll
from polyparse.parser.tokenize.conllu_blocks import text_of_blocks
from polyparse.parser.tokenize.model import load_tokenizer
from polyparse.parser.tokenize.reading import read_raw
from polyparse.parser.tokenize.segmenter import detokenize, split_gaps

ALPHABET = st.sampled_from(list("aAbZ z0 9.,!?;:'\"’()[]-/$%@#&*\n\t\u00a0é漢\r\x0c\u2028"
                                "\x00\x07\x1b\x85\u3000\\|") + [
    "don't", "U.S.", "Mr.", "http://x.org/a", "gonna", " ", "\n\n", "...", "cannot"])


# Loaded once: the random-text test runs many examples.
BUNDLED = load_tokenizer()


@pytest.fixture(scope="module")
def tokenizer():
    return BUNDLED


def sentences_of(text: str, tokenizer) -> list:
    return list(read_raw(stream=io.StringIO(text), tokenizer=tokenizer))


@settings(max_examples=120, deadline=None)
@given(st.lists(ALPHABET, max_size=40).map("".join))
# A line of a control character alone is a blank line: the paragraph after it keeps it.
@example("\x00\n\na")
def test_random_text_comes_back_exactly(text: str) -> None:
    tokenizer = BUNDLED
    segmented = list(tokenizer.text_segmenter().sentences(text))
    assert detokenize(segmented) == ("" if only_gaps(text) else text)
    if only_gaps(text):
        return
    # The stream reader reads line breaks as "\n" and ends the last line with one; whitespace
    # after the blank line that ends the last paragraph is not kept.
    as_lines = text.replace("\r\n", "\n").replace("\r", "")
    expected = as_lines if as_lines.endswith("\n") else as_lines + "\n"
    sentences = sentences_of(text.replace("\r", ""), tokenizer)
    blocks = "".join("\n".join(s.lines) + "\n\n" for s in sentences)
    back = text_of_blocks(s.lines for s in sentences)
    assert expected.startswith(back) and only_gaps(expected[len(back):])
    assert back.rstrip() == expected.rstrip()
    assert len(list(read_conll(None, stream=io.StringIO(blocks)))) == len(sentences)
    for tokens in conllu.parse(blocks):
        assert spelled(tokens) == " ".join(tokens.metadata["text"].split())
    for sentence in sentences:
        text_line = next(line for line in sentence.lines if line.startswith("# text = "))
        assert len(text_line.splitlines()) == 1


def only_gaps(text: str) -> bool:
    """Whether text holds no token: whitespace and control characters only."""
    return not "".join(split_gaps(text)[0::2])


def spelled(tokens: conllu.TokenList) -> str:
    """The tokens of a TokenList (multiword tokens once) with a space unless SpaceAfter=No."""
    parts = []
    inside = 0
    for token in tokens:
        if isinstance(token["id"], tuple):
            inside = token["id"][2]
        elif token["id"] <= inside:
            continue
        parts.append(token["form"])
        if (token["misc"] or {}).get("SpaceAfter") != "No":
            parts.append(" ")
    return " ".join("".join(parts).split())


def test_sentences_and_paragraphs(tokenizer) -> None:
    text = ("The dog barked. It was late, wasn't it? Mr. Smith lives in the U.S. now.\n"
            "\n"
            "A new paragraph\n"
            "goes on here.\n")
    sentences = sentences_of(text, tokenizer)
    texts = [next(line for line in s.lines if line.startswith("# text = ")) for s in sentences]
    assert texts == ["# text = The dog barked.", "# text = It was late, wasn't it?",
                     "# text = Mr. Smith lives in the U.S. now.",
                     "# text = A new paragraph goes on here."]
    assert sentences[0].lines[:3] == ["# newdoc", "# newpar", "# sent_id = 1"]
    assert "# newpar" not in sentences[1].lines and "# newpar" in sentences[3].lines
    assert sentences[1].form == ["It", "was", "late", ",", "was", "n't", "it", "?"]
    assert "5-6\twasn't\t_\t_\t_\t_\t_\t_\t_\t_" in sentences[1].lines
    assert sentences[3].start_line == 3
    assert sentences[1].head == [-1] * 8 and sentences[1].upos == ["_"] * 8


def test_tokens_format(tokenizer) -> None:
    text = "I do n't know .\nShe doesn't  either\n\nNew one\n"
    sentences = list(read_raw(stream=io.StringIO(text), fmt="tokens", tokenizer=tokenizer))
    assert [s.form for s in sentences] == [["I", "do", "n't", "know", "."],
                                           ["She", "does", "n't", "either"], ["New", "one"]]
    assert "# text = She doesn't  either" in sentences[1].lines
    assert "# newpar" in sentences[2].lines and "# newpar" not in sentences[1].lines


def test_empty_text_has_no_sentences(tokenizer) -> None:
    assert sentences_of("", tokenizer) == [] and sentences_of("  \n\n \n", tokenizer) == []


@pytest.mark.parametrize("tokens, spaces, text", [
    (["One", "here", "."], [" ", "", " "], "One here."),
    (["One", "here", "."], [" ", " ", ""], "One here ."),
    (["a", "b"], ["\n", "\n\n"], "a b"),
    (["a", "b", "c"], ["\t", "  ", ""], "a b  c"),
    (["x"], [""], "x"),
])
def test_sentence_text(tokens: list[str], spaces: list[str], text: str) -> None:
    from polyparse.parser.tokenize.segmenter import TokenizedSentence

    sentence = TokenizedSentence(tokens, spaces, [[t] for t in tokens], False)
    assert sentence.text == text
    assert sentence.text == "".join(t + s for t, s in zip(tokens, spaces[:-1] + [""])
                                    ).replace("\n", " ").replace("\t", " ")


@pytest.mark.parametrize("spaces, value", [
    (" \t\n\r", "\\s\\t\\n\\r"),
    ("\u00a0", "\\u00A0"),
    ("\x00\x07\u2028 ", "\\u0000\\u0007\\u2028\\s"),
    ("|\\", "\\p\\\\"),
])
def test_spaces_escape_and_come_back(spaces: str, value: str) -> None:
    """UD's escapes for space, tab, line breaks, | and \\; \\u and four hex digits for any
    other whitespace or control character (MISC may not hold them raw)."""
    from polyparse.parser.tokenize.conllu_blocks import _escape, unescape_spaces

    assert _escape(spaces) == value
    assert unescape_spaces(value) == spaces
    assert unescape_spaces("\\\\u00A0") == "\\u00A0"


def test_control_characters_separate_tokens_and_are_kept(tokenizer) -> None:
    """NUL and BEL are no word forms: they separate tokens, as whitespace does, and come back
    from SpacesAfter; `# text` shows a space in their place."""
    text = "The dog\x00barked.\x07It\x07\x07left.\n"
    sentences = sentences_of(text, tokenizer)
    assert [s.form for s in sentences] == [["The", "dog", "barked", "."], ["It", "left", "."]]
    assert "2\tdog\t_\t_\t_\t_\t_\t_\t_\tSpacesAfter=\\u0000" in sentences[0].lines
    assert "# text = It  left." in sentences[1].lines
    assert text_of_blocks(s.lines for s in sentences) == text


def test_tokens_format_keeps_the_whitespace_of_its_lines(tokenizer) -> None:
    text = "  I  do\u00a0n't\x00know .\t\nShe doesn't\n"
    sentences = list(read_raw(stream=io.StringIO(text), fmt="tokens", tokenizer=tokenizer))
    assert [s.form for s in sentences] == [["I", "do", "n't", "know", "."],
                                           ["She", "does", "n't"]]
    assert text_of_blocks(s.lines for s in sentences) == text


def test_tokens_format_gives_its_lines_back(tokenizer) -> None:
    text = "I do n't know .\nShe doesn't\n"
    sentences = list(read_raw(stream=io.StringIO(text), fmt="tokens", tokenizer=tokenizer))
    assert text_of_blocks(s.lines for s in sentences) == text
    assert "2-3\tdoesn't\t_\t_\t_\t_\t_\t_\t_\tSpacesAfter=\\n" in sentences[1].lines


def test_a_tagger_sets_the_columns_of_lists_and_lines(tokenizer) -> None:
    from polyparse.parser.formats.conll import write_conll
    from polyparse.parser.tokenize.conllu_blocks import set_word_columns

    sentence = sentences_of("It wasn't.", tokenizer)[0]
    set_word_columns(sentence, upos=["PRON", "AUX", "PART", "PUNCT"],
                     xpos=["PRP", "VBD", "RB", "."], lemma=["it", "be", "not", "."])
    assert sentence.upos == ["PRON", "AUX", "PART", "PUNCT"] and sentence.lemma[1] == "be"
    out = io.StringIO()
    write_conll(sentence, [0, 1, 1, 1], ["root", "cop", "advmod", "punct"], out)
    assert "2\twas\tbe\tAUX\tVBD\t_\t1\tcop\t_\t_" in out.getvalue()
    assert "2-3\twasn't\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No" in out.getvalue()
    with pytest.raises(ValueError, match="3 upos values for 4 words"):
        set_word_columns(sentence, upos=["X", "X", "X"])
    with pytest.raises(ValueError, match="unknown column"):
        set_word_columns(sentence, deprel=["x"] * 4)


def test_a_quote_after_a_period_opens_or_closes_by_its_spacing(tokenizer) -> None:
    """`said. "We` ends the sentence before the quote, `late." Then` after it; never both."""
    def texts(text: str) -> list[str]:
        return [line[len("# text = "):] for s in sentences_of(text, tokenizer) for line in s.lines
                if line.startswith("# text = ")]

    assert texts('The court ruled on Tuesday. "We are pleased," the lawyer said. "It is over."') \
        == ["The court ruled on Tuesday.", '"We are pleased," the lawyer said.', '"It is over."']
    assert texts('It was late." Then we left.') == ['It was late."', "Then we left."]
