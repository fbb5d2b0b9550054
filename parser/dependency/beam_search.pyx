# cython: language_level=3
"""Beam search over labelled arc-eager transitions, and its global training (the structured
perceptron of Collins 2002 with early update, Collins & Roark 2004, or max-violation update,
Huang, Fayong & Guo 2012), as Zhang & Clark (2008) and Zhang & Nivre (2011) parse.

Actions (the weight table's classes): 0 SHIFT, 1 REDUCE, 2 + l LEFT-ARC(l), 2 + L + l
RIGHT-ARC(l) for the L labels; an action's score is the sum of the weights of the state's
feature keys (zn2011_features.pyx) for it, a hypothesis's score the sum over its actions. Each
step expands every hypothesis of the beam by its valid actions (arc_eager.pyx's validity mask;
the labels each arc direction had in training) and keeps the `beam` best, ties going to the
earlier hypothesis and then to the lower action. A hypothesis whose buffer is empty is complete
and is carried on by an empty action of score 0, so that hypotheses of different lengths meet
at each step; the search ends when all are complete, and the best one's words left headless
are attached to the root (the root-last system of arc_eager.pyx).

Training on one sentence: the gold actions come from the static oracle (on the
pseudo-projectivised tree). Early update: at the first step after which no hypothesis of the
beam is the gold prefix, the weights of the gold prefix's (state, action) features gain 1 and
those of the best hypothesis lose 1. Max-violation: the search runs to its end; when the best
complete hypothesis is not the gold sequence, the update is made at the step t, among those
whose best hypothesis is not the gold prefix, where score(best hypothesis at t) - score(gold
prefix of length t) is largest (the first such step).
Steps where both sequences still agree cancel out and are skipped.
"""
from libc.math cimport INFINITY
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libcpp.vector cimport vector

import numpy as np

from polyparse.parser.dependency.choices import MAX_BEAM, UPDATES

from polyparse.classifiers.structured.weight_table cimport ClassScores, PerceptronWeights
from polyparse.features.key_index cimport KeyIndex
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps, long_input_ends, long_input_starts
from polyparse.parser.dependency.arc_eager cimport (LEFT, N_MOVES, REDUCE, RIGHT, SHIFT, StateC, apply_move,
                                         finish, is_final, oracle_move, stack_at, state_copy,
                                         state_free, state_new, state_reset, valid_moves)
from polyparse.parser.dependency.zn2011_features cimport (
    BEAM_MORPH_SLOTS,
    MAX_RICH_KEYS,
    WordColumns,
    zn2011_keys,
)

cdef enum:
    EMPTY_ACTION = -1
    FIRST_LABEL_ACTION = 2
    EARLY = 0
    MAX_VIOLATION = 1
    NO_GOLD = -2

# The update of each name of parser/dependency/choices.py's UPDATES.
UPDATE_CODES = {"early": EARLY, "max-violation": MAX_VIOLATION}
assert set(UPDATE_CODES) == set(UPDATES), "beam_search.pyx and choices.UPDATES disagree"


cdef struct Candidate:
    double score
    int item
    int action


cdef inline bint better(const Candidate* a, const Candidate* b) noexcept nogil:
    # Higher score first; ties to the earlier hypothesis, then the lower action.
    if a.score != b.score:
        return a.score > b.score
    if a.item != b.item:
        return a.item < b.item
    return a.action < b.action


cdef inline void apply_action(StateC* st, int action, int n_labels) noexcept nogil:
    if action == EMPTY_ACTION:
        return
    if action < FIRST_LABEL_ACTION:
        apply_move(st, SHIFT if action == 0 else REDUCE, -1)
    elif action < FIRST_LABEL_ACTION + n_labels:
        apply_move(st, LEFT, action - FIRST_LABEL_ACTION)
    else:
        apply_move(st, RIGHT, action - FIRST_LABEL_ACTION - n_labels)


