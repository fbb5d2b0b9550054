"""parser/formats/gold_conll.py: reading, checking and writing OntoNotes/PropBank gold_conll."""
from __future__ import annotations

import io
import re
from pathlib import Path

import nltk
import pytest

from polyparse.parser.formats.gold_conll import (
    CONLL_2012,
    ArgumentSpan,
    ConllSrlSentence,
    GoldConllError,
    argument_cells,
    bracket_tree,
    gold_conll_documents,
    read_gold_conll,
    sentence_lines,
    write_gold_conll,
)

CORPUS_FILE = Path("propbank_wsj_sample") / "wsj_0001-0199.words.gold_conll"
SPLITS = (("train", 1, 139), ("dev", 140, 169), ("test", 170, 199))


def written(sentences: list[ConllSrlSentence], arguments: list | None = None) -> str:
    out = io.StringIO()
    for index, sentence in enumerate(sentences):
        write_gold_conll(sentence, out, None if arguments is None else arguments[index])
    return out.getvalue()


def node_spans(tree: nltk.Tree) -> set[tuple[int, int]]:
    """(first, last) word of every node but the root and the words: phrases and POS tags."""
    spans: set[tuple[int, int]] = set()

    def walk(node: nltk.Tree, first: int) -> int:
        if isinstance(node, str):
            return first + 1
        end = first
        for child in node:
            end = walk(child, end)
        spans.add((first, end - 1))
        return end

    end = 0
    for child in tree:
        end = walk(child, end)
    return spans


# -- the hand-written fixture ----------------------------------------------------------------


@pytest.fixture()
def good(data_dir: Path) -> Path:
    return data_dir / "gold_conll" / "good.gold_conll"


def test_sentences_words_and_predicates(good: Path) -> None:
    sentences = list(read_gold_conll(good))
    assert [(s.document_id, s.sentence_index, s.part, s.first_line, len(s)) for s in sentences] == [
        ("ontonotes/nw/wsj/00/wsj_0003", 0, "0", 1, 8),
        ("ontonotes/nw/wsj/00/wsj_0003", 1, "1", 10, 4),
        ("ontonotes/nw/wsj/00/wsj_0003", 2, "2", 15, 8),
        ("ontonotes/nw/wsj/01/wsj_0150", 0, "0", 24, 2),
        ("ontonotes/nw/wsj/01/wsj_0180", 0, "0", 27, 3),
    ]
    first = sentences[0]
    assert first.words == ("Ann", "gave", "Bob", "(", "one", ")", "book", ".")
    assert first.pos_tags == ("NNP", "VBD", "NNP", "-LRB-", "CD", "-RRB-", "NN", ".")
    assert first.parse_bits[:2] == ("(TOP(S(NP*)", "(VP*")
    assert first.lines_before == () and first.lines_after == ("",)
    assert first.line_number(3) == 4
    (gave,) = first.predicates
    assert (gave.token, gave.lemma, gave.roleset, gave.column) == (1, "give", "give.01", 0)
    assert gave.spans == (ArgumentSpan("ARG0", 0, 0), ArgumentSpan("V", 1, 1),
                          ArgumentSpan("ARG2", 2, 2), ArgumentSpan("ARG1", 3, 6))
    assert gave.arguments == (ArgumentSpan("ARG0", 0, 0), ArgumentSpan("ARG2", 2, 2),
                              ArgumentSpan("ARG1", 3, 6))
    assert first.argument_count == 3
    assert sentences[3].predicates == () and sentences[3].argument_count == 0


def test_a_verb_span_of_several_words_has_the_roleset_word_as_predicate(good: Path) -> None:
    gave_up = list(read_gold_conll(good))[1].predicates[0]
    assert (gave_up.token, gave_up.roleset) == (1, "give_up.06")
    assert gave_up.verb_spans == (ArgumentSpan("V", 1, 2),)
    assert gave_up.arguments == (ArgumentSpan("ARG0", 0, 0),)


def test_columns_follow_the_predicates_and_c_v_is_no_argument(good: Path) -> None:
    said, call = list(read_gold_conll(good))[2].predicates
    assert [(p.token, p.roleset, p.column) for p in (said, call)] == [
        (1, "say.01", 0), (4, "call_off.02", 1)]
    assert call.verb_spans == (ArgumentSpan("V", 4, 4), ArgumentSpan("C-V", 6, 6))
    assert [span.label for span in call.arguments] == ["ARG0", "ARGM-MOD", "ARG1"]
    assert said.arguments == (ArgumentSpan("ARG0", 0, 0), ArgumentSpan("ARG1", 2, 6))


