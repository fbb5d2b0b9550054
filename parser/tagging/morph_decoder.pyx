# cython: language_level=3
"""The loop of the morphology classifiers (parser/tagging/morphology.py), in Cython.

After the tagger, every word is one row of `morph` templates (parser/tagging/tag_templates.pyx)
that read its tag and its neighbours'; the word's tag (its group) chooses its classifiers, one
per target (a feature, the whole FEATS, XPOS), each a linear model one-vs-rest over the values
that target took with that tag in training (a target with one value there needs no scores).
The words are independent of each other, so this is one pass over them, with no search.

The weights of all the classifiers are one table by feature rank: the (output, weight) entries
of each rank, sorted by output, where the outputs of a group's classifiers are one contiguous
range; a word adds, for each of its feature ranks, the entries inside its group's range (found
by binary search), in rank order, to the intercepts, as the linear scorer of
classifiers/linear/poly2_linear.pyx adds them, so that the decision values are the same.
"""
from libc.stdint cimport int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc

import numpy as np

from polyparse.classifiers.evaluators.pke cimport sorted_ranks
from polyparse.features.key_index cimport KeyIndex, KeySlots
from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps
from polyparse.parser.tagging.tag_templates cimport MAX_TAG_TEMPLATES, TagSentence, token_keys_at

from polyparse.parser.tagging.tag_decoder import check_input
from polyparse.parser.tagging.tag_templates import TEMPLATE_SETS


