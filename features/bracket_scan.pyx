# cython: language_level=3
"""One pass over the bytes of an SVM-light-TK file that fills TreeForest arrays directly.

The fast path of features.svmlight_tk (the nltk path stays the reference). Per data line
(blank lines and lines starting with `#` skipped, as there): the label before the first `|BT|`,
the trees between it and the first `|ET|` (split at `|BT|`), the vector after it up to a `#` or
an `|EV|` that only white space follows.
Trees are tokenised as nltk's Tree.fromstring does with its default patterns: `(` with an
optional label after optional white space, `)`, and words; a token character is any character
but white space and brackets, or a backslash-escaped bracket (kept verbatim). Labels, words and
productions are interned here in order of first appearance (pre-order), so that adding the
strings to a StringInterner in that order gives the ids the nltk path gives.

White space here is space, tab and carriage return: the caller sends files holding any other
character that Python counts as white space to the reference path. The scan stops at the first
line it cannot read and returns that line's number; the caller asks the reference path for the
message. Trees are cut into nltk's tokens first, so that brackets are read as words where
features/penn_brackets.py reads them (`(TAG ()`, and `(TAG ))` as often as the brackets need);
where that reading is ambiguous, or a node `()` with neither label nor children is left, the
line goes to the reference path for its message.
"""
from cython.operator cimport dereference as deref
from libc.stdint cimport int32_t, int64_t, uint8_t
from libc.string cimport memcpy
from libcpp.algorithm cimport sort
from libcpp.string cimport string
from libcpp.unordered_map cimport unordered_map
from libcpp.vector cimport vector

import numpy as np

cdef int MAX_DEPTH = 499  # nltk.tree.tree.MAX_TREE_DEPTH (500) counts its bottom frame too
# Kinds of tokens: an opening bracket with a label, one without, a closing bracket, a word.
cdef enum:
    LABELLED = 0
    UNLABELLED = 1
    CLOSING = 2
    WORD = 3
# What a token reads as besides its kind (penn_brackets.bracket_words): the word "(" or ")".
cdef enum:
    NOT_A_WORD = 0
    BRACKET_WORD = 1


cdef inline bint _space(uint8_t c) noexcept nogil:
    return c == 32 or c == 9 or c == 13


cdef inline bint _bracket(uint8_t c) noexcept nogil:
    return c == 40 or c == 41


cdef inline int64_t _token_end(const uint8_t* s, int64_t i, int64_t end) noexcept nogil:
    # The end of the token starting at i: (?:\\[()]|[^\s()])*
    while i < end:
        if s[i] == 92 and i + 1 < end and _bracket(s[i + 1]):
            i += 2
        elif _space(s[i]) or _bracket(s[i]):
            break
        else:
            i += 1
    return i


cdef inline int64_t _find(const uint8_t* s, int64_t i, int64_t end, const char* what) noexcept nogil:
    # The first position >= i of the 4-byte marker `what` before end, or -1.
    while i + 4 <= end:
        if s[i] == what[0] and s[i + 1] == what[1] and s[i + 2] == what[2] and s[i + 3] == what[3]:
            return i
        i += 1
    return -1


