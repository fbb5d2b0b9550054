"""Progress bars on stderr (tqdm), made so that a quit signal still ends the run."""
from __future__ import annotations

import sys
from typing import Any


def progress_bar(**options: Any) -> Any:
    """A tqdm bar on stderr (options go to tqdm) without tqdm's monitor thread. The monitor
    only tunes how often a slow bar redraws, but a quit signal the kernel hands to it instead
    of the main thread never interrupts a main thread blocked in a read (stdin, a FIFO), so
    SIGTERM or SIGINT would not end the run."""
    from tqdm import tqdm

    tqdm.monitor_interval = 0
    return tqdm(file=sys.stderr, **options)


def progress_label(progress: bool | str, default: str = "training") -> str:
    """The label of a progress bar asked for by `progress`: a str is the label itself (the
    layer of a pipeline being trained, say), True or False the default."""
    return progress if isinstance(progress, str) else default
