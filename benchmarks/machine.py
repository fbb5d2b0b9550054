"""A one-line description of this machine for benchmark records."""
from __future__ import annotations

import argparse
import json
import os
import platform
import resource


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
    return f"{cpu}, {os.cpu_count()} cores, {platform.system()} {platform.machine()}, Python {platform.python_version()}"


def record(what: str, data: str, figure: float, unit: str, **extra: object) -> dict:
    return {"what": what, "data": data, "figure": figure, "unit": unit, "machine": machine(), **extra}


def corpora_arguments(doc: str) -> argparse.ArgumentParser:
    """A benchmark's argument parser (described by its docstring's first line) with --corpora,
    the folder of the raw corpora (POLYPARSE_CORPORA, else ../shared/corpora)."""
    ap = argparse.ArgumentParser(description=doc.split("\n")[0])
    ap.add_argument("--corpora", default=os.environ.get("POLYPARSE_CORPORA", "../shared/corpora"))
    return ap


def emit(rec: dict) -> None:
    """Print one record as a JSON line."""
    print(json.dumps(rec, ensure_ascii=False), flush=True)


def peak_memory_record(data: str) -> dict:
    """The record of this process's peak memory (max RSS) so far."""
    return record("benchmark process peak memory", data,
                  round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
                  "MB (max RSS)")


class Records:
    """The measurements of one benchmark run on one data set: each is printed as one JSON line
    when emitted and kept for the markdown table."""

    def __init__(self, data: str) -> None:
        self.data = data
        self.host = machine()
        self.rows: list[dict] = []

    def emit(self, what: str, figure: float, unit: str, **settings: object) -> None:
        row = {"what": what, "data": self.data, "figure": figure, "unit": unit,
               "machine": self.host, **settings}
        self.rows.append(row)
        print(json.dumps(row), flush=True)

    def markdown_table(self) -> list[str]:
        """The lines of a markdown table: what, settings (every other key), figure, unit."""
        lines = ["| what | settings | figure | unit |", "|---|---|---|---|"]
        for row in self.rows:
            settings = ", ".join(
                f"{key}={value}" for key, value in row.items()
                if key not in ("what", "data", "figure", "unit", "machine"))
            lines.append(f"| {row['what']} | {settings} | {row['figure']} | {row['unit']} |")
        return lines


def publish(path: str | os.PathLike, name: str, title: str, lines: list[str]) -> None:
    """Write the section `name` of a results page (docs/results.md): a heading, the machine and
    the date, then lines; the section between its markers is replaced, or added at the end, and
    the rest of the page is kept as it is. The page is written whole or not at all."""
    import datetime
    import tempfile
    from pathlib import Path

    page = Path(path)
    begin, end = f"<!-- {name}: begin -->", f"<!-- {name}: end -->"
    today = datetime.date.today().isoformat()
    section = "\n".join([begin, f"## {title}", "",
                         f"`python benchmarks/{name}.py`, {today}, on {machine()}.", "",
                         *lines, end])
    text = page.read_text(encoding="utf-8") if page.exists() else "# Results\n"
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        text = head + section + rest.split(end, 1)[1]
    else:
        text = text.rstrip("\n") + "\n\n" + section + "\n"
    page.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", encoding="utf-8", dir=page.parent, delete=False,
                                     prefix=f".{page.name}.", suffix=".tmp") as out:
        out.write(text)
    os.replace(out.name, page)