cdef class MorphDecoder:
    """The classifiers of every group, held in C-friendly form.

    Group g (a tagger class) has the slots group_slots[g]:group_slots[g + 1]; slot s predicts
    target slot_target[s] among the values slot_values[slot_value_ptr[s]:slot_value_ptr[s + 1]]
    (indices into the target's values): one value needs no output; two, one output from
    slot_output[s] (positive: the first value); more, one output per value. The outputs of the
    slots of group g are group_outputs[g]:group_outputs[g + 1]. Rank r's weights are
    weight_outputs and weight_values[weight_ptr[r]:weight_ptr[r + 1]], outputs ascending.
    """

    cdef KeyIndex vocab
    cdef int set_id
    cdef int n_targets
    cdef int64_t[::1] group_slots
    cdef int64_t[::1] group_outputs
    cdef int32_t[::1] slot_target
    cdef int64_t[::1] slot_value_ptr
    cdef int32_t[::1] slot_values
    cdef int64_t[::1] slot_output
    cdef int64_t[::1] weight_ptr
    cdef int32_t[::1] weight_outputs
    cdef float[::1] weight_values
    cdef float[::1] intercept
    cdef double* values
    cdef int max_outputs

    def __init__(self, KeyIndex vocab, str template_set, int n_targets, group_slots,
                 group_outputs, slot_target, slot_value_ptr, slot_values, slot_output,
                 weight_ptr, weight_outputs, weight_values, intercept):
        self.vocab = vocab
        self.set_id = TEMPLATE_SETS[template_set]
        self.n_targets = n_targets
        self.group_slots = np.ascontiguousarray(group_slots, dtype=np.int64)
        self.group_outputs = np.ascontiguousarray(group_outputs, dtype=np.int64)
        self.slot_target = np.ascontiguousarray(slot_target, dtype=np.int32)
        self.slot_value_ptr = np.ascontiguousarray(slot_value_ptr, dtype=np.int64)
        self.slot_values = np.ascontiguousarray(slot_values, dtype=np.int32)
        self.slot_output = np.ascontiguousarray(slot_output, dtype=np.int64)
        self.weight_ptr = np.ascontiguousarray(weight_ptr, dtype=np.int64)
        self.weight_outputs = np.ascontiguousarray(weight_outputs, dtype=np.int32)
        self.weight_values = np.ascontiguousarray(weight_values, dtype=np.float32)
        self.intercept = np.ascontiguousarray(intercept, dtype=np.float32)
        self._check()
        widths = np.diff(self.group_outputs)
        self.max_outputs = int(widths.max()) if widths.size else 0
        self.values = <double*>malloc((self.max_outputs + 1) * sizeof(double))
        if self.values == NULL:
            raise MemoryError()

    def _check(self) -> None:
        n_groups = self.group_slots.shape[0] - 1
        n_slots = self.slot_target.shape[0]
        n_outputs = self.intercept.shape[0]
        slots = np.asarray(self.group_slots)
        outputs = np.asarray(self.group_outputs)
        value_ptr = np.asarray(self.slot_value_ptr)
        weight_ptr = np.asarray(self.weight_ptr)
        first_output = np.asarray(self.slot_output)
        width = np.diff(value_ptr)
        width = np.where(width == 2, 1, np.where(width == 1, 0, width))
        if (n_groups < 0 or outputs.shape[0] != n_groups + 1 or slots[0] != 0
                or slots[n_groups] != n_slots or np.any(np.diff(slots) < 0)
                or outputs[0] != 0 or outputs[n_groups] != n_outputs
                or np.any(np.diff(outputs) < 0)):
            raise ValueError("the groups' slots and outputs do not fit together")
        if (value_ptr.shape[0] != n_slots + 1 or first_output.shape[0] != n_slots
                or value_ptr[0] != 0 or value_ptr[n_slots] != self.slot_values.shape[0]
                or np.any(width < 0) or np.any(np.diff(value_ptr) < 1)
                or (n_slots and (np.min(self.slot_target) < 0
                                 or np.max(self.slot_target) >= self.n_targets))):
            raise ValueError("the slots' values do not fit together")
        group_of_slot = np.repeat(np.arange(n_groups), np.diff(slots))
        if n_slots and (np.any(first_output < outputs[group_of_slot])
                        or np.any(first_output + width > outputs[group_of_slot + 1])):
            raise ValueError("a slot's outputs lie outside its group's")
        if (weight_ptr.shape[0] < 1 or weight_ptr[0] != 0
                or weight_ptr[weight_ptr.shape[0] - 1] != self.weight_outputs.shape[0]
                or self.weight_outputs.shape[0] != self.weight_values.shape[0]
                or np.any(np.diff(weight_ptr) < 0)
                or (self.weight_outputs.shape[0]
                    and (np.min(self.weight_outputs) < 0
                         or np.max(self.weight_outputs) >= n_outputs))):
            raise ValueError("the weights do not fit the outputs")

    def __dealloc__(self):
        free(self.values)

    def predict(self, lexicon, entry, offsets, groups, int ranked_target=-1,
                int n_ranked=0, ranked_words=None):
        """The value of every target for every word: (words, targets) int32, indices into the
        targets' values, -1 where the word's group has no slot for the target. lexicon, entry
        and offsets are the tagger's (training_keys); groups the tagger's class of every word.

        With ranked_target >= 0, that target is predicted for the words ranked_words (their
        positions, ascending; None: every word) alone, and its n_ranked best values for each of
        them are also given, with their decision values, best first ((len(ranked_words),
        n_ranked) int32 and float64, -1 and -inf past the slot's values): (values, ranked
        values, ranked scores)."""
        cdef const int32_t[:, ::1] lex = np.ascontiguousarray(lexicon, dtype=np.int32)
        cdef const int32_t[::1] e = np.ascontiguousarray(entry, dtype=np.int32)
        cdef const int64_t[::1] o = np.ascontiguousarray(offsets, dtype=np.int64)
        cdef const int32_t[::1] g = np.ascontiguousarray(groups, dtype=np.int32)
        check_input(lex, e, o, g, 1)
        if ranked_target >= self.n_targets or (ranked_target >= 0 and n_ranked < 1):
            raise ValueError("the ranked target must be a target, and n_ranked at least 1")
        cdef int64_t n_groups = self.group_slots.shape[0] - 1
        if e.shape[0] and (np.min(groups) < 0 or np.max(groups) >= n_groups):
            raise ValueError(f"every word needs a group of the {n_groups} the model has")
        chosen = (np.arange(e.shape[0], dtype=np.int64) if ranked_words is None
                  else np.ascontiguousarray(ranked_words, dtype=np.int64))
        if chosen.size and (np.any(np.diff(chosen) <= 0) or chosen[0] < 0
                            or chosen[chosen.size - 1] >= e.shape[0]):
            raise ValueError("ranked_words must be ascending positions of words")
        cdef const int64_t[::1] wanted = chosen
        out_array = np.full((e.shape[0], self.n_targets), -1, dtype=np.int32)
        cdef int32_t[:, ::1] out = out_array
        cdef int width = n_ranked if ranked_target >= 0 else 1
        cdef Py_ssize_t n_wanted = chosen.size if ranked_target >= 0 else 0
        ranked_array = np.full((n_wanted, width), -1, dtype=np.int32)
        scores_array = np.full((n_wanted, width), -np.inf, dtype=np.float64)
        cdef int32_t[:, ::1] ranked = ranked_array
        cdef double[:, ::1] ranked_scores = scores_array
        cdef int32_t dummy_ranked[1]
        cdef double dummy_score[1]
        cdef TagSentence s
        cdef Py_ssize_t k, start, next_wanted = 0
        cdef int i
        cdef bint rank_it
        cdef int64_t steps_left = CHECK_STEPS
        for k in range(o.shape[0] - 1):
            start = o[k]
            if o[k + 1] == start:
                continue
            s.n = <int>(o[k + 1] - start)
            s.entry = &e[start]
            s.lexicon = &lex[0, 0]
            s.tags = &g[start]
            s.right_tags = &g[start]
            for i in range(s.n):
                count_steps(&steps_left, 1)
                rank_it = next_wanted < n_wanted and wanted[next_wanted] == start + i
                if rank_it:
                    self._word(&s, i, &out[start + i, 0], ranked_target, True, width,
                               &ranked[next_wanted, 0], &ranked_scores[next_wanted, 0])
                    next_wanted += 1
                else:
                    self._word(&s, i, &out[start + i, 0], ranked_target, False, width,
                               dummy_ranked, dummy_score)
        if ranked_target < 0:
            return out_array
        return out_array, ranked_array, scores_array

    cdef void _word(self, const TagSentence* s, int i, int32_t* out, int ranked_target,
                    bint rank_it, int n_ranked, int32_t* ranked,
                    double* ranked_scores) noexcept:
        """The values of word i's targets; the ranked target's only when rank_it (else its
        outputs, when they are the last of the group's, are left unscored)."""
        cdef uint64_t keys[MAX_TAG_TEMPLATES]
        cdef int32_t feats[MAX_TAG_TEMPLATES]
        cdef int32_t group = s.right_tags[i]
        cdef int64_t slot, first = self.group_slots[group], last = self.group_slots[group + 1]
        cdef int64_t low = self.group_outputs[group], high = self.group_outputs[group + 1]
        cdef int64_t n_values
        cdef int n_feats = 0
        cdef KeySlots vocab
        if not rank_it:
            for slot in range(first, last):
                n_values = self.slot_value_ptr[slot + 1] - self.slot_value_ptr[slot]
                if self.slot_target[slot] == ranked_target and self.slot_output[slot] + (
                        0 if n_values == 1 else 1 if n_values == 2 else n_values) == high:
                    high = self.slot_output[slot]
        if high > low:
            vocab = self.vocab.slots()
            n_feats = sorted_ranks(&vocab, keys, token_keys_at(s, i, self.set_id, keys), feats)
            self._scores(feats, n_feats, low, high)
        for slot in range(first, last):
            if self.slot_target[slot] != ranked_target:
                out[self.slot_target[slot]] = self._best(slot, low)
            elif rank_it:
                out[self.slot_target[slot]] = self._best(slot, low)
                self._ranked(slot, low, n_ranked, ranked, ranked_scores)

    cdef void _scores(self, const int32_t* feats, int n_feats, int64_t low,
                      int64_t high) noexcept:
        """values[0:high - low]: the intercepts of outputs low..high plus the weights of the
        features in rank order."""
        cdef int64_t k, p, end, a, b, middle
        cdef int i
        cdef int32_t rank
        cdef double* values = self.values
        for k in range(low, high):
            values[k - low] = self.intercept[k]
        for i in range(n_feats):
            rank = feats[i]
            if rank + 1 >= self.weight_ptr.shape[0]:
                continue
            a = self.weight_ptr[rank]
            b = self.weight_ptr[rank + 1]
            end = b
            while a < b:
                middle = (a + b) >> 1
                if self.weight_outputs[middle] < low:
                    a = middle + 1
                else:
                    b = middle
            p = a
            while p < end and self.weight_outputs[p] < high:
                values[self.weight_outputs[p] - low] += self.weight_values[p]
                p += 1

    cdef void _ranked(self, int64_t slot, int64_t low, int n_ranked, int32_t* ranked,
                      double* scores) noexcept:
        """The slot's n_ranked best values and their decision values, best first, in _best's
        order (one output v: v for the first value, -v for the second; one value: 0; the first
        of equal outputs first, by insertion into the short list)."""
        cdef int64_t first = self.slot_value_ptr[slot], n = self.slot_value_ptr[slot + 1] - first
        cdef int64_t base = self.slot_output[slot] - low, k
        cdef int filled = 0, j
        cdef double value
        if n == 2:
            value = self.values[base]
            k = 0 if value > 0 else 1
            ranked[0] = self.slot_values[first + k]
            scores[0] = value if k == 0 else -value
            if n_ranked > 1:
                ranked[1] = self.slot_values[first + 1 - k]
                scores[1] = -scores[0]
            return
        for k in range(n):
            value = 0.0 if n == 1 else self.values[base + k]
            if filled == n_ranked and value <= scores[n_ranked - 1]:
                continue
            j = filled if filled < n_ranked else n_ranked - 1
            while j > 0 and scores[j - 1] < value:
                scores[j] = scores[j - 1]
                ranked[j] = ranked[j - 1]
                j -= 1
            scores[j] = value
            ranked[j] = self.slot_values[first + k]
            if filled < n_ranked:
                filled += 1

    cdef int32_t _best(self, int64_t slot, int64_t low) noexcept:
        """The value of the slot's best output: the sign of one output (positive: the first
        value), else the largest output, the first of equals."""
        cdef int64_t first = self.slot_value_ptr[slot], n = self.slot_value_ptr[slot + 1] - first
        cdef int64_t base = self.slot_output[slot] - low, k, best = 0
        if n == 1:
            return self.slot_values[first]
        if n == 2:
            return self.slot_values[first if self.values[base] > -self.values[base]
                                    else first + 1]
        for k in range(1, n):
            if self.values[base + k] > self.values[base + best]:
                best = k
        return self.slot_values[first + best]