cdef class _Scan:
    cdef vector[int64_t] tree_ptr
    cdef vector[int64_t] instance_ptr
    cdef vector[int32_t] label
    cdef vector[int32_t] production
    cdef vector[int32_t] n_children
    cdef vector[int32_t] subtree_end
    cdef vector[uint8_t] is_word
    cdef vector[int64_t] child_ptr
    cdef vector[int32_t] children
    cdef vector[double] target
    cdef vector[int64_t] line_number
    cdef vector[int32_t] stack
    # The tokens of the tree being read: kind, first byte, text (a label or word) start and
    # end, and whether it reads as a bracket word.
    cdef vector[uint8_t] tok_kind
    cdef vector[int64_t] tok_begin
    cdef vector[int64_t] tok_start
    cdef vector[int64_t] tok_end
    cdef vector[uint8_t] tok_word
    cdef unordered_map[string, int32_t] label_ids
    cdef unordered_map[string, int32_t] production_ids
    cdef unordered_map[string, double] target_values
    cdef vector[string] label_strings
    cdef vector[string] production_keys
    cdef string vectors
    cdef string key
    cdef object label_value

    def __cinit__(self, label_value):
        self.label_value = label_value
        self.tree_ptr.push_back(0)
        self.instance_ptr.push_back(0)
        self.child_ptr.push_back(0)
        self.production_keys.push_back(string())

    cdef int32_t _intern_label(self, const uint8_t* s, int64_t start, int64_t stop):
        cdef string text = string(<const char*>s + start, <size_t>(stop - start))
        cdef unordered_map[string, int32_t].iterator found = self.label_ids.find(text)
        cdef int32_t i
        if found != self.label_ids.end():
            return deref(found).second
        i = <int32_t>self.label_strings.size()
        self.label_ids[text] = i
        self.label_strings.push_back(text)
        return i

    cdef int32_t _intern_production(self, int64_t node):
        # "LABEL -> c1 c2 ..." as the label ids of the node and its children (a node's
        # children follow it, each one's subtree ending where the next one starts).
        cdef int64_t end = self.subtree_end[node], c = node + 1
        cdef int32_t value, i
        self.key.clear()
        value = self.label[node]
        self.key.append(<const char*>&value, sizeof(int32_t))
        while c < end:
            value = self.label[c]
            self.key.append(<const char*>&value, sizeof(int32_t))
            c = self.subtree_end[c]
        found = self.production_ids.find(self.key)
        if found != self.production_ids.end():
            return deref(found).second
        i = <int32_t>self.production_keys.size()
        self.production_ids[self.key] = i
        self.production_keys.push_back(self.key)
        return i

    cdef int _target(self, const uint8_t* s, int64_t start, int64_t stop) except -1:
        cdef string text = string(<const char*>s + start, <size_t>(stop - start))
        found = self.target_values.find(text)
        if found != self.target_values.end():
            self.target.push_back(deref(found).second)
            return 1
        value = self.label_value(bytes(s[start:stop]))
        if value is None:
            return 0
        self.target_values[text] = <double>value
        self.target.push_back(<double>value)
        return 1

    cdef void _token(self, uint8_t kind, int64_t begin, int64_t start, int64_t end):
        self.tok_kind.push_back(kind)
        self.tok_begin.push_back(begin)
        self.tok_start.push_back(start)
        self.tok_end.push_back(end)
        self.tok_word.push_back(NOT_A_WORD)

    cdef void _tokens(self, const uint8_t* s, int64_t i, int64_t end):
        # nltk's tokens of s[i:end]: `(` with optional white space and label, `)`, words.
        cdef int64_t begin, stop
        self.tok_kind.clear()
        self.tok_begin.clear()
        self.tok_start.clear()
        self.tok_end.clear()
        self.tok_word.clear()
        while i < end:
            if _space(s[i]):
                i += 1
            elif s[i] == 40:
                begin = i
                i += 1
                while i < end and _space(s[i]):
                    i += 1
                stop = _token_end(s, i, end)
                self._token(LABELLED if stop > i else UNLABELLED, begin, i, stop)
                i = stop
            elif s[i] == 41:
                self._token(CLOSING, i, i, i + 1)
                i += 1
            else:
                stop = _token_end(s, i, end)
                self._token(WORD, i, i, stop)
                i = stop

    cdef bint _bracket_words(self):
        # Mark the tokens read as bracket words as penn_brackets.bracket_words does; False
        # where it refuses (ambiguous).
        cdef Py_ssize_t n = self.tok_kind.size(), t
        cdef int64_t opening = 0, candidates = 0, opened = 0, closed = 0, needed
        for t in range(n):
            if self.tok_kind[t] == CLOSING:
                closed += 1
            elif self.tok_kind[t] != WORD:
                opened += 1
        for t in range(n - 2):
            if self.tok_kind[t] != LABELLED or self.tok_begin[t + 1] == self.tok_end[t]:
                continue
            if self.tok_kind[t + 1] == UNLABELLED and self.tok_kind[t + 2] == CLOSING:
                opening += 1
            elif self.tok_kind[t + 1] == CLOSING and self.tok_kind[t + 2] == CLOSING:
                candidates += 1
        needed = closed - opened + opening
        if (opening == 0 and needed == 0) or needed < 0 or needed > candidates:
            return True  # nltk's reading (the tree fails below where it cannot be read)
        if 0 < needed < candidates:
            return False
        for t in range(n - 2):
            if self.tok_kind[t] != LABELLED or self.tok_begin[t + 1] == self.tok_end[t]:
                continue
            if self.tok_kind[t + 1] == UNLABELLED and self.tok_kind[t + 2] == CLOSING:
                self.tok_word[t + 1] = BRACKET_WORD
            elif (needed and self.tok_kind[t + 1] == CLOSING
                    and self.tok_kind[t + 2] == CLOSING):
                self.tok_word[t + 1] = BRACKET_WORD
        return True

    cdef void _leaf(self, const uint8_t* s, int64_t start, int64_t stop):
        # A word: a childless node of the label s[start:stop], a child of the open node.
        cdef int64_t node = self.label.size()
        self.n_children[self.stack.back()] += 1
        self.label.push_back(self._intern_label(s, start, stop))
        self.production.push_back(0)
        self.n_children.push_back(0)
        self.subtree_end.push_back(<int32_t>(node + 1))
        self.is_word.push_back(1)

    cdef bint _tree(self, const uint8_t* s, int64_t i, int64_t end):
        # Append the tree of s[i:end] (already stripped, non-empty); False when the reference
        # path is to read it (or to say why it cannot).
        cdef int64_t base = self.label.size(), node, t, c, k
        cdef Py_ssize_t x
        cdef uint8_t kind
        cdef bint rooted = False
        self._tokens(s, i, end)
        if not self._bracket_words():
            return False
        self.stack.clear()
        for x in range(<Py_ssize_t>self.tok_kind.size()):
            kind = self.tok_kind[x]
            if self.tok_word[x] == BRACKET_WORD:
                if self.stack.size() == 0:
                    return False
                self._leaf(s, self.tok_begin[x], self.tok_begin[x] + 1)
            elif kind == LABELLED or kind == UNLABELLED:
                if self.stack.size() == 0 and rooted:
                    return False
                if <int>self.stack.size() >= MAX_DEPTH:
                    return False
                node = self.label.size()
                if self.stack.size():
                    self.n_children[self.stack.back()] += 1
                self.label.push_back(self._intern_label(s, self.tok_start[x], self.tok_end[x]))
                self.production.push_back(0)
                self.n_children.push_back(0)
                self.subtree_end.push_back(0)
                self.is_word.push_back(0)
                self.stack.push_back(<int32_t>node)
                rooted = True
            elif kind == CLOSING:
                if self.stack.size() == 0:
                    return False
                node = self.stack.back()
                if self.n_children[node] == 0 and self.label_strings[self.label[node]].size() == 0:
                    return False  # `()`: refused by the reference path (penn_brackets)
                self.stack.pop_back()
                self.subtree_end[node] = <int32_t>self.label.size()
                if self.n_children[node]:
                    self.production[node] = self._intern_production(node)
            else:
                if self.stack.size() == 0:
                    return False
                self._leaf(s, self.tok_start[x], self.tok_end[x])
        if self.stack.size() or not rooted:
            return False
        # children in node order: node t's slice follows those of the nodes before it
        for t in range(base, <int64_t>self.label.size()):
            self.child_ptr.push_back(self.child_ptr.back() + self.n_children[t])
            c = t + 1
            k = 0
            while k < self.n_children[t]:
                self.children.push_back(<int32_t>c)
                c = self.subtree_end[c]
                k += 1
        self.tree_ptr.push_back(self.label.size())
        return True

    cdef bint _trees(self, const uint8_t* s, int64_t i, int64_t end):
        # The trees of s[i:end], separated by |BT|, each stripped; an empty one is empty.
        cdef int64_t stop, a, b
        while True:
            stop = _find(s, i, end, b"|BT|")
            if stop < 0:
                stop = end
            a, b = i, stop
            while a < b and _space(s[a]):
                a += 1
            while b > a and _space(s[b - 1]):
                b -= 1
            if a < b:
                if not self._tree(s, a, b):
                    return False
            else:
                self.tree_ptr.push_back(self.label.size())
            if stop == end:
                return True
            i = stop + 4

    cdef int64_t run(self, const uint8_t* s, int64_t n) except -2:
        cdef int64_t start = 0, end, line = 0, i, begin, close, a, b, vector_end, first, ev, k
        while start <= n:
            end = start
            while end < n and s[end] != 10:
                end += 1
            line += 1
            i = start
            while i < end and _space(s[i]):
                i += 1
            if i < end and s[i] != 35:
                begin = _find(s, start, end, b"|BT|")
                if begin < 0:
                    return line
                close = _find(s, begin + 4, end, b"|ET|")
                if close < 0:
                    return line
                a, b = start, begin
                while a < b and _space(s[a]):
                    a += 1
                while b > a and _space(s[b - 1]):
                    b -= 1
                if not self._target(s, a, b):
                    return line
                vector_end = close + 4
                while vector_end < end and s[vector_end] != 35:
                    vector_end += 1
                if _find(s, close + 4, vector_end, b"|BV|") >= 0:
                    return line
                ev = _find(s, close + 4, vector_end, b"|EV|")
                if ev >= 0:
                    # one vector closed by |EV|: only white space may follow it
                    for k in range(ev + 4, vector_end):
                        if not _space(s[k]):
                            return line
                    vector_end = ev
                if not self._trees(s, begin + 4, close):
                    return line
                self.instance_ptr.push_back(self.tree_ptr.size() - 1)
                self.line_number.push_back(line)
                a, b = close + 4, vector_end
                while a < b and _space(s[a]):
                    a += 1
                while b > a and _space(s[b - 1]):
                    b -= 1
                self.vectors.append(b"0 ")
                self.vectors.append(<const char*>s + a, <size_t>(b - a))
                self.vectors.append(b"\n")
            start = end + 1
        return 0


