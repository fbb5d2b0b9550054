# cython: language_level=3
"""Training rows of the arc-eager parser: the static oracle run over gold trees, in Cython.

For every state on the oracle path the row holds the template keys, the gold move, the gold
arc label (LEFT/RIGHT) and the split tag of the first buffer word (the per-POS split of
MaltParser `-d POSTAG -s Input[0]` and Chang et al. 2010, section 5.1).
"""
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t

import numpy as np

from polyparse.features.signal_checks cimport CHECK_STEPS, count_steps
from polyparse.parser.dependency.arc_eager cimport (LEFT, RIGHT, StateC, apply_move, finish, is_final, oracle_move,
                               stack_at, state_free, state_new, state_reset, valid_moves)
from polyparse.parser.dependency.feature_templates cimport (
    SentenceC,
    extract_keys,
    morph_at,
    n_templates,
    sentence_at,
)
from polyparse.parser.dependency.feature_templates import FEATURE_SETS


class OracleError(ValueError):
    """The static oracle could not derive a gold tree (it is not projective)."""

    def __init__(self, sentence: int, word: int) -> None:
        super().__init__(f"sentence {sentence}: the oracle cannot derive the head of word {word}")
        self.sentence = sentence
        self.word = word


def oracle_rows(const int32_t[::1] word, const int32_t[::1] tag, const int32_t[::1] coarse,
                const int32_t[::1] split_tag, const int32_t[::1] heads,
                const int32_t[::1] labels, const int64_t[::1] offsets,
                const int32_t[:, ::1] morph, const int32_t[::1] suffix, str feature_set,
                bint single_root=True) -> dict[str, np.ndarray]:
    """Rows for all sentences; sentence i has tokens offsets[i]..offsets[i+1]-1, token 0 = root;
    morph (MORPH_SLOTS rows over every token) and suffix: the morph set's columns.

    Returns keys (rows x templates, uint64), move (int8), label (int32, -1 for SHIFT/REDUCE)
    and split_tag (int32, of the first buffer word).
    """
    cdef int fs = FEATURE_SETS[feature_set]
    cdef int n_t = n_templates(fs)
    cdef Py_ssize_t n_sentences = offsets.shape[0] - 1
    cdef Py_ssize_t max_rows = 2 * (word.shape[0] - n_sentences) + 1
    keys_out = np.empty((max_rows, n_t), dtype=np.uint64)
    move_out = np.empty(max_rows, dtype=np.int8)
    label_out = np.empty(max_rows, dtype=np.int32)
    split_out = np.empty(max_rows, dtype=np.int32)
    cdef uint64_t[:, ::1] k = keys_out
    cdef int8_t[::1] mv = move_out
    cdef int32_t[::1] lb = label_out
    cdef int32_t[::1] sp = split_out
    cdef Py_ssize_t max_n = 1, i, row = 0, bad_sentence = -1
    cdef int n, move, w, s0, b0, bad_word = -1
    cdef int64_t start, steps_left = CHECK_STEPS
    cdef SentenceC sent
    cdef StateC* st
    cdef bint valid[4]
    for i in range(n_sentences):
        max_n = max(max_n, offsets[i + 1] - offsets[i])
    st = state_new(<int>max_n, single_root)
    try:
        with nogil:
            for i in range(n_sentences):
                start = offsets[i]
                n = <int>(offsets[i + 1] - start - 1)
                sentence_at(&sent, &word[start], &tag[start], &coarse[start], n)
                morph_at(&sent, &morph[0, start], morph.shape[1], &suffix[start])
                state_reset(st, n)
                while not is_final(st):
                    count_steps(&steps_left, 1)
                    move = oracle_move(st, &heads[start])
                    valid_moves(st, valid)
                    if not valid[move]:
                        bad_sentence = i
                        bad_word = st.buffer
                        break
                    extract_keys(st, &sent, fs, &k[row, 0])
                    s0 = stack_at(st, 0)
                    b0 = st.buffer
                    mv[row] = move
                    sp[row] = split_tag[start + b0]
                    if move == LEFT:
                        lb[row] = labels[start + s0]
                    elif move == RIGHT:
                        lb[row] = labels[start + b0]
                    else:
                        lb[row] = -1
                    apply_move(st, move, lb[row])
                    row += 1
                if bad_sentence >= 0:
                    break
                finish(st, -1)
                for w in range(1, n + 1):
                    if st.heads[w] != heads[start + w] or (
                            st.labels[w] != labels[start + w] and heads[start + w] != 0):
                        bad_sentence = i
                        bad_word = w
                        break
                if bad_sentence >= 0:
                    break
    finally:
        state_free(st)
    if bad_sentence >= 0:
        raise OracleError(bad_sentence, bad_word)
    return {"keys": keys_out[:row], "move": move_out[:row], "label": label_out[:row],
            "split_tag": split_out[:row]}
