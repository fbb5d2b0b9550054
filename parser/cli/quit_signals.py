"""How SIGINT, SIGTERM and SIGHUP end a command: raised in the main thread where it runs
(KeyboardInterrupt, Terminated), so that the outputs being written remove their temporary files
as the exception unwinds, and never lost on the way.

A signal raised as an exception is lost where a bare `except:` catches it. Cython's module
initialisation holds one (it registers its memoryview types with collections.abc inside
`try: ... except: pass`), so a signal that came while a compiled module was being imported
vanished, and a run then waiting for input (a pipe held open) never ended. While a module is
imported, quit signals therefore wait (blocked in the importing thread) and arrive once it is
imported. They also wait while NumPy is imported: OpenBLAS starts its worker threads then, and a
signal the kernel hands to one of them never interrupts a main thread blocked in a read; threads
started inside inherit the block.
"""
from __future__ import annotations

import signal
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import TYPE_CHECKING, Any

from polyparse.features.worker_threads import quit_signals_blocked

if TYPE_CHECKING:
    from importlib.machinery import ModuleSpec

TERMINATING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


class Terminated(BaseException):
    """A terminating signal (SIGTERM, SIGHUP) raised where the main thread runs, so that the
    outputs being written clean up as they do for KeyboardInterrupt."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class _ImportingLoader:
    """A module's loader whose module creation and execution run with quit signals blocked;
    everything else is the wrapped loader's."""

    def __init__(self, loader: Any) -> None:
        self._loader = loader

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        with quit_signals_blocked():
            return self._loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        with quit_signals_blocked():
            self._loader.exec_module(module)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)


class ImportsDeferQuitSignals:
    """A finder first on sys.meta_path (importlib.abc.MetaPathFinder's protocol, without
    importing importlib.abc at start-up): finds a module with the finders after it and wraps
    its loader in _ImportingLoader."""

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        for finder in sys.meta_path:
            find = getattr(finder, "find_spec", None)
            if finder is self or find is None:
                continue
            spec = find(fullname, path, target)
            if spec is None:
                continue
            if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                spec.loader = _ImportingLoader(spec.loader)
            return spec
        return None


@contextmanager
def quit_signals_raise() -> Iterator[None]:
    """While inside, SIGTERM and SIGHUP raise Terminated in the main thread (SIGINT raises
    KeyboardInterrupt, as Python has it), and quit signals wait while a module is imported."""
    def handler(signum: int, frame: object) -> None:
        raise Terminated(signum)

    finder = ImportsDeferQuitSignals()
    previous = {signum: signal.signal(signum, handler) for signum in TERMINATING_SIGNALS}
    sys.meta_path.insert(0, finder)
    try:
        yield
    finally:
        sys.meta_path.remove(finder)
        for signum, action in previous.items():
            signal.signal(signum, action)