def test_the_tree_is_the_parse_bits_with_words_and_bracket_words_escaped(good: Path) -> None:
    sentences = list(read_gold_conll(good))
    assert sentences[0].tree == (
        "(TOP (S (NP (NNP Ann)) (VP (VBD gave) (NP (NNP Bob)) (PRN (-LRB- -LRB-) (NP (CD one)) "
        "(-RRB- -RRB-)) (NP (NN book))) (. .)))")
    for sentence in sentences:
        tree = nltk.Tree.fromstring(sentence.tree)
        words = [{"(": "-LRB-", ")": "-RRB-"}.get(word, word) for word in sentence.words]
        assert tree.label() == "TOP" and tree.leaves() == words
    assert bracket_tree(["(", "x"], ["(", "NN"], ["(A*", "*)"]) == "(A (-LRB- -LRB-) (NN x))"


def test_round_trip_is_byte_for_byte(good: Path) -> None:
    sentences = list(read_gold_conll(good))
    text = good.read_text(encoding="utf-8")
    assert written(sentences) == text
    gold = [[p.arguments for p in s.predicates] for s in sentences]
    assert written(sentences, gold) == text
    assert sentence_lines(sentences[0]) == text.split("\n")[:9]


def test_documents_framed_by_begin_and_end_lines(data_dir: Path) -> None:
    path = data_dir / "gold_conll" / "documents.gold_conll"
    sentences = list(read_gold_conll(path))
    assert [s.sentence_index for s in sentences] == [0, 1, 0]
    assert sentences[0].lines_before == (
        "#begin document (ontonotes/nw/wsj/00/wsj_0003); part 000",)
    assert sentences[1].lines_after == ("", "#end document")
    assert sentences[2].lines_before == (
        "#begin document (ontonotes/nw/wsj/00/wsj_0003); part 001",)
    assert [len(document) for document in gold_conll_documents(sentences)] == [2, 1]
    assert written(sentences) == path.read_text(encoding="utf-8")


def test_documents_change_with_the_document_id(good: Path) -> None:
    documents = list(gold_conll_documents(read_gold_conll(good)))
    assert [(d[0].document_id[-8:], len(d)) for d in documents] == [
        ("wsj_0003", 3), ("wsj_0150", 1), ("wsj_0180", 1)]


def test_a_stream_is_read_with_its_name(good: Path) -> None:
    data = good.read_bytes()
    from_bytes = list(read_gold_conll(None, stream=io.BytesIO(data), name="in.gold_conll"))
    from_text = list(read_gold_conll(None, stream=io.StringIO(data.decode())))
    assert [s.words for s in from_bytes] == [s.words for s in from_text] == [
        s.words for s in read_gold_conll(good)]
    with pytest.raises(GoldConllError, match=r"^in\.gold_conll:2: "):
        list(read_gold_conll(None, stream=io.BytesIO(data.replace(b" 1   gave", b" 7   gave")),
                             name="in.gold_conll"))


# -- writing predicted spans -----------------------------------------------------------------


def test_predicted_spans_replace_the_argument_columns_only(good: Path) -> None:
    sentences = list(read_gold_conll(good))
    predicted = [[p.arguments for p in s.predicates] for s in sentences]
    predicted[0] = [[ArgumentSpan("ARG", 2, 2), ArgumentSpan("ARG", 4, 4),
                     ArgumentSpan("ARGUMENT", 6, 7)]]
    predicted[2] = [[], [ArgumentSpan("ARG", 0, 3)]]
    text = written(sentences, predicted)
    lines = text.split("\n")
    original = good.read_text(encoding="utf-8").split("\n")
    fixed_columns = re.compile(r"(?:\s*\S+){8}")
    # Two spaces, the openings right-aligned and the closings left-aligned on the "*".
    assert [line[fixed_columns.match(line).end():] for line in lines[:8]] == [
        "           * ",
        "         (V*)",
        "       (ARG*)",
        "           * ",
        "       (ARG*)",
        "           * ",
        "  (ARGUMENT* ",
        "           *)",
    ]
    assert lines[8:14] == original[8:14]
    reread = list(read_gold_conll(None, stream=io.StringIO(text)))
    assert [[list(p.arguments) for p in s.predicates] for s in reread] == [
        [list(spans) for spans in columns] for columns in predicted]
    assert [[p.verb_spans for p in s.predicates] for s in reread] == [
        [p.verb_spans for p in s.predicates] for s in sentences]
    for old, new in zip(original, lines):
        if old:
            assert fixed_columns.match(new).group() == fixed_columns.match(old).group()