cdef class Beam:
    """The hypotheses of a search: states, scores, whether each is the gold prefix, and every
    step's parents and actions (to follow a hypothesis back)."""

    cdef int width
    cdef int size
    cdef StateC** states
    cdef StateC** next_states
    cdef double* scores
    cdef double* next_scores
    cdef bint* gold
    cdef bint* next_gold
    cdef vector[int] parents     # step * width + position -> position at the step before
    cdef vector[int] actions     # step * width + position -> action taken
    cdef vector[Candidate] kept
    cdef int steps

    def __cinit__(self, int width, int max_words, bint single_root):
        cdef int i
        self.width = width
        self.states = <StateC**>self._zeroed(width)
        self.next_states = <StateC**>self._zeroed(width)
        self.scores = <double*>self._zeroed(width)
        self.next_scores = <double*>self._zeroed(width)
        self.gold = <bint*>self._zeroed(width)
        self.next_gold = <bint*>self._zeroed(width)
        for i in range(width):
            self.states[i] = state_new(max_words, single_root)
            self.next_states[i] = state_new(max_words, single_root)
        self.kept.resize(width)

    cdef void* _zeroed(self, int n) except NULL:
        cdef void* p = calloc(n, 8)
        if p == NULL:
            raise MemoryError()
        return p

    def __dealloc__(self):
        cdef int i
        if self.states != NULL:
            for i in range(self.width):
                state_free(self.states[i])
                state_free(self.next_states[i])
        free(self.states)
        free(self.next_states)
        free(self.scores)
        free(self.next_scores)
        free(self.gold)
        free(self.next_gold)

    cdef void start(self, int n) noexcept nogil:
        state_reset(self.states[0], n)
        self.scores[0] = 0.0
        self.gold[0] = True
        self.size = 1
        self.steps = 0
        self.parents.clear()
        self.actions.clear()

    cdef bint complete(self) noexcept nogil:
        cdef int i
        for i in range(self.size):
            if not is_final(self.states[i]):
                return False
        return True


cdef class SentenceColumns:
    """The token columns of many sentences, as parse() and train_epoch() take them: sentence s
    is rows offsets[s] .. offsets[s + 1] - 1, its first row the root token."""

    cdef const int32_t[::1] word
    cdef const int32_t[::1] tag
    cdef const int32_t[::1] coarse
    cdef const int32_t[::1] lemma
    cdef const int32_t[::1] feats
    cdef const int32_t[:, ::1] morph
    cdef const int32_t[::1] suffix
    cdef bint read_morph
    cdef const int64_t[::1] offsets
    cdef int64_t n_rows
    cdef int64_t n_sentences
    cdef int max_words

    def __init__(self, word, tag, coarse, lemma, feats, morph, suffix, offsets):
        self.word = np.ascontiguousarray(word, dtype=np.int32)
        self.tag = np.ascontiguousarray(tag, dtype=np.int32)
        self.coarse = np.ascontiguousarray(coarse, dtype=np.int32)
        self.lemma = np.ascontiguousarray(lemma, dtype=np.int32)
        self.feats = np.ascontiguousarray(feats, dtype=np.int32)
        # No morph columns (None): a model that does not read them.
        self.read_morph = morph is not None
        self.morph = np.ascontiguousarray(
            np.zeros((BEAM_MORPH_SLOTS, self.word.shape[0])) if morph is None else morph,
            dtype=np.int32)
        self.suffix = np.ascontiguousarray(
            np.zeros(self.word.shape[0]) if suffix is None else suffix, dtype=np.int32)
        if (self.morph.shape[0] != BEAM_MORPH_SLOTS or self.morph.shape[1] != self.word.shape[0]
                or self.suffix.shape[0] != self.word.shape[0]):
            raise ValueError(f"morph needs {BEAM_MORPH_SLOTS} rows and suffix one value per "
                             "token")
        self.offsets = np.ascontiguousarray(offsets, dtype=np.int64)
        self.n_rows = self.word.shape[0]
        self.n_sentences = self.offsets.shape[0] - 1
        self.max_words = int(np.diff(offsets).max()) if self.n_sentences > 0 else 1

    cdef int64_t point(self, int64_t s, WordColumns* words) noexcept nogil:
        # words pointed at sentence s (words.n its words, root not counted); its first row.
        cdef int64_t start = self.offsets[s]
        words.n = <int>(self.offsets[s + 1] - start - 1)
        words.word = &self.word[start]
        words.tag = &self.tag[start]
        words.coarse = &self.coarse[start]
        words.lemma = &self.lemma[start]
        words.feats = &self.feats[start]
        words.read_morph = self.read_morph
        words.morph = &self.morph[0, start]
        words.morph_stride = self.morph.shape[1]
        words.suffix = &self.suffix[start]
        return start