ctypedef fused _item:
    uint8_t
    int32_t
    int64_t
    double


cdef object _array(vector[_item]& v):
    # A NumPy copy of v (call with the item type given: _array[int32_t](v)).
    if _item is uint8_t:
        dtype = np.uint8
    elif _item is int32_t:
        dtype = np.int32
    elif _item is int64_t:
        dtype = np.int64
    else:
        dtype = np.float64
    out = np.empty(v.size(), dtype=dtype)
    cdef _item[::1] o = out
    if v.size():
        memcpy(&o[0], v.data(), v.size() * sizeof(_item))
    return out


def scan_svmlight_tk(const uint8_t[::1] data, label_value) -> dict | int:
    """Scan the bytes of an SVM-light-TK file. label_value(bytes) gives the value of a label
    text (None when it is not a number); each distinct text is asked once.

    Returns the number of the first line the scan cannot read, else a dict: `targets`,
    `instance_ptr`, `line_numbers`, `vectors` (b"0 <vector>\\n" per instance, for
    features.svmlight.parse_svmlight), the forest arrays `tree_ptr`, `label`, `production`,
    `child_ptr`, `children`, `subtree_end`, `is_word` with local label and production ids
    (production 0 = none), `label_strings` (bytes of each local label id) and `production_items`
    (per local production id > 0, its label and its children's labels as local label ids)."""
    cdef _Scan scan = _Scan(label_value)
    cdef int64_t bad
    cdef uint8_t nothing = 0
    cdef const uint8_t* s = &data[0] if data.shape[0] else &nothing
    cdef vector[int32_t] renumber
    cdef size_t x, p
    cdef int32_t next_id = 1
    bad = scan.run(s, data.shape[0])
    if bad:
        return bad
    scan.n_children.clear()
    scan.n_children.shrink_to_fit()
    # productions were met in post-order; number them in pre-order, as the nltk path does
    renumber.resize(scan.production_keys.size(), 0)
    items = [None] * (scan.production_keys.size() - 1)
    for x in range(scan.production.size()):
        p = scan.production[x]
        if p:
            if renumber[p] == 0:
                renumber[p] = next_id
                items[next_id - 1] = np.frombuffer(scan.production_keys[p], dtype=np.int32)
                next_id += 1
            scan.production[x] = renumber[p]
    return {
        "targets": _array[double](scan.target),
        "instance_ptr": _array[int64_t](scan.instance_ptr),
        "line_numbers": _array[int64_t](scan.line_number),
        "vectors": bytes(scan.vectors),
        "tree_ptr": _array[int64_t](scan.tree_ptr),
        "label": _array[int32_t](scan.label),
        "production": _array[int32_t](scan.production),
        "child_ptr": _array[int64_t](scan.child_ptr),
        "children": _array[int32_t](scan.children),
        "subtree_end": _array[int32_t](scan.subtree_end),
        "is_word": _array[uint8_t](scan.is_word),
        "label_strings": [bytes(text) for text in scan.label_strings],
        "production_items": items,
    }


def tree_orders(const int64_t[::1] tree_ptr, const int32_t[::1] key) -> np.ndarray:
    """Per tree, its global node indices sorted by key (ties in pre-order): the
    production_order / label_order of a TreeForest."""
    out = np.empty(key.shape[0], dtype=np.int32)
    cdef int32_t[::1] o = out
    cdef vector[int64_t] packed
    cdef Py_ssize_t t, x, start, stop
    cdef int64_t low = 0xFFFFFFFF
    for t in range(tree_ptr.shape[0] - 1):
        start = tree_ptr[t]
        stop = tree_ptr[t + 1]
        packed.resize(stop - start)
        for x in range(start, stop):
            packed[x - start] = ((<int64_t>key[x]) << 32) | (x - start)
        sort(packed.begin(), packed.end())
        for x in range(start, stop):
            o[x] = <int32_t>(start + (packed[x - start] & low))
    return out