@pytest.mark.parametrize("arguments, message", [
    ([], r"1 predicates, got arguments for 0"),
    ([[ArgumentSpan("ARG", 0, 1)]], r"overlaps another span"),
    ([[ArgumentSpan("ARG", 2, 3), ArgumentSpan("ARG", 3, 3)]], r"overlaps another span"),
    ([[ArgumentSpan("ARG", 2, 8)]], r"outside the sentence \(8 words\)"),
    ([[ArgumentSpan("A RG", 2, 2)]], r"label 'A RG'"),
    ([[ArgumentSpan("V", 2, 2)]], r"labelled V; the predicate's own spans are kept"),
])
def test_spans_that_cannot_be_written_are_refused(good: Path, arguments: list,
                                                  message: str) -> None:
    sentence = next(iter(read_gold_conll(good)))
    with pytest.raises(ValueError, match=message):
        sentence_lines(sentence, arguments)


def test_argument_cells() -> None:
    spans = [ArgumentSpan("V", 1, 1), ArgumentSpan("ARG1", 2, 4)]
    assert argument_cells(6, spans) == ["*", "(V*)", "(ARG1*", "*", "*)", "*"]


# -- the CoNLL-2012 layout -------------------------------------------------------------------

CONLL_2012_TEXT = """\
#begin document (nw/demo/00/demo_0001); part 000
nw/demo/00/demo_0001   0   0   Cats   NNS   (TOP(S(NP*)   -    -   -   -   *   (ARG0*)   (1)
nw/demo/00/demo_0001   0   1   sleep   VBP   (VP*)   sleep   01   1   -   *   (V*)   -
nw/demo/00/demo_0001   0   2   .   .   *))   -   -   -   -   *   *   -

#end document
"""


def test_the_conll_2012_layout_keeps_its_last_coreference_column() -> None:
    (sentence,) = read_gold_conll(None, stream=io.StringIO(CONLL_2012_TEXT), layout=CONLL_2012)
    (sleep,) = sentence.predicates
    assert (sleep.token, sleep.lemma, sleep.roleset) == (1, "sleep", "01")
    assert sleep.arguments == (ArgumentSpan("ARG0", 0, 0),)
    assert "".join(f"{line}\n" for line in sentence_lines(sentence)) == CONLL_2012_TEXT
    lines = sentence_lines(sentence, [[ArgumentSpan("ARG", 2, 2)]])
    assert [line.split()[-2:] for line in lines[1:4]] == [["*", "(1)"], ["(V*)", "-"],
                                                          ["(ARG*)", "-"]]
    assert lines[1].startswith("nw/demo/00/demo_0001   0   0   Cats   NNS   (TOP(S(NP*)   -  ")


# -- bad input: one line, file and line ------------------------------------------------------

# Also reported, in the same words, by `polyparse srl evaluate` (tests/parser/cli/test_srl.py)
# and corpora_scripts/gold_conll_to_tk.py (tests/corpora_scripts/test_gold_conll_to_tk.py).
TOOL_BAD_INPUTS = [
    ("argument_unclosed", 7, "argument column 1: (ARG1 is not closed by the end of the sentence "
                             "(line 11)"),
    ("argument_columns", 4, "1 argument column but 0 predicates (rows with a roleset in "
                            "column 8)"),
    ("parse_open", 6, "the parse bits leave 1 bracket open at the end of the sentence"),
    ("parse_too_many_closes", 6, "parse bit '*)))' closes 1 bracket more than are open"),
]

BAD_INPUTS = TOOL_BAD_INPUTS + [
    ("parse_closes_early", 5, "parse bit '(VP*)))' closes the parse tree before the sentence "
                              "ends"),
    ("parse_bit_form", 5, "parse bit '(VP**)' is not of the form (LABEL...*)..."),
    ("argument_close_without_open", 4, "argument column 1: '*)' closes no open span"),
    ("argument_nested", 8, "argument column 2: (V opens inside (ARGM-MOD of line 7 (spans do "
                           "not nest or cross)"),
    ("argument_cell", 4, "argument column 1: 'ARG1*)' is not *, (LABEL*, *) or (LABEL*)"),
    ("row_columns", 5, "8 columns, expected 9 as on the sentence's first row (line 4)"),
    ("no_verb_span", 4, "argument column 1 has no (V* span"),
    ("verb_span_elsewhere", 6, "argument column 1: its (V* span (lines 6-6) does not hold "
                               "exactly its predicate, the roleset of line 5"),
    ("word_number", 4, "word number 1, expected 0"),
    ("not_utf8", 4, "not valid utf-8 text (byte ff at byte column 43: invalid start byte)"),
    ("end_without_begin", 4, "#end document without a #begin document"),
    ("begin_without_end", 1, "the document begun here has no #end document"),
]


