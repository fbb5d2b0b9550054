"""parser/segmentation/treebank_data.py: the text made of a treebank's tokens."""
from __future__ import annotations

import io

from polyparse.parser.formats.conll import read_conll
from polyparse.parser.segmentation.treebank_data import treebank_text

CONLLU = """\
# newdoc
# text = Hà Nội, x.
1\tHà Nội\t_\tX\t_\t_\t0\tdep\t_\tSpaceAfter=No
2\t,\t_\tX\t_\t_\t1\tdep\t_\t_
3-4\tx.\t_\t_\t_\t_\t_\t_\t_\t_
3\tx\t_\tX\t_\t_\t1\tdep\t_\t_
4\t.\t_\tX\t_\t_\t1\tdep\t_\t_

# text = Yes
1\tYes\t_\tX\t_\t_\t0\tdep\t_\t_

# newpar
# text = No
1\tNo\t_\tX\t_\t_\t0\tdep\t_\tSpaceAfter=No

"""


def read(text: str) -> list:
    return list(read_conll(None, stream=io.StringIO(text), require_deprel=False))


def test_text_holds_the_tokens_spaces_and_paragraphs() -> None:
    data = treebank_text(read(CONLLU))
    assert data.text == "Hà Nội, x. Yes\n\nNo"
    assert data.tokens == ["Hà Nội", ",", "x.", "Yes", "No"]
    assert [data.text[a:b] for a, b in zip(data.starts, data.ends)] == data.tokens
    assert data.sentence_ends.tolist() == [0, 0, 1, 1, 1]
    assert data.words[2] == ["x", "."]
    assert data.sentence_gap == " " and data.has_spaces_in_tokens
    assert data.sentences()[0][2] == ("x.", ["x", "."])


def test_sentences_mostly_closed_are_joined_without_spaces() -> None:
    block = "# text = ab\n1\ta\t_\tX\t_\t_\t0\tdep\t_\tSpaceAfter=No\n" \
            "2\tb\t_\tX\t_\t_\t1\tdep\t_\tSpaceAfter=No\n\n"
    data = treebank_text(read(block * 3))
    assert data.text == "ababab" and data.sentence_gap == ""
    assert not data.has_spaces_in_tokens
    # A paragraph's last sentence does not count: a blank line follows it.
    closed = CONLLU.replace("3-4\tx.\t_\t_\t_\t_\t_\t_\t_\t_",
                            "3-4\tx.\t_\t_\t_\t_\t_\t_\t_\tSpaceAfter=No")
    data = treebank_text(read(closed))
    assert data.sentence_gap == "" and data.text == "Hà Nội, x.Yes\n\nNo"


def test_spaces_come_from_the_text_where_the_tokens_spell_it() -> None:
    # The file has no SpaceAfter=No: `# text` says where the spaces are.
    block = "# text = Hi,  you.\n1\tHi\t_\tX\t_\t_\t0\tdep\t_\t_\n" \
            "2\t,\t_\tX\t_\t_\t1\tdep\t_\t_\n3\tyou\t_\tX\t_\t_\t1\tdep\t_\t_\n" \
            "4\t.\t_\tX\t_\t_\t1\tdep\t_\t_\n\n"
    assert treebank_text(read(block)).text == "Hi,  you."
    # A text the tokens do not spell: SpaceAfter decides.
    assert treebank_text(read(block.replace("Hi,  you.", "Hello you"))).text == "Hi , you ."
    # Without a text line.
    assert treebank_text(read(block.replace("# text = Hi,  you.\n", ""))).text == "Hi , you ."
