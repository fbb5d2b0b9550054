"""A one-line description of this machine for benchmark records, the records of one run, and
the page they are published on (docs/results.md: one section per benchmark, written by it)."""
from __future__ import annotations

import datetime
import json
import os
import platform
import resource
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import NamedTuple

from tables import seconds_text

REPO = Path(__file__).resolve().parents[1]
# When this process began its work (benchmarks import this module first), and the load of the
# machine then: publish states both beside the figures.
PROCESS_STARTED = time.monotonic()
LOAD_AT_START = os.getloadavg()[0]


def machine() -> str:
    cpu = platform.processor() or "unknown cpu"
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    system = f"{platform.system()} {platform.machine()}"
    return f"{cpu}, {os.cpu_count()} cores, {system}, Python {platform.python_version()}"


def record(what: str, data: str, figure: float, unit: str, **extra: object) -> dict:
    return {"what": what, "data": data, "figure": figure, "unit": unit, "machine": machine(),
            **extra}


class Records:
    """The measurements of one benchmark run: each is printed as one JSON line when emitted and
    kept, so that the run's tables are built from exactly what it printed."""

    def __init__(self, data: str) -> None:
        self.data = data
        self.host = machine()
        self.rows: list[dict] = []

    def emit(self, what: str, figure: object, unit: str, *, data: str | None = None,
             **settings: object) -> dict:
        row = {"what": what, "data": self.data if data is None else data, "figure": figure,
               "unit": unit, "machine": self.host, **settings}
        self.rows.append(row)
        print(json.dumps(row, ensure_ascii=False), flush=True)
        return row

    def emit_peak_memory(self) -> dict:
        """The record of this process's peak memory so far (its maximum resident set size)."""
        return self.emit("benchmark process peak memory",
                         round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                         "MiB (max RSS)")

    def finish(self, page: str | None, name: str, title: str,
               section: Callable[[], list[str]]) -> None:
        """The end of a run: its peak memory emitted, then, where a results page was named
        (--results), the run's section `name` written there, its lines built by section()."""
        self.emit_peak_memory()
        if page:
            publish(page, name, title, section())

    def find(self, what: str, **settings: object) -> dict | None:
        """The last record named what whose settings include these (key = value), or None."""
        for row in reversed(self.rows):
            if row["what"] == what and all(row.get(k) == v for k, v in settings.items()):
                return row
        return None

    def figure(self, what: str, **settings: object) -> object:
        """The figure of find(what, **settings), or None."""
        row = self.find(what, **settings)
        return None if row is None else row["figure"]

    def markdown_table(self) -> list[str]:
        """The lines of a markdown table: what, settings (every other key), figure, unit."""
        lines = ["| what | settings | figure | unit |", "|---|---|---|---|"]
        for row in self.rows:
            settings = ", ".join(
                f"{key}={value}" for key, value in row.items()
                if key not in ("what", "data", "figure", "unit", "machine"))
            lines.append(f"| {row['what']} | {settings} | {row['figure']} | {row['unit']} |")
        return lines


@contextmanager
def work_folder(prefix: str) -> Iterator[Path]:
    """A new temporary folder (its name begins with prefix) for the files of a run, removed with
    all it holds when the run ends, also when it fails."""
    folder = Path(tempfile.mkdtemp(prefix=prefix))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


class Timing(NamedTuple):
    """Seconds of one piece of work: wall-clock and CPU time of this process (user + system,
    all its threads). On a shared machine the CPU time of single-threaded work is the better
    estimate of its wall time on an idle one."""
    wall: float
    cpu: float


def timed(work: Callable[..., object], *args: object, **kwargs: object) -> tuple[object, Timing]:
    """work(*args, **kwargs)'s result and its Timing."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = work(*args, **kwargs)
    return result, Timing(time.perf_counter() - wall, time.process_time() - cpu)


def least_time(repeat: int, work: Callable[..., object], *args: object,
               **kwargs: object) -> Timing:
    """The least wall and the least CPU seconds of `repeat` calls of work(*args, **kwargs) (at
    least one)."""
    timings = [timed(work, *args, **kwargs)[1] for _ in range(max(1, repeat))]
    return Timing(min(t.wall for t in timings), min(t.cpu for t in timings))


def command_line() -> str:
    """This process's command as run from the checkout root: python benchmarks/NAME.py ARGS."""
    script = Path(sys.argv[0]).resolve()
    try:
        shown = str(script.relative_to(REPO))
    except ValueError:
        shown = str(script)
    return shlex.join(["python", shown, *sys.argv[1:]])


def checkout_state() -> str:
    """The commit measured (short hash), with a note when the checkout had other changes than
    the results page; empty when git cannot tell."""
    try:
        commit = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True, check=True).stdout.strip()
        changes = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--", ".",
                                  ":(exclude)docs/results.md"],
                                 capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""
    return f"commit {commit}" + (" with uncommitted changes" if changes else "")


def run_conditions() -> str:
    """Date, machine, commit, niceness, load and duration of this run, as one sentence."""
    today = datetime.date.today().isoformat()
    parts = [today, f"on {machine()}"]
    state = checkout_state()
    if state:
        parts.append(f"at {state}")
    niceness = os.nice(0)
    if niceness:
        parts.append(f"at niceness {niceness}")
    parts.append(f"load average {LOAD_AT_START:.1f} when it started and "
                 f"{os.getloadavg()[0]:.1f} when it ended")
    parts.append(f"the run took {seconds_text(time.monotonic() - PROCESS_STARTED)}")
    return ", ".join(parts)


def section_markers(name: str) -> tuple[str, str]:
    return f"<!-- {name}: begin -->", f"<!-- {name}: end -->"


def replace_section(text: str, name: str, section: str, at_start: bool = False) -> str:
    """text with the section `name` (its markers included in `section`) replaced in place, or
    added: at the end, or with at_start right after the page's title line."""
    begin, end = section_markers(name)
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        return head + section + rest.split(end, 1)[1]
    if at_start:
        title, _, body = text.partition("\n")
        return title + "\n\n" + section + "\n" + ("\n" + body.lstrip("\n") if body.strip() else "")
    return text.rstrip("\n") + "\n\n" + section + "\n"


def write_page(page: Path, text: str) -> None:
    """Write the page whole or not at all (a temporary file renamed over it), keeping the
    permissions of the page it replaces (a new page: 0666 less the umask)."""
    page.parent.mkdir(parents=True, exist_ok=True)
    if page.exists():
        mode = page.stat().st_mode & 0o777
    else:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=page.parent, delete=False,
                                     prefix=f".{page.name}.", suffix=".tmp") as out:
        out.write(text)
    os.chmod(out.name, mode)
    os.replace(out.name, page)


def read_page(page: Path) -> str:
    return page.read_text(encoding="utf-8") if page.exists() else "# Results\n"


def publish(path: str | os.PathLike, name: str, title: str, lines: list[str],
            command: str | None = None) -> None:
    """Write the section `name` of a results page (docs/results.md): a heading, the exact
    command (this process's by default), the date, machine, commit, niceness, load and duration,
    then lines; the section between its markers is replaced, or added at the end, and the rest
    of the page is kept as it is. The page is written whole or not at all."""
    begin, end = section_markers(name)
    section = "\n".join([begin, f"## {title}", "",
                         f"`{command or command_line()}`: {run_conditions()}.", "",
                         *lines, end])
    page = Path(path)
    write_page(page, replace_section(read_page(page), name, section))
