"""One Penn-bracket tree as an nltk tree, with brackets read as words where its shape says so.

Trees are read as nltk's Tree.fromstring reads them with its default patterns (an opening
bracket with an optional label, a closing bracket, words; a backslash-escaped bracket `\\(` is
a character of a label or word, kept verbatim). Penn brackets have no other way to write a word
that is a bracket: the Penn Treebank spells it -LRB- / -RRB-. Tools that do neither write

    (NP (-LRB- () (NN x) (-RRB- )))

which nltk and SVM-light-TK's own reader (tree_manager.c, loadParseTree, which takes a token
starting with `(` as a node and a childless `(X )` before `)` as closing its parent) both read,
silently, as another tree: -LRB- with three children, the first a node `()` with no label. Here
a bracket is read as a word where it is a tag's only word:

- `(TAG ()` (a labelled node, white space, then `()` or `( )`): TAG's word "(", TAG's closing
  bracket after it. The other reading, a node with neither label nor children, names no
  constituent and no word, so this one is always taken.
- `(TAG ))` (a labelled node, white space, two closing brackets): TAG has no child (a node such
  as `(BOW (a) (b ))`) or its word is ")". With o opening and c closing brackets and k words "(",
  c - o + k closing brackets are words for the brackets to balance; when the tree has exactly
  that many such places, each of them is a word ")", more places than words are ambiguous and
  the tree is refused.

Anything else keeps nltk's reading; an empty node `()` that no rule reads as a word is refused,
so that a bracket meant as a word never becomes structure silently.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import nltk

# nltk's tokens: an opening bracket and its label (group 1, None when it has none), a closing
# bracket, a word (group 2). Brackets behind a backslash belong to labels and words.
_CHARACTER = r"(?:\\[()]|[^\s()])"
TOKENS = re.compile(rf"\(\s*({_CHARACTER}+)?|\)|({_CHARACTER}+)")
# nltk.tree.tree.MAX_TREE_DEPTH (500) refuses trees of 500 nested nodes.
MAX_NESTED_NODES = 499
WRITE_BRACKETS = r"write a bracket word -LRB- / -RRB- or \( \)"


class TreeSyntaxError(ValueError):
    """A bracketed tree that cannot be read (unbalanced or stray brackets, an empty node)."""


def parse_tree(text: str) -> nltk.Tree | None:
    """The nltk tree of one Penn-bracket string (see the module notes); None for an empty
    string. TreeSyntaxError (one line) when it cannot be read."""
    text = text.strip()
    if not text:
        return None
    tokens = list(TOKENS.finditer(text))
    words = bracket_words(tokens)
    if words:
        tree = _build(tokens, words)
    else:
        tree = _nltk_tree(text, tokens)
    _refuse_empty_nodes(tree)
    return tree


def bracket_words(tokens: list[re.Match[str]]) -> dict[int, str]:
    """The tokens read as bracket words: token index -> "(" or ")" (empty: none; see the
    module notes). TreeSyntaxError when the closing brackets that are words are ambiguous."""
    kinds = [_kind(token) for token in tokens]
    opening, closing = [], []
    for i in range(len(tokens) - 2):
        if kinds[i] != "label" or tokens[i + 1].start() == tokens[i].end():
            continue
        if kinds[i + 1] == "open" and kinds[i + 2] == ")":
            opening.append(i + 1)
        elif kinds[i + 1] == ")" and kinds[i + 2] == ")":
            closing.append(i + 1)
    n_open = sum(kind in ("open", "label") for kind in kinds)
    needed = kinds.count(")") - n_open + len(opening)
    if not opening and needed == 0:
        return {}
    if needed < 0 or needed > len(closing):
        return {}  # no reading with bracket words balances: nltk's reading says what is wrong
    if 0 < needed < len(closing):
        raise TreeSyntaxError(f"{needed} of the {len(closing)} childless nodes before a ')' "
                              f"would be the word ')' (ambiguous); {WRITE_BRACKETS}")
    words = {i: "(" for i in opening}
    if needed:
        words.update((i, ")") for i in closing)
    return words


def _kind(token: re.Match[str]) -> str:
    """"label" (an opening bracket with a label), "open" (one without), ")" or "word"."""
    text = token.group()
    if text[0] == "(":
        return "open" if token.group(1) is None else "label"
    return ")" if text == ")" else "word"


def _nltk_tree(text: str, tokens: list[re.Match[str]]) -> nltk.Tree:
    """nltk's reading of text (its tokens given), after the brackets are counted."""
    n_open = sum(token.group()[0] == "(" for token in tokens)
    n_close = sum(token.group() == ")" for token in tokens)
    if n_open != n_close:
        raise TreeSyntaxError(f"unbalanced brackets ({n_open} '(' and {n_close} ')'); a "
                              f"bracket is a word only as a tag's only word, (-LRB- () or "
                              f"(-RRB- )); {WRITE_BRACKETS}")
    from nltk import Tree

    try:
        tree = Tree.fromstring(text)
    except ValueError as error:
        message = " ".join(str(error).split())
        if "MAX_TREE_DEPTH" in message:
            raise _too_deep() from None
        raise TreeSyntaxError(message) from None
    if not isinstance(tree, Tree):
        raise TreeSyntaxError(f"expected a bracketed tree, found {text!r}")
    return tree


def _too_deep() -> TreeSyntaxError:
    return TreeSyntaxError(f"the tree is nested deeper than {MAX_NESTED_NODES + 1} levels, the "
                           "most a tree may have here")


def _build(tokens: list[re.Match[str]], words: dict[int, str]) -> nltk.Tree:
    """The tree of the tokens with the given ones read as words (nltk's stack of nodes)."""
    from nltk import Tree

    stack: list[tuple[str, list]] = [("", [])]
    for i, token in enumerate(tokens):
        text = token.group()
        if i in words or text[0] not in "()":
            if len(stack) == 1:
                raise TreeSyntaxError(f"the word {words.get(i, text)!r} stands outside the "
                                      "tree's brackets")
            stack[-1][1].append(words.get(i, text))
        elif text[0] == "(":
            if len(stack) == 1 and stack[0][1]:
                raise TreeSyntaxError("text after the tree's closing bracket")
            if len(stack) > MAX_NESTED_NODES:
                raise _too_deep()
            stack.append((token.group(1) or "", []))
        else:
            if len(stack) == 1:
                raise TreeSyntaxError("a ')' closes no bracket")
            label, children = stack.pop()
            stack[-1][1].append(Tree(label, children))
    if len(stack) > 1 or not stack[0][1]:
        raise TreeSyntaxError("the tree's brackets are not all closed")
    return stack[0][1][0]


def _refuse_empty_nodes(tree: nltk.Tree) -> None:
    """TreeSyntaxError for a node `()` with neither label nor children."""
    pending = [tree]
    while pending:
        node = pending.pop()
        if isinstance(node, str):
            continue
        if node.label() == "" and len(node) == 0:
            raise TreeSyntaxError("'()' is a node with neither label nor children; a bracket "
                                  "is a word only as a tag's only word, (-LRB- () or (-RRB- )); "
                                  f"{WRITE_BRACKETS}")
        pending.extend(node)
