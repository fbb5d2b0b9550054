# cython: language_level=3
"""The tagging loop: greedy left-to-right decoding of one classifier over joint tags, in Cython.

Per word (Ratnaparkhi 1996's greedy left-to-right tagger; Giménez & Màrquez 2004's SVMTool):
template keys -> feature ranks (FeatureVocab hash) -> the classifier's decision values -> the
best class among those the tag dictionary allows for the word (every class for words outside
it; a word it allows one class is given that class without features or scores), which the next
words' templates then read as their previous tags. Training rows come from
the same templates with the gold tags on the left (teacher forcing). Every CHECK_STEPS words the
loop checks for signals (features/signal_checks.pyx).
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.classifiers.evaluators.pke cimport sorted_ranks
from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.key_index cimport KeyIndex, KeySlots
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps
from polyparse.parser.tagging.tag_templates cimport (MAX_TAG_TEMPLATES, N_ATTRIBUTES, TagSentence,
                                           n_tag_templates, token_keys_at)

from polyparse.parser.tagging.tag_templates import TEMPLATE_SETS, reads_right_tags


cdef void point_at(TagSentence* s, const int32_t[:, ::1] lexicon, const int32_t* entry,
                   const int32_t* tags, const int32_t* right_tags, int n) noexcept:
    s.n = n
    s.entry = entry
    s.lexicon = &lexicon[0, 0]
    s.tags = tags
    s.right_tags = right_tags


def check_input(const int32_t[:, ::1] lexicon, const int32_t[::1] entry,
                 const int64_t[::1] offsets, right_tags, int template_set):
    if lexicon.shape[1] != N_ATTRIBUTES or lexicon.shape[0] == 0:
        raise ValueError(f"the lexicon needs {N_ATTRIBUTES} attributes per entry")
    if offsets.shape[0] < 1 or offsets[0] != 0 or offsets[offsets.shape[0] - 1] != entry.shape[0]:
        raise ValueError("offsets must run from 0 to the number of words")
    if np.any(np.diff(offsets) < 0):
        raise ValueError("offsets must be non-decreasing")
    if entry.shape[0] and (np.min(entry) < 0 or np.max(entry) >= lexicon.shape[0]):
        raise ValueError("every word needs an entry of the lexicon")
    if reads_right_tags(template_set) and (right_tags is None
                                           or len(right_tags) != entry.shape[0]):
        raise ValueError("a two-pass or morph template set needs the first pass's class of "
                         "every word")


def training_keys(lexicon, entry, offsets, gold, right_tags, str template_set) -> np.ndarray:
    """The keys (words, templates) of every word with the gold tags on its left: lexicon
    (entries, N_ATTRIBUTES), entry the lexicon entry of each word, offsets the sentences'
    starts (and the end), gold the class id of each word, right_tags the first pass's class ids
    (two-pass) or None."""
    cdef int set_id = TEMPLATE_SETS[template_set]
    cdef const int32_t[:, ::1] lex = np.ascontiguousarray(lexicon, dtype=np.int32)
    cdef const int32_t[::1] e = np.ascontiguousarray(entry, dtype=np.int32)
    cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
    cdef const int32_t[::1] g = np.ascontiguousarray(gold, dtype=np.int32)
    cdef const int32_t[::1] r = np.ascontiguousarray(
        right_tags if right_tags is not None else np.zeros(e.shape[0], dtype=np.int32),
        dtype=np.int32)
    check_input(lex, e, o, right_tags, set_id)
    if g.shape[0] != e.shape[0]:
        raise ValueError("gold needs one class id per word")
    cdef int width = n_tag_templates(set_id)
    keys_out = np.empty((e.shape[0], width), dtype=np.uint64)
    cdef uint64_t[:, ::1] keys = keys_out
    cdef uint64_t row[MAX_TAG_TEMPLATES]
    cdef TagSentence s
    cdef Py_ssize_t k, start, j
    cdef int i, n
    cdef int64_t steps_left = CHECK_STEPS
    for k in range(o.shape[0] - 1):
        start = o[k]
        n = <int>(o[k + 1] - start)
        if n == 0:
            continue
        point_at(&s, lex, &e[start], &g[start], &r[start], n)
        for i in range(n):
            count_steps(&steps_left, 1)
            token_keys_at(&s, i, set_id, row)
            for j in range(width):
                keys[start + i, j] = row[j]
    return keys_out


cdef class TagDecoder:
    """A classifier over class ids and the tag dictionary, held in C-friendly form.

    The classifier gives one decision value per class (one-vs-rest; two classes: one value,
    positive meaning the first), or, with one_vs_one, libsvm's pairwise values (pair (a, b),
    a < b, in the order (0,1), (0,2), ..., positive voting for a), of which only pairs of two
    allowed classes vote, ties going to the first. The tag dictionary allows the word of lexicon
    entry e the classes allowed[allowed_ptr[e]:allowed_ptr[e + 1]], every class for an entry
    beyond it or with an empty range.
    """

    cdef KeyIndex vocab
    cdef BinaryScorer scorer
    cdef int set_id
    cdef int n_classes
    cdef int n_outputs
    cdef bint one_vs_one
    cdef int32_t[::1] class_ids
    cdef int32_t[::1] output_of
    cdef int64_t[::1] allowed_ptr
    cdef int32_t[::1] allowed
    cdef double* values
    cdef bint* mask
    cdef int* votes
    # The fast path of a linear (degree-1) one-vs-rest model: feature rank -> weight row, the
    # rows of the n_dense most frequent features dense (n_dense, n_outputs), the others sparse.
    cdef bint linear
    cdef int32_t[::1] row_of_rank
    cdef float[:, ::1] dense
    cdef int64_t[::1] sparse_ptr
    cdef int32_t[::1] sparse_columns
    cdef float[::1] sparse_values
    cdef float[::1] intercept

    def __init__(self, KeyIndex vocab, BinaryScorer scorer, class_ids, str template_set,
                 allowed_ptr, allowed, bint one_vs_one=False):
        ids = np.ascontiguousarray(class_ids, dtype=np.int32)
        self.vocab = vocab
        self.scorer = scorer
        self.set_id = TEMPLATE_SETS[template_set]
        self.n_classes = ids.shape[0]
        if self.n_classes == 0 or ids.min() < 0:
            raise ValueError("the classifier needs classes, as class ids >= 0")
        self.one_vs_one = one_vs_one and self.n_classes > 2
        self.n_outputs = scorer.n_outputs if scorer is not None else 0
        expected = (self.n_classes * (self.n_classes - 1) // 2 if self.one_vs_one
                    else self.n_classes)
        if scorer is None and self.n_classes != 1:
            raise ValueError("only a one-class decoder may go without a scorer")
        if scorer is not None and not (self.n_outputs == expected
                                       or (self.n_outputs == 1 and self.n_classes == 2)):
            raise ValueError(f"{self.n_outputs} outputs cannot score {self.n_classes} classes")
        self.class_ids = ids
        output_of = np.full(int(ids.max()) + 1, -1, dtype=np.int32)
        output_of[ids] = np.arange(self.n_classes, dtype=np.int32)
        self.output_of = output_of
        self.allowed_ptr = np.ascontiguousarray(allowed_ptr, dtype=np.int64)
        self.allowed = np.ascontiguousarray(allowed, dtype=np.int32)
        if (self.allowed_ptr.shape[0] < 1 or self.allowed_ptr[0] != 0
                or self.allowed_ptr[self.allowed_ptr.shape[0] - 1] != self.allowed.shape[0]
                or np.any(np.diff(self.allowed_ptr) < 0)):
            raise ValueError("allowed_ptr must delimit one range of allowed per entry")
        self.values = <double*>malloc((max(self.n_outputs, self.n_classes) + 1) * sizeof(double))
        self.mask = <bint*>malloc(self.n_classes * sizeof(bint))
        self.votes = <int*>malloc(self.n_classes * sizeof(int))
        if self.values == NULL or self.mask == NULL or self.votes == NULL:
            raise MemoryError()

    def use_linear_rows(self, row_of_rank, dense, sparse_ptr, sparse_columns, sparse_values,
                        intercept) -> None:
        """Score through the weights of a linear model laid out for this loop (see
        linear_rows in parser/tagging/tagger.py) instead of the classifier's scorer: rank r
        adds row_of_rank[r] (< len(dense): a dense row; else a sparse one, counted from
        len(dense)); -1: no weights. The decision values are those of the scorer, bit for
        bit, since the same float32 weights are added in the same order."""
        n_outputs = len(intercept)
        if self.one_vs_one or n_outputs != self.n_outputs or n_outputs < 1:
            raise ValueError("linear rows need one output per class of the decoder")
        self.row_of_rank = np.ascontiguousarray(row_of_rank, dtype=np.int32)
        self.dense = np.ascontiguousarray(dense, dtype=np.float32).reshape(-1, n_outputs)
        self.sparse_ptr = np.ascontiguousarray(sparse_ptr, dtype=np.int64)
        self.sparse_columns = np.ascontiguousarray(sparse_columns, dtype=np.int32)
        self.sparse_values = np.ascontiguousarray(sparse_values, dtype=np.float32)
        self.intercept = np.ascontiguousarray(intercept, dtype=np.float32)
        n_rows = self.dense.shape[0] + self.sparse_ptr.shape[0] - 1
        if (self.sparse_ptr.shape[0] < 1 or self.sparse_ptr[0] != 0
                or self.sparse_ptr[self.sparse_ptr.shape[0] - 1] != self.sparse_columns.shape[0]
                or self.sparse_columns.shape[0] != self.sparse_values.shape[0]
                or np.any(np.diff(self.sparse_ptr) < 0)
                or (self.sparse_columns.shape[0] and (np.min(sparse_columns) < 0 or
                                                      np.max(sparse_columns) >= n_outputs))
                or (self.row_of_rank.shape[0] and np.max(self.row_of_rank) >= n_rows)):
            raise ValueError("the linear rows do not fit together")
        self.linear = True

    cdef void _linear_scores(self, const int32_t* feats, int n) noexcept:
        """What the scorer's scores() gives for a linear model: the intercept plus the rows of
        the features, in rank order."""
        cdef int i, k
        cdef int32_t row, r
        cdef int64_t p
        cdef int n_outputs = self.n_outputs
        cdef int n_dense = <int>self.dense.shape[0]
        cdef double* out = self.values
        cdef const float* w
        for k in range(n_outputs):
            out[k] = self.intercept[k]
        for i in range(n):
            r = feats[i]
            if r >= self.row_of_rank.shape[0]:
                continue
            row = self.row_of_rank[r]
            if row < 0:
                continue
            if row < n_dense:
                w = &self.dense[row, 0]
                for k in range(n_outputs):
                    out[k] += w[k]
            else:
                row -= n_dense
                for p in range(self.sparse_ptr[row], self.sparse_ptr[row + 1]):
                    out[self.sparse_columns[p]] += self.sparse_values[p]

    def __dealloc__(self):
        free(self.values)
        free(self.mask)
        free(self.votes)

    def tag(self, lexicon, entry, offsets, right_tags=None) -> np.ndarray:
        """The class id of every word (int32), sentence by sentence, left to right; the
        arguments are training_keys's."""
        cdef const int32_t[:, ::1] lex = np.ascontiguousarray(lexicon, dtype=np.int32)
        cdef const int32_t[::1] e = np.ascontiguousarray(entry, dtype=np.int32)
        cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
        cdef const int32_t[::1] r = np.ascontiguousarray(
            right_tags if right_tags is not None else np.zeros(e.shape[0], dtype=np.int32),
            dtype=np.int32)
        check_input(lex, e, o, right_tags, self.set_id)
        tags_out = np.zeros(e.shape[0], dtype=np.int32)
        cdef int32_t[::1] tags = tags_out
        cdef TagSentence s
        cdef Py_ssize_t k, start
        cdef int64_t steps_left = CHECK_STEPS
        for k in range(o.shape[0] - 1):
            start = o[k]
            if o[k + 1] == start:
                continue
            point_at(&s, lex, &e[start], &tags[start], &r[start], <int>(o[k + 1] - start))
            self._tag_sentence(&s, &tags[start], &steps_left)
        return tags_out

    cdef int _tag_sentence(self, const TagSentence* s, int32_t* tags,
                           int64_t* steps_left) except -1:
        cdef uint64_t keys[MAX_TAG_TEMPLATES]
        cdef int32_t feats[MAX_TAG_TEMPLATES]
        cdef int i, n_keys, n_feats
        cdef KeySlots vocab = self.vocab.slots()
        for i in range(s.n):
            count_steps(steps_left, 1)
            tags[i] = self._only_class(s.entry[i])
            if tags[i] >= 0:
                continue
            n_keys = token_keys_at(s, i, self.set_id, keys)
            n_feats = sorted_ranks(&vocab, keys, n_keys, feats)
            tags[i] = self._best(feats, n_feats, s.entry[i])
        return 0

    cdef inline int32_t _only_class(self, int32_t entry) noexcept:
        """The class of an entry the tag dictionary allows one class (of the classifier's)
        for, which needs no scores; else -1."""
        cdef int32_t c
        if entry + 1 >= self.allowed_ptr.shape[0]:
            return -1
        if self.allowed_ptr[entry + 1] - self.allowed_ptr[entry] != 1:
            return -1
        c = self.allowed[self.allowed_ptr[entry]]
        if c < self.output_of.shape[0] and self.output_of[c] >= 0:
            return c
        return -1

    cdef int32_t _best(self, const int32_t* feats, int n_feats, int32_t entry) noexcept:
        """The best class the tag dictionary allows for the entry."""
        cdef int64_t first = 0, last = 0, p
        cdef int k, c, best = -1
        cdef double best_value = 0.0
        if self.scorer is None:
            return self.class_ids[0]
        if entry + 1 < self.allowed_ptr.shape[0]:
            first = self.allowed_ptr[entry]
            last = self.allowed_ptr[entry + 1]
        if self.linear:
            self._linear_scores(feats, n_feats)
        else:
            self.scorer.scores(feats, n_feats, self.values)
        if self.n_outputs == 1:
            self.values[1] = -self.values[0]
        if self.one_vs_one:
            return self._vote(first, last)
        for p in range(first, last):
            c = self.allowed[p]
            k = self.output_of[c] if c < self.output_of.shape[0] else -1
            if k >= 0 and (best < 0 or self.values[k] > best_value):
                best = k
                best_value = self.values[k]
        if best < 0:
            for k in range(self.n_classes):
                if best < 0 or self.values[k] > best_value:
                    best = k
                    best_value = self.values[k]
        return self.class_ids[best]

    cdef int32_t _vote(self, int64_t first, int64_t last) noexcept:
        cdef int a, b, k, c, p = 0, best = -1
        cdef int64_t q
        for a in range(self.n_classes):
            self.mask[a] = first == last
            self.votes[a] = 0
        for q in range(first, last):
            c = self.allowed[q]
            k = self.output_of[c] if c < self.output_of.shape[0] else -1
            if k >= 0:
                self.mask[k] = True
        for a in range(self.n_classes):
            if self.mask[a]:
                best = a
        if best < 0:
            for a in range(self.n_classes):
                self.mask[a] = True
        best = -1
        for a in range(self.n_classes):
            for b in range(a + 1, self.n_classes):
                if self.mask[a] and self.mask[b]:
                    if self.values[p] > 0:
                        self.votes[a] += 1
                    else:
                        self.votes[b] += 1
                p += 1
        for a in range(self.n_classes):
            if self.mask[a] and (best < 0 or self.votes[a] > self.votes[best]):
                best = a
        return self.class_ids[best]
