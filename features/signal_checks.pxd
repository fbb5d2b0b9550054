# How a compiled loop lets SIGINT and SIGTERM end it (features/signal_checks.pyx): it counts its
# steps, and every CHECK_STEPS steps the main thread asks Python whether a signal came; the
# handler's exception (KeyboardInterrupt, Terminated) then comes out of the loop.
from libc.stdint cimport int64_t

cdef enum:
    # Steps between two checks: a step is a parser decision, a row or a training example, or
    # about a microsecond of work where one takes longer (a loop then counts several steps for
    # it), so that checks come every millisecond or so; one costs about 0.1 microsecond.
    CHECK_STEPS = 1024

# -1 with the exception set (declared noexcept, so that count_steps, inlined in the loops,
# holds no error handling of its own: its callers pass the -1 on).
cdef int check_signals() noexcept nogil
cdef void long_input_starts(int64_t length) noexcept nogil
cdef void long_input_ends(int64_t length) noexcept nogil


cdef inline int count_steps(int64_t* steps_left, int64_t steps) except -1 nogil:
    # steps more steps done; once CHECK_STEPS have passed since the last check, check_signals().
    # steps_left starts at CHECK_STEPS.
    steps_left[0] -= steps
    if steps_left[0] > 0:
        return 0
    steps_left[0] = CHECK_STEPS
    return check_signals()
