# cython: language_level=3
"""The parse loop: greedy arc-eager decoding with per-POS split classifiers, all in Cython.

Per state: template keys -> feature ranks (FeatureVocab hash) -> the split's transition
classifier -> the best valid move under the validity mask -> for an arc, the split's LEFT or
RIGHT label classifier -> the best label allowed at that head (root labels only under 0).
Every CHECK_STEPS transitions the loop checks for signals (features/signal_checks.pyx), so that
SIGINT and SIGTERM end a parse inside a sentence of a million tokens.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.classifiers.evaluators.one_vs_one_scorer cimport OneVsOneVoter
from polyparse.classifiers.evaluators.pke cimport sorted_ranks
from polyparse.classifiers.scorer cimport BinaryScorer
from polyparse.features.key_index cimport KeyIndex, KeySlots
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts
from polyparse.parser.dependency.arc_eager cimport (LEFT, N_MOVES, REDUCE, RIGHT, SHIFT, StateC, apply_move,
                                         finish, is_final, stack_at, state_free, state_new,
                                         state_reset, valid_moves)
from polyparse.parser.dependency.feature_templates cimport (
    MAX_TEMPLATES,
    SentenceC,
    extract_keys,
    morph_at,
    sentence_at,
)
from polyparse.parser.dependency.feature_templates import FEATURE_SETS

# When a split's classifier knows none of the valid moves, take the first valid one in this order.
cdef int[4] MOVE_PREFERENCE = [SHIFT, RIGHT, LEFT, REDUCE]


cdef class ClassifierSlot:
    """A classifier as the parse loop sees it: decision values mapped to class ids.

    One value per class (one-vs-rest; for two classes a single value, positive meaning the
    first class), or, with one_vs_one, libsvm's pairwise values: pair (i, j), i < j, in the
    order (0,1), (0,2), ..., (1,2), ..., positive voting for class i. The one-vs-one choice is
    libsvm's vote held among the allowed classes only (the pairs whose two classes are both
    allowed), ties going to the first class.
    """

    cdef BinaryScorer scorer
    cdef OneVsOneVoter voter
    cdef int n_classes
    cdef int n_outputs
    cdef bint one_vs_one
    cdef int32_t* class_ids
    cdef double* values
    cdef int* votes
    cdef bint* allowed_classes

    def __cinit__(self, BinaryScorer scorer, class_ids, bint one_vs_one=False):
        ids = np.asarray(class_ids, dtype=np.int32)
        self.scorer = scorer
        self.n_classes = ids.shape[0]
        self.n_outputs = scorer.n_outputs if scorer is not None else 0
        self.one_vs_one = one_vs_one and self.n_classes > 2
        if self.n_classes == 0:
            raise ValueError("a classifier slot needs at least one class")
        if scorer is None and self.n_classes != 1:
            raise ValueError("only a one-class slot may go without a scorer")
        expected = (self.n_classes * (self.n_classes - 1) // 2 if self.one_vs_one
                    else self.n_classes)
        if scorer is not None and not (self.n_outputs == expected
                                       or (self.n_outputs == 1 and self.n_classes == 2)):
            raise ValueError(f"{self.n_outputs} outputs cannot score {self.n_classes} classes")
        self.class_ids = <int32_t*>malloc(self.n_classes * sizeof(int32_t))
        self.values = <double*>malloc((self.n_outputs + 1) * sizeof(double))
        self.votes = <int*>malloc(self.n_classes * sizeof(int))
        self.allowed_classes = <bint*>malloc(self.n_classes * sizeof(bint))
        if (self.class_ids == NULL or self.values == NULL or self.votes == NULL
                or self.allowed_classes == NULL):
            raise MemoryError()
        if self.one_vs_one and isinstance(scorer, OneVsOneVoter):
            self.voter = scorer
        for i in range(self.n_classes):
            self.class_ids[i] = ids[i]

    def __dealloc__(self):
        free(self.class_ids)
        free(self.values)
        free(self.votes)
        free(self.allowed_classes)

    def best_class(self, const int32_t[::1] feats, allowed) -> int:
        """best() for Python callers (tests): feats sorted ids, allowed a 0/1 vector by id."""
        cdef int32_t empty = 0
        mask = np.ascontiguousarray(allowed, dtype=np.intc)
        cdef const bint[::1] allowed_view = mask
        return self.best(&feats[0] if feats.shape[0] else &empty, <int>feats.shape[0],
                         &allowed_view[0])

    cdef int best(self, const int32_t* feats, int n, const bint* allowed) noexcept:
        """Highest-scoring class id with allowed[id] true; -1 when none of its classes is."""
        cdef int i, best_id = -1
        cdef double value, best_value = 0.0
        if self.scorer is None:
            return self.class_ids[0] if allowed[self.class_ids[0]] else -1
        if self.voter is not None:
            for i in range(self.n_classes):
                self.allowed_classes[i] = allowed[self.class_ids[i]]
            i = self.voter.vote(feats, n, self.allowed_classes)
            return self.class_ids[i] if i >= 0 else -1
        self.scorer.scores(feats, n, self.values)
        if self.one_vs_one:
            return self.vote(allowed)
        if self.n_outputs == 1:
            self.values[1] = -self.values[0]
        for i in range(self.n_classes):
            if allowed[self.class_ids[i]]:
                value = self.values[i]
                if best_id < 0 or value > best_value:
                    best_id = self.class_ids[i]
                    best_value = value
        return best_id

    cdef int vote(self, const bint* allowed) noexcept:
        cdef int i, j, p = 0, best = -1
        for i in range(self.n_classes):
            self.votes[i] = 0
        for i in range(self.n_classes):
            for j in range(i + 1, self.n_classes):
                if allowed[self.class_ids[i]] and allowed[self.class_ids[j]]:
                    if self.values[p] > 0:
                        self.votes[i] += 1
                    else:
                        self.votes[j] += 1
                p += 1
        for i in range(self.n_classes):
            if allowed[self.class_ids[i]] and (best < 0 or self.votes[i] > self.votes[best]):
                best = i
        return self.class_ids[best] if best >= 0 else -1


cdef void** slot_pointers(list slots) except NULL:
    """Borrowed pointers to the slots (the decoder's `slots` list owns the references)."""
    cdef void** pointers = <void**>malloc(max(1, len(slots)) * sizeof(void*))
    cdef Py_ssize_t i
    if pointers == NULL:
        raise MemoryError()
    for i in range(len(slots)):
        if not isinstance(slots[i], ClassifierSlot):
            free(pointers)
            raise TypeError("slots must be ClassifierSlot objects")
        pointers[i] = <void*>slots[i]
    return pointers


cdef inline int best_of(void* slot, const int32_t* feats, int n, const bint* allowed) noexcept:
    return (<ClassifierSlot>slot).best(feats, n, allowed)


cdef class ArcEagerDecoder:
    """Everything the parse loop needs, held in C-friendly form."""

    cdef KeyIndex vocab
    cdef int feature_set
    cdef bint single_root
    cdef int32_t[::1] split_of_tag
    cdef int fallback_split
    cdef list slots          # keeps the ClassifierSlot objects alive for the pointers below
    cdef void** transition_slots
    cdef void** left_slots
    cdef void** right_slots
    cdef bint[::1] root_labels
    cdef bint[::1] other_labels
    cdef int default_root_label
    cdef int default_label

    def __init__(self, KeyIndex vocab, str feature_set, bint single_root, split_of_tag,
                 int fallback_split, list transition_slots, list left_slots, list right_slots,
                 root_labels, other_labels, int default_root_label, int default_label):
        self.vocab = vocab
        self.feature_set = FEATURE_SETS[feature_set]
        self.single_root = single_root
        self.split_of_tag = np.ascontiguousarray(split_of_tag, dtype=np.int32)
        self.fallback_split = fallback_split
        if not len(transition_slots) == len(left_slots) == len(right_slots) > fallback_split:
            raise ValueError("every split needs its three classifier slots")
        self.slots = transition_slots + left_slots + right_slots
        self.transition_slots = slot_pointers(transition_slots)
        self.left_slots = slot_pointers(left_slots)
        self.right_slots = slot_pointers(right_slots)
        self.root_labels = np.ascontiguousarray(root_labels, dtype=np.intc)
        self.other_labels = np.ascontiguousarray(other_labels, dtype=np.intc)
        self.default_root_label = default_root_label
        self.default_label = default_label

    def __dealloc__(self):
        free(self.transition_slots)
        free(self.left_slots)
        free(self.right_slots)

    def parse(self, const int32_t[::1] word, const int32_t[::1] tag,
              const int32_t[::1] coarse, const int32_t[::1] split_tag,
              const int64_t[::1] offsets, const int32_t[:, ::1] morph,
              const int32_t[::1] suffix):
        """Heads and label ids of every token (index 0 of each sentence is the root, head -1);
        morph (MORPH_SLOTS rows over every token) and suffix: the morph set's columns."""
        cdef Py_ssize_t n_sentences = offsets.shape[0] - 1, i
        cdef Py_ssize_t n_tokens = word.shape[0]
        heads_out = np.full(n_tokens, -1, dtype=np.int32)
        labels_out = np.full(n_tokens, -1, dtype=np.int32)
        cdef int32_t[::1] heads = heads_out
        cdef int32_t[::1] labels = labels_out
        cdef int max_n = 1
        cdef int64_t steps_left = CHECK_STEPS
        for i in range(n_sentences):
            max_n = max(max_n, <int>(offsets[i + 1] - offsets[i]))
        cdef StateC* st = state_new(max_n, self.single_root)
        try:
            for i in range(n_sentences):
                self._parse_one(st, word, tag, coarse, split_tag, morph, suffix, offsets[i],
                                <int>(offsets[i + 1] - offsets[i] - 1), heads, labels,
                                &steps_left)
        finally:
            state_free(st)
        return heads_out, labels_out

    cdef int _parse_one(self, StateC* st, const int32_t[::1] word, const int32_t[::1] tag,
                        const int32_t[::1] coarse, const int32_t[::1] split_tag,
                        const int32_t[:, ::1] morph, const int32_t[::1] suffix,
                        int64_t start, int n, int32_t[::1] heads, int32_t[::1] labels,
                        int64_t* steps_left) except -1:
        cdef SentenceC sent
        cdef uint64_t keys[MAX_TEMPLATES]
        cdef int32_t feats[MAX_TEMPLATES]
        cdef bint valid[N_MOVES]
        cdef int n_keys, n_feats, j, move, label
        sentence_at(&sent, &word[start], &tag[start], &coarse[start], n)
        morph_at(&sent, &morph[0, start], morph.shape[1], &suffix[start])
        state_reset(st, n)
        long_input_starts(n)
        while not is_final(st):
            count_steps(steps_left, 1)
            valid_moves(st, valid)
            n_keys = extract_keys(st, &sent, self.feature_set, keys)
            n_feats = self._ranks(keys, n_keys, feats)
            move, label = self._choose(st, self._split(split_tag[start + st.buffer]), feats,
                                       n_feats, valid)
            apply_move(st, move, label)
        finish(st, self.default_root_label)
        long_input_ends(n)
        for j in range(1, n + 1):
            heads[start + j] = st.heads[j]
            labels[start + j] = st.labels[j]
        return 0

    cdef int _ranks(self, const uint64_t* keys, int n_keys, int32_t* feats) noexcept:
        """The sorted feature ranks of a state's keys (keys the vocabulary lacks are dropped);
        returns their number."""
        cdef KeySlots vocab = self.vocab.slots()
        return sorted_ranks(&vocab, keys, n_keys, feats)

    cdef int _split(self, int tag_id) noexcept:
        """The split of a first-buffer-word tag (unknown tags: the fallback split)."""
        if 0 <= tag_id < self.split_of_tag.shape[0]:
            return self.split_of_tag[tag_id]
        return self.fallback_split

    cdef (int, int) _choose(self, const StateC* st, int split, const int32_t* feats,
                            int n_feats, const bint* valid) noexcept:
        """The best valid move of the split's transition classifier and, for an arc, the
        best label allowed at its head (root labels only under 0)."""
        cdef int j, move = -1, label = -1, n_valid = 0, s0
        cdef const bint* allowed
        for j in range(N_MOVES):
            if valid[j]:
                n_valid += 1
                move = j
        if n_valid > 1:
            move = best_of(self.transition_slots[split], feats, n_feats, valid)
            if move < 0:
                for j in range(N_MOVES):
                    if valid[MOVE_PREFERENCE[j]]:
                        move = MOVE_PREFERENCE[j]
                        break
        if move == LEFT or move == RIGHT:
            s0 = stack_at(st, 0)
            if move == RIGHT and s0 == 0:
                allowed = &self.root_labels[0]
                label = best_of(self.right_slots[split], feats, n_feats, allowed)
                if label < 0:
                    label = self.default_root_label
            else:
                allowed = &self.other_labels[0]
                label = best_of(self.left_slots[split] if move == LEFT
                                else self.right_slots[split], feats, n_feats, allowed)
                if label < 0:
                    label = self.default_label
        return move, label
