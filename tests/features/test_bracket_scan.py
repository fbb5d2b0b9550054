"""The fast SVM-light-TK reader (features/bracket_scan.pyx) against the nltk reference: identical
forests, labels, vectors and one-line errors."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from nltk import Tree

from polyparse.features.bracket_scan import scan_svmlight_tk, tree_orders
from polyparse.features.interning import StringInterner
from polyparse.features.svmlight_tk import (
    SvmlightTkFormatError,
    TreeInstances,
    parse_svmlight_tk_bytes,
    read_svmlight_tk,
)

from ..classifiers.tree_kernels.test_kernels import random_tree

ARRAYS = ("tree_ptr", "label", "production", "child_ptr", "children", "subtree_end", "is_word",
          "is_leaf", "is_preterminal", "production_order", "label_order")


def assert_identical(fast: TreeInstances, reference: TreeInstances) -> None:
    for name in ARRAYS:
        a, b = getattr(fast.forest, name), getattr(reference.forest, name)
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    assert fast.forest.labels.strings == reference.forest.labels.strings
    assert fast.forest.productions.strings == reference.forest.productions.strings
    assert fast.labels.dtype == reference.labels.dtype
    assert np.array_equal(fast.labels, reference.labels)
    assert np.array_equal(fast.instance_ptr, reference.instance_ptr)
    assert fast.vectors == reference.vectors
    assert fast.line_numbers.dtype == reference.line_numbers.dtype == np.int64
    assert np.array_equal(fast.line_numbers, reference.line_numbers)


def both(data: bytes, **kwargs) -> tuple[TreeInstances, TreeInstances]:
    return (parse_svmlight_tk_bytes(data, "x.tk", reader="fast", **kwargs),
            parse_svmlight_tk_bytes(data, "x.tk", reader="nltk", **kwargs))


EDGE_CASES = [
    "+1 |BT| (VP (VB-P join) (NP-B (DT the) (NN board))) |ET| 1:1 2:1 7:1\n",
    "-1 |BT| |ET|\n",
    "-1 |BT|   |BT| |ET| 3:1\n",
    "1 |BT| (A x) |BT| |BT| (B y) |ET|\n",
    "-1 |BT| (PRN (-LRB- -LRB-) (NP (NN x)) (-RRB- -RRB-)) |ET| 2:1\n",
    "+1 |BT| (S (NP (NN-B #)) (VP (VBZ-P has))) |ET| 3:1 # comment |BV|\n",
    "+1 |BT| (S (NN# #a#b) (X #)) |ET| 3:1#c\n",
    "+1 |BT| (S (NN café) (NN 東京) (NN ü)) |ET| 3:1\n",
    "+1 |BT| (NP (NN a\\(b\\)) (X\\( \\)y)) |ET| 3:1\n",
    "+1 |BT| ( (S (NP x))) |ET|\n",
    "+1 |BT| (S (X) (Y) z) |ET|\n",
    "+1 |BT| (\tS\t(NP  x )\r) |ET|\t1:1\r\n",
    "  +1   |BT|(S x)|ET|1:1\n",
    "0.5 |BT| (S x) |ET|\n-2 |BT| (S y) |ET|\n",
    "1e0 |BT| (S x) |ET|\n",
    "# a comment line\n\n   \n+1 |BT| (S x) |ET|",
    "+1 |BT| (A (B (C (D (E (F (G (H (I (J (K (L x)))))))))))) |ET|\n",
    "+1 |BT| (NN \\() |ET|\n",
    "+1 |BT| (NN a\\)) |ET|\n",
    "+1 |BT| (A x) |ET| |EV|\n",
    "+1 |BT| (A x) |ET| 1:1 4:1 |EV|  # comment |BV|\n",
    "-1 |BT| (A x) |BT| (B y) |ET|2:1|EV|\n",
    "+1 |BT| (NP (-LRB- () (NN x) (-RRB- ))) |ET| 1:1\n",
    "+1 |BT| (S (NP (-LRB- ( ) (NN y) (-RRB- ) )) (VP (V z))) |ET|\n",
    "+1 |BT| (NP (NN x) (-RRB- ))) |ET|\n",
    "+1 |BT| (S (X) (-LRB- () (Y)) |ET|\n",
]


@pytest.mark.parametrize("text", EDGE_CASES)
def test_edge_cases_match_nltk(text: str) -> None:
    assert_identical(*both(text.encode()))


def test_all_edge_cases_in_one_file_with_shared_interners() -> None:
    data = "".join(case if case.endswith("\n") else case + "\n" for case in EDGE_CASES).encode()
    labels, productions = StringInterner(["S", "zzz"]), StringInterner(["S -> x"])
    fast = parse_svmlight_tk_bytes(data, "x.tk", labels, productions, reader="fast")
    assert fast.forest.labels is labels and fast.forest.productions is productions
    reference = parse_svmlight_tk_bytes(data, "x.tk", StringInterner(["S", "zzz"]),
                                        StringInterner(["S -> x"]), reader="nltk")
    assert_identical(fast, reference)


def test_other_white_space_takes_the_reference_path() -> None:
    data = "+1 |BT| (S\u00a0x (NP\u2003y)) |ET| 1:1\n-1 |BT| (S\x0bx) |ET|\n".encode()
    assert_identical(*both(data))


def test_random_trees_match_nltk() -> None:
    rng = np.random.default_rng(7)
    lines = []
    for _ in range(400):
        trees = [random_tree(rng, "AB-C", "xy#é|") for _ in range(int(rng.integers(0, 3)))]
        texts = [t.pformat(margin=int(rng.integers(5, 200))).replace("\n", " ") for t in trees]
        if not texts or rng.random() < 0.2:
            texts.append("")
        ids = sorted(set(rng.integers(1, 30, size=int(rng.integers(0, 5))).tolist()))
        vector = " ".join(f"{i}:1" for i in ids)
        lines.append(f"{rng.choice(['+1', '-1'])} "
                     + " ".join(f"|BT| {t}" for t in texts) + f" |ET| {vector}")
    fast, reference = both("\n".join(lines).encode())
    assert_identical(fast, reference)
    assert fast.forest.n_nodes > 1000


BAD_LINES = [
    "+1 |BT| (VP (VB join) |ET| 1:1",
    "+1 |BT| (VP (VB join)))( |ET| 1:1",
    "+1 |BT| (VP (VB join))",
    "+1 (VP (VB join)) |ET| 1:1",
    "yes |BT| (VP (VB join)) |ET| 1:1",
    "+1 2 |BT| (VP (VB join)) |ET| 1:1",
    "nan |BT| (VP (VB join)) |ET| 1:1",
    " |BT| (VP (VB join)) |ET| 1:1",
    "+1 |BT| (A x) (B y) |ET|",
    "+1 |BT| x (A y) |ET|",
    "+1 |BT| (A x) y |ET|",
    "+1 |BT| )A x( |ET|",
    "+1 |BT| (A x) |BT| (B (C y) |ET|",
    "+1 |BT| (VP (VB join)) |ET| 2:1 1:1",
    "+1 |BT| (VP (VB join)) |ET| 1:2",
    "+1 |BT| (VP (VB join)) |ET| x:1",
    "+1 |BT| (A x) |ET| 1:1 |BV| 2:1 |EV|",
    "+1 |BT| " + "(A " * 520 + "x" + ")" * 520 + " |ET|",
    "+1 |BT| (A x) |ET| 1:1 |EV| 2:1",
    "+1 |BT| (A x) |ET| |BV| 1:1 |EV|",
    "+1 |BT| (A x) |ET| 1:1 |EV| |EV|",
    "+1 |BT| (S () (X y)) |ET|",
    "+1 |BT| (S (X ()) (Y z)) |ET|",
    "+1 |BT| (S (A ) (B )) (C )) |ET|",
    "+1 |BT| (NP (-LRB- () (NN x) |BT| (S y) |ET|",
    "+1 |BT| (NP (-LRB- () (NN x))) |ET|",
]


def message(data: bytes, reader: str) -> str:
    with pytest.raises(SvmlightTkFormatError) as error:
        parse_svmlight_tk_bytes(data, "x.tk", reader=reader)
    return str(error.value)


@pytest.mark.parametrize("line", BAD_LINES)
def test_errors_match_nltk(line: str) -> None:
    data = f"+1 |BT| (S x) |ET| 1:1\n\n{line}\n-1 |BT| (S (A y)) |ET|\n".encode()
    fast, reference = message(data, "fast"), message(data, "nltk")
    assert fast == reference
    assert fast.startswith("x.tk:3: ") and "\n" not in fast


def test_errors_outside_trees_match_nltk() -> None:
    for data in (b"", b"\n# only a comment\n", b"+1 |BT| (S x) |ET|\n\xff\n",
                 b"+1 |BT| (S x) |ET| 2:1 1:1\n+1 |BT| (S x) |ET|\n-1 |BT| (S x |ET|\n"):
        assert message(data, "fast") == message(data, "nltk")


def test_test_tk_matches_nltk(srl_boundary: Path) -> None:
    fast = read_svmlight_tk(srl_boundary / "test.tk")
    reference = read_svmlight_tk(srl_boundary / "test.tk", reader="nltk")
    assert_identical(fast, reference)
    assert len(fast) == 34350


def test_shared_interners_match_nltk(srl_boundary: Path) -> None:
    train = read_svmlight_tk(srl_boundary / "train.5k.tk")
    fast = read_svmlight_tk(srl_boundary / "test.10k.tk", train.forest.labels,
                            train.forest.productions)
    again = read_svmlight_tk(srl_boundary / "train.5k.tk", reader="nltk")
    reference = read_svmlight_tk(srl_boundary / "test.10k.tk", again.forest.labels,
                                 again.forest.productions, reader="nltk")
    assert_identical(fast, reference)


def test_tree_orders_equal_a_stable_lexsort() -> None:
    rng = np.random.default_rng(3)
    sizes = rng.integers(0, 30, size=200)
    tree_ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    key = rng.integers(0, 6, size=int(tree_ptr[-1])).astype(np.int32)
    tree_of_node = np.repeat(np.arange(sizes.size), sizes)
    expected = np.lexsort((key, tree_of_node)).astype(np.int32)
    assert np.array_equal(tree_orders(tree_ptr, key), expected)


def _tree_with_bracket_words(rng: np.random.Generator) -> str:
    """A random tree whose words are sometimes bare brackets, written as nltk writes it (a word
    "(" of TAG as `(TAG ()`, a childless node as `(X )`): brackets as words, empty nodes,
    ambiguous and unbalanced trees all turn up."""
    tree = random_tree(rng, "AB-C", "xy#")
    for position in tree.treepositions("leaves"):
        if rng.random() < 0.5:
            tree[position] = str(rng.choice(["(", ")"]))
    if rng.random() < 0.3:
        tree = Tree("P", [Tree("-LRB-", ["("]), tree, Tree("-RRB-", [")"])])
    return tree.pformat(margin=int(rng.integers(5, 200))).replace("\n", " ")


def test_bracket_words_read_alike_by_both_readers() -> None:
    """Line by line: the same forest or the same one-line error from the scanner and the nltk
    reference; the scanner reads bracket words itself (no hand-over), and does so on most
    lines."""
    rng = np.random.default_rng(11)
    lines, read_by_scanner = [], 0
    for k in range(600):
        line = f"{'+1' if k % 2 else '-1'} |BT| {_tree_with_bracket_words(rng)} |ET| {k % 7}:1\n"
        data = line.encode()
        try:
            reference = parse_svmlight_tk_bytes(data, "x.tk", reader="nltk")
        except SvmlightTkFormatError as error:
            assert message(data, "fast") == str(error)
            continue
        assert_identical(parse_svmlight_tk_bytes(data, "x.tk", reader="fast"), reference)
        read_by_scanner += isinstance(scan_svmlight_tk(data, float), dict)
        lines.append(line)
    assert len(lines) > 200 and read_by_scanner == len(lines)
    assert any("(-LRB- ()" in line for line in lines)
    assert_identical(*both("".join(lines).encode()))


@pytest.mark.parametrize("tree, read", [
    ("(NP (-LRB- () (NN x) (-RRB- )))", True),
    ("(NP (NN x) (-RRB- )))", True),
    ("(S (A ) (B )) (C ))", False),
    ("(S () (X y))", False),
])
def test_the_scanner_reads_bracket_words_or_hands_the_line_over(tree: str, read: bool) -> None:
    scan = scan_svmlight_tk(f"+1 |BT| {tree} |ET|\n".encode(), float)
    assert isinstance(scan, dict) == read
