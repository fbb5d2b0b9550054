"""What every corpora script shares with the `polyparse` command line (parser.cli.main): bad
input ends in one line on stderr and exit code 2 (`--debug` shows the traceback); SIGINT,
SIGTERM and SIGHUP end a run quietly with 128 plus the signal's number, after the outputs
being written have removed their temporary files; a closed pipe ends it quietly with 141."""
from __future__ import annotations

import os
import signal
import sys
from collections.abc import Callable

from features.errors import InputError
from parser.cli.main import BROKEN_PIPE_EXIT, Terminated, end_now, terminating_signals_raise


def run_script(name: str, run: Callable[[], int | None], debug: bool = False) -> int:
    """run(), its errors turned into one line `name: problem` and an exit code."""
    try:
        with terminating_signals_raise():
            return int(run() or 0)
    except InputError as error:
        if debug:
            raise
        print(f"{name}: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return BROKEN_PIPE_EXIT
    except OSError as error:
        if debug:
            raise
        where = f"{error.filename}: " if error.filename else ""
        print(f"{name}: {where}{error.strerror or error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return end_now(128 + signal.SIGINT)
    except Terminated as stop:
        return end_now(128 + stop.signum)
