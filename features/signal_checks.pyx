# cython: language_level=3
"""Signal checks for compiled loops.

Python runs a signal's handler (KeyboardInterrupt; Terminated, parser/cli/quit_signals.py) in
the main thread only, between two bytecodes: a loop in C that runs for seconds on one input (a
sentence of 100,000 bunsetsu, a file of a million rows) would hold SIGINT and SIGTERM back until
it ends. Such loops count their steps (count_steps, in the .pxd) and every CHECK_STEPS steps call
check_signals(), which takes the GIL for PyErr_CheckSignals: the handler's exception comes out of
the loop and unwinds as it would from Python code, removing the temporary output files. Only the
main thread checks: no other thread ever runs a handler, and it would wait for the GIL for
nothing.

A test hook, POLYPARSE_TEST_LONG_INPUT=N in the environment: in the main thread, a loop starting
an input of N items or more (long_input_starts) writes "ready" on stderr and waits until SIGINT,
SIGTERM or SIGHUP comes, which it leaves pending for Python, and one finishing such an input
(long_input_ends) writes "finished". A test sends the signal once it reads "ready", so the signal
is provably pending inside the loop; "finished" would show that the loop ran to the end of its
input without noticing it.
"""
import os
import threading

from libc.signal cimport SIGHUP, SIGINT, SIGTERM, raise_
from libc.stdint cimport int64_t
from posix.signal cimport SIG_BLOCK, SIG_SETMASK, sigaddset, sigemptyset
from posix.types cimport sigset_t
from posix.unistd cimport write


cdef extern from "<signal.h>" nogil:
    int pthread_sigmask(int how, const sigset_t* new_mask, sigset_t* old_mask)
    int sigwait(const sigset_t* waited, int* signum)

cdef extern from "Python.h" nogil:
    unsigned long PyThread_get_thread_ident()

cdef extern from "Python.h":
    # Without cpython.exc's `except -1`: check_signals passes the -1 on as it is.
    int PyErr_CheckSignals()


LONG_INPUT_VARIABLE = "POLYPARSE_TEST_LONG_INPUT"

# The thread where Python runs signal handlers; after a fork, the child's only thread.
cdef unsigned long main_thread = threading.main_thread().ident


def _long_input_length() -> int:
    """POLYPARSE_TEST_LONG_INPUT; 0 (no hook) when unset or not a number."""
    value = os.environ.get(LONG_INPUT_VARIABLE, "").strip()
    return int(value) if value.isdigit() else 0


cdef int64_t long_input = _long_input_length()


def _child_thread_is_main() -> None:
    global main_thread
    main_thread = PyThread_get_thread_ident()


os.register_at_fork(after_in_child=_child_thread_is_main)


cdef int check_signals() noexcept nogil:
    # The handlers of the signals that came run here; the exception of one that raised is left
    # set, and -1 returned.
    cdef int raised
    if PyThread_get_thread_ident() != main_thread:
        return 0
    with gil:
        raised = PyErr_CheckSignals()
    return raised


cdef void long_input_starts(int64_t length) noexcept nogil:
    # The test hook (module notes): "ready", then the quit signal that comes is taken while
    # blocked and raised again, pending until the mask is restored, where its C handler runs.
    cdef sigset_t quit, before
    cdef int signum = 0
    if long_input <= 0 or length < long_input or PyThread_get_thread_ident() != main_thread:
        return
    sigemptyset(&quit)
    sigaddset(&quit, SIGINT)
    sigaddset(&quit, SIGTERM)
    sigaddset(&quit, SIGHUP)
    pthread_sigmask(SIG_BLOCK, &quit, &before)
    write(2, b"ready\n", 6)
    sigwait(&quit, &signum)
    raise_(signum)
    pthread_sigmask(SIG_SETMASK, &before, NULL)


cdef void long_input_ends(int64_t length) noexcept nogil:
    if long_input > 0 and length >= long_input and PyThread_get_thread_ident() == main_thread:
        write(2, b"finished\n", 9)