cdef class BeamSearch:
    """Parses with a weight table and a beam width; trains a PerceptronWeights."""

    cdef readonly int width
    cdef readonly int n_labels
    cdef readonly int root_label
    cdef readonly int n_actions
    cdef bint single_root
    cdef object left_mask, right_mask
    cdef const int32_t* left_allowed
    cdef const int32_t* right_allowed

    def __init__(self, int width, int n_labels, int root_label, left_labels, right_labels,
                 bint single_root=True):
        """left_labels / right_labels: 0/1 per label, whether LEFT-ARC / RIGHT-ARC may take
        it; root_label: the label of the words attached to the root at the end."""
        if not 1 <= width <= MAX_BEAM:
            raise ValueError(f"the beam width must be 1 to {MAX_BEAM}")
        self.width = width
        self.n_labels = n_labels
        self.root_label = root_label
        self.n_actions = FIRST_LABEL_ACTION + 2 * n_labels
        self.single_root = single_root
        self.left_mask = np.ascontiguousarray(left_labels, dtype=np.int32)
        self.right_mask = np.ascontiguousarray(right_labels, dtype=np.int32)
        if self.left_mask.shape[0] != n_labels or self.right_mask.shape[0] != n_labels:
            raise ValueError("one left and one right flag per label needed")
        self.left_allowed = <const int32_t*><size_t>self.left_mask.ctypes.data
        self.right_allowed = <const int32_t*><size_t>self.right_mask.ctypes.data

    cdef int _check_classes(self, ClassScores weights) except -1:
        if weights.n_classes != self.n_actions:
            raise ValueError(f"the weights have {weights.n_classes} classes, the search "
                             f"{self.n_actions} actions")
        return 0

    # ----- the search ---------------------------------------------------------------------

    cdef int expand(self, Beam beam, const WordColumns* words, ClassScores weights,
                    double* scores, uint64_t* keys, int gold_action) except -1 nogil:
        """One step: the `width` best expansions of the beam into its next states; a next state
        is the gold prefix when its parent was and its action is gold_action."""
        cdef int i, a, l, n, k, j, kept = 0
        cdef bint valid[N_MOVES]
        cdef Candidate c
        cdef StateC* st
        cdef StateC** swap_states
        cdef double* swap_scores
        cdef bint* swap_gold
        for i in range(beam.size):
            st = beam.states[i]
            if is_final(st):
                c.score = beam.scores[i]
                c.item = i
                c.action = EMPTY_ACTION
                kept = self._keep(beam, &c, kept)
                continue
            n = zn2011_keys(st, words, keys)
            memset(scores, 0, self.n_actions * sizeof(double))
            weights.add_scores(keys, n, scores)
            valid_moves(st, valid)
            c.item = i
            for a in range(FIRST_LABEL_ACTION):
                if valid[SHIFT if a == 0 else REDUCE]:
                    c.score = beam.scores[i] + scores[a]
                    c.action = a
                    kept = self._keep(beam, &c, kept)
            if valid[LEFT]:
                for l in range(self.n_labels):
                    if self.left_allowed[l]:
                        c.action = FIRST_LABEL_ACTION + l
                        c.score = beam.scores[i] + scores[c.action]
                        kept = self._keep(beam, &c, kept)
            if valid[RIGHT]:
                for l in range(self.n_labels):
                    if self.right_allowed[l]:
                        c.action = FIRST_LABEL_ACTION + self.n_labels + l
                        c.score = beam.scores[i] + scores[c.action]
                        kept = self._keep(beam, &c, kept)
        for j in range(kept):
            c = beam.kept[j]
            state_copy(beam.next_states[j], beam.states[c.item])
            apply_action(beam.next_states[j], c.action, self.n_labels)
            beam.next_scores[j] = c.score
            beam.next_gold[j] = beam.gold[c.item] and c.action == gold_action
            beam.parents.push_back(c.item)
            beam.actions.push_back(c.action)
        for j in range(kept, beam.width):
            beam.parents.push_back(-1)
            beam.actions.push_back(EMPTY_ACTION)
        swap_states = beam.states
        beam.states = beam.next_states
        beam.next_states = swap_states
        swap_scores = beam.scores
        beam.scores = beam.next_scores
        beam.next_scores = swap_scores
        swap_gold = beam.gold
        beam.gold = beam.next_gold
        beam.next_gold = swap_gold
        beam.size = kept
        beam.steps += 1
        return 0

    cdef int _keep(self, Beam beam, Candidate* c, int kept) noexcept nogil:
        # Insert c among the kept candidates (sorted, at most width), after equal ones.
        cdef int j
        if kept == beam.width and not better(c, &beam.kept[kept - 1]):
            return kept
        j = kept if kept < beam.width else kept - 1
        while j > 0 and better(c, &beam.kept[j - 1]):
            beam.kept[j] = beam.kept[j - 1]
            j -= 1
        beam.kept[j] = c[0]
        return kept + 1 if kept < beam.width else kept

    cdef int search(self, Beam beam, const WordColumns* words, ClassScores weights,
                    double* scores, uint64_t* keys, int64_t* steps_left) except -1 nogil:
        beam.start(words.n)
        while not beam.complete():
            count_steps(steps_left, beam.size)
            self.expand(beam, words, weights, scores, keys, NO_GOLD)
        return 0

    # ----- parsing ------------------------------------------------------------------------

    def parse(self, ClassScores weights, word, tag, coarse, lemma, feats, morph, suffix,
              offsets) -> tuple:
        """Heads and labels (flat, token 0 of each sentence the root: -1) of the sentences
        whose tokens, root included, are offsets[i] .. offsets[i + 1] - 1 of the columns
        (morph and suffix None: the model reads no morph columns)."""
        cdef SentenceColumns columns = SentenceColumns(word, tag, coarse, lemma, feats, morph,
                                                       suffix, offsets)
        heads_out = np.full(columns.n_rows, -1, dtype=np.int32)
        labels_out = np.full(columns.n_rows, -1, dtype=np.int32)
        cdef int32_t[::1] heads = heads_out
        cdef int32_t[::1] labels = labels_out
        self._check_classes(weights)
        cdef int64_t s, start, steps_left = CHECK_STEPS
        cdef Beam beam = Beam(self.width, columns.max_words, self.single_root)
        scores_buffer = np.zeros(self.n_actions, dtype=np.float64)
        keys_buffer = np.zeros(MAX_RICH_KEYS, dtype=np.uint64)
        cdef double[::1] scores = scores_buffer
        cdef uint64_t[::1] keys = keys_buffer
        cdef WordColumns words
        cdef StateC* best
        cdef int i
        with nogil:
            for s in range(columns.n_sentences):
                start = columns.point(s, &words)
                if words.n <= 0:
                    continue
                long_input_starts(words.n)
                self.search(beam, &words, weights, &scores[0], &keys[0], &steps_left)
                long_input_ends(words.n)
                best = beam.states[0]
                finish(best, self.root_label)
                for i in range(1, words.n + 1):
                    heads[start + i] = best.heads[i]
                    labels[start + i] = best.labels[i]
        return heads_out, labels_out

    # ----- training -----------------------------------------------------------------------

    cdef int gold_actions(self, const WordColumns* words, const int32_t* gold_heads,
                          const int32_t* gold_labels, StateC* st, vector[int]* out) except -1 nogil:
        """The static oracle's actions for the gold tree (projective), into out."""
        cdef int move, s0, action
        cdef bint valid[N_MOVES]
        out.clear()
        state_reset(st, words.n)
        while not is_final(st):
            move = oracle_move(st, gold_heads)
            valid_moves(st, valid)
            if not valid[move]:
                with gil:
                    raise ValueError("the static oracle made an invalid move: the gold tree is "
                                     "not projective or not single-rooted")
            if move == SHIFT:
                action = 0
            elif move == REDUCE:
                action = 1
            elif move == LEFT:
                action = FIRST_LABEL_ACTION + gold_labels[stack_at(st, 0)]
            else:
                action = FIRST_LABEL_ACTION + self.n_labels + gold_labels[st.buffer]
            out.push_back(action)
            apply_action(st, action, self.n_labels)
        return 0

    cdef int update(self, PerceptronWeights weights, const WordColumns* words,
                    const vector[int]* gold, const vector[int]* predicted, int steps,
                    StateC* gold_state, StateC* predicted_state, uint64_t* keys) except -1 nogil:
        """+1 for the gold prefix's (state, action) features, -1 for the predicted one's, over
        their first `steps` actions, skipping the steps before they part."""
        cdef int s, ga, pa
        cdef bint parted = False
        state_reset(gold_state, words.n)
        state_reset(predicted_state, words.n)
        for s in range(steps):
            ga = gold[0][s] if s < <int>gold.size() else EMPTY_ACTION
            pa = predicted[0][s]
            if not parted and ga == pa:
                apply_action(gold_state, ga, self.n_labels)
                apply_action(predicted_state, pa, self.n_labels)
                continue
            parted = True
            if ga != EMPTY_ACTION:
                weights.update(keys, zn2011_keys(gold_state, words, keys), ga, 1)
                apply_action(gold_state, ga, self.n_labels)
            if pa != EMPTY_ACTION:
                weights.update(keys, zn2011_keys(predicted_state, words, keys), pa, -1)
                apply_action(predicted_state, pa, self.n_labels)
        return 0

    cdef void followed_back(self, Beam beam, int step, int position, vector[int]* out) noexcept nogil:
        # The actions of the hypothesis at `position` after step `step` (0-based), in order.
        cdef int t
        out.resize(step + 1)
        for t in range(step, -1, -1):
            out[0][t] = beam.actions[t * beam.width + position]
            position = beam.parents[t * beam.width + position]

    def frequent_gold_keys(self, word, tag, coarse, lemma, feats, morph, suffix, offsets,
                           gold_heads, gold_labels, int min_count) -> np.ndarray:
        """The feature keys of the states of the sentences' gold sequences (the static
        oracle's, as train_epoch follows them) met at least min_count times, in the order first
        met; columns and gold trees as for train_epoch()."""
        cdef SentenceColumns columns = SentenceColumns(word, tag, coarse, lemma, feats, morph,
                                                       suffix, offsets)
        cdef const int32_t[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
        cdef const int32_t[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
        cdef StateC* gold_state = state_new(columns.max_words, self.single_root)
        keys_buffer = np.zeros(MAX_RICH_KEYS, dtype=np.uint64)
        cdef uint64_t[::1] keys = keys_buffer
        cdef KeyIndex seen = KeyIndex()
        cdef vector[int32_t] counts
        cdef WordColumns words
        cdef vector[int] gold
        cdef int64_t s, start
        cdef int32_t id_
        cdef int n, j, step
        try:
            with nogil:
                for s in range(columns.n_sentences):
                    start = columns.point(s, &words)
                    if words.n <= 0:
                        continue
                    self.gold_actions(&words, &gh[start], &gl[start], gold_state, &gold)
                    state_reset(gold_state, words.n)
                    for step in range(<int>gold.size()):
                        n = zn2011_keys(gold_state, &words, &keys[0])
                        for j in range(n):
                            id_ = seen.get_or_insert(keys[j])
                            if <size_t>id_ == counts.size():
                                counts.push_back(0)
                            counts[id_] += 1
                        apply_action(gold_state, gold[step], self.n_labels)
        finally:
            state_free(gold_state)
        found = np.asarray(<int32_t[:counts.size()]>counts.data()) if counts.size() else \
            np.zeros(0, dtype=np.int32)
        return seen.keys()[found >= min_count]

    def train_epoch(self, PerceptronWeights weights, word, tag, coarse, lemma, feats, morph,
                    suffix, offsets, gold_heads, gold_labels, order,
                    str update="max-violation") -> dict:
        """One pass over the sentences in `order` (indices into offsets), each searched with
        the current weights and followed by the update (module docstring); columns as for
        parse(), gold_heads and gold_labels flat like them (projective, single-rooted trees).
        Returns counts: sentences, updates, steps searched, steps of the gold sequences."""
        cdef SentenceColumns columns = SentenceColumns(word, tag, coarse, lemma, feats, morph,
                                                       suffix, offsets)
        cdef const int32_t[::1] gh = np.ascontiguousarray(gold_heads, dtype=np.int32)
        cdef const int32_t[::1] gl = np.ascontiguousarray(gold_labels, dtype=np.int32)
        cdef const int64_t[::1] sentences = np.ascontiguousarray(order, dtype=np.int64)
        if update not in UPDATE_CODES:
            raise ValueError(f"unknown update {update!r} (available: {', '.join(UPDATES)})")
        self._check_classes(weights)
        cdef int mode = UPDATE_CODES[update]
        cdef Beam beam = Beam(self.width, columns.max_words, self.single_root)
        cdef StateC* gold_state = state_new(columns.max_words, self.single_root)
        cdef StateC* other_state = state_new(columns.max_words, self.single_root)
        scores_buffer = np.zeros(self.n_actions, dtype=np.float64)
        keys_buffer = np.zeros(MAX_RICH_KEYS, dtype=np.uint64)
        cdef double[::1] scores = scores_buffer
        cdef uint64_t[::1] keys = keys_buffer
        cdef WordColumns words
        cdef vector[int] gold, predicted
        cdef vector[double] violation
        cdef int64_t k, start, steps_left = CHECK_STEPS
        cdef int64_t n_updates = 0, searched = 0, gold_steps = 0
        cdef int step, g, n, worst, i
        cdef double gold_score
        cdef bint any_gold, updated
        try:
            with nogil:
                for k in range(sentences.shape[0]):
                    start = columns.point(sentences[k], &words)
                    if words.n <= 0:
                        weights.examples += 1
                        continue
                    self.gold_actions(&words, &gh[start], &gl[start], gold_state, &gold)
                    gold_steps += gold.size()
                    beam.start(words.n)
                    state_reset(gold_state, words.n)
                    gold_score = 0.0
                    violation.clear()
                    updated = False
                    step = 0
                    while not beam.complete():
                        count_steps(&steps_left, beam.size)
                        g = gold[step] if step < <int>gold.size() else EMPTY_ACTION
                        if g != EMPTY_ACTION:
                            n = zn2011_keys(gold_state, &words, &keys[0])
                            memset(&scores[0], 0, self.n_actions * sizeof(double))
                            weights.add_scores(&keys[0], n, &scores[0])
                            gold_score += scores[g]
                            apply_action(gold_state, g, self.n_labels)
                        self.expand(beam, &words, weights, &scores[0], &keys[0], g)
                        searched += 1
                        any_gold = False
                        for i in range(beam.size):
                            any_gold = any_gold or beam.gold[i]
                        # A violation: the best hypothesis is not the gold prefix (and scores
                        # at least as much).
                        violation.push_back(-INFINITY if beam.gold[0]
                                            else beam.scores[0] - gold_score)
                        if mode == EARLY and not any_gold:
                            self.followed_back(beam, step, 0, &predicted)
                            self.update(weights, &words, &gold, &predicted, step + 1,
                                        gold_state, other_state, &keys[0])
                            updated = True
                            break
                        step += 1
                    if not updated and not beam.gold[0]:
                        worst = beam.steps - 1
                        if mode == MAX_VIOLATION:
                            worst = 0
                            for i in range(1, <int>violation.size()):
                                if violation[i] > violation[worst]:
                                    worst = i
                        self.followed_back(beam, worst, 0, &predicted)
                        self.update(weights, &words, &gold, &predicted, worst + 1,
                                    gold_state, other_state, &keys[0])
                        updated = True
                    n_updates += updated
                    weights.examples += 1
        finally:
            state_free(gold_state)
            state_free(other_state)
        return {"sentences": int(sentences.shape[0]), "updates": int(n_updates),
                "steps": int(searched), "gold_steps": int(gold_steps)}