@pytest.mark.parametrize("name, line, problem", BAD_INPUTS)
def test_bad_input_is_one_line_with_file_and_line(data_dir: Path, name: str, line: int,
                                                  problem: str) -> None:
    path = data_dir / "gold_conll" / f"{name}.gold_conll"
    with pytest.raises(GoldConllError) as caught:
        list(read_gold_conll(path))
    assert str(caught.value) == f"{path}:{line}: {problem}"


def test_too_few_columns_for_the_layout(good: Path) -> None:
    text = "doc 0 0 word NN (TOP*) - -\n\n"
    with pytest.raises(GoldConllError, match=r"^<stream>:1: 8 columns, a row has at least 12 in "
                                             r"the conll-2012 layout$"):
        list(read_gold_conll(None, stream=io.StringIO(text), layout=CONLL_2012))
    with pytest.raises(GoldConllError, match=r"^x:1: unknown text encoding 'nope'$"):
        read_gold_conll(good, encoding="nope", name="x")


def test_an_empty_file_has_no_sentences(tmp_path: Path) -> None:
    empty = tmp_path / "empty.gold_conll"
    empty.write_bytes(b"")
    assert list(read_gold_conll(empty)) == []


# -- the real corpus -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def corpus_file(corpora: Path) -> Path:
    path = corpora / CORPUS_FILE
    if not path.is_file():
        pytest.skip(f"{path} not found")
    return path


@pytest.fixture(scope="module")
def corpus_sentences(corpus_file: Path) -> list[ConllSrlSentence]:
    return list(read_gold_conll(corpus_file))


def test_corpus_round_trip_is_byte_for_byte(corpus_file: Path,
                                            corpus_sentences: list[ConllSrlSentence]) -> None:
    text = corpus_file.read_text(encoding="utf-8")
    assert written(corpus_sentences) == text
    gold = [[p.arguments for p in s.predicates] for s in corpus_sentences]
    assert written(corpus_sentences, gold) == text


def test_corpus_counts(corpus_sentences: list[ConllSrlSentence]) -> None:
    assert len(corpus_sentences) == 2896
    assert len(list(gold_conll_documents(corpus_sentences))) == 144
    assert sum(len(s.predicates) for s in corpus_sentences) == 10407
    assert sum(s.argument_count for s in corpus_sentences) == 21794
    assert sum(len(p.verb_spans) for s in corpus_sentences for p in s.predicates) == 10421
    assert sum(len(s) for s in corpus_sentences) == 74615 - 2896
    assert all(s.part == str(s.sentence_index) for s in corpus_sentences)
    placeholders = [(s.document_id[-8:], s.sentence_index) for s in corpus_sentences
                    if set(s.words) == {"[WORD]"}]
    assert placeholders == [("wsj_0096", 32), ("wsj_0128", 7)]


def test_corpus_trees_parse_and_their_leaves_are_the_words(
        corpus_sentences: list[ConllSrlSentence]) -> None:
    for sentence in corpus_sentences:
        tree = nltk.Tree.fromstring(sentence.tree)
        assert tree.label() == "TOP"
        assert tree.leaves() == list(sentence.words), sentence.first_line


def test_corpus_split_figures_of_the_dataset_readme(
        corpus_sentences: list[ConllSrlSentence]) -> None:
    """datasets/srl_boundary/README.md: predicates 8,800 / 813 / 794; argument spans equal to a
    node of the tree 18,369 / 18,491 train, 1,710 / 1,720 dev, 1,563 / 1,583 test."""
    figures = {name: [0, 0, 0] for name, _, _ in SPLITS}
    for sentence in corpus_sentences:
        number = int(sentence.document_id[-4:])
        name = next(name for name, first, last in SPLITS if first <= number <= last)
        nodes = node_spans(nltk.Tree.fromstring(sentence.tree))
        for predicate in sentence.predicates:
            figures[name][0] += 1
            for span in predicate.arguments:
                figures[name][1] += (span.first, span.last) in nodes
                figures[name][2] += 1
    assert figures == {"train": [8800, 18369, 18491], "dev": [813, 1710, 1720],
                       "test": [794, 1563, 1583]}
