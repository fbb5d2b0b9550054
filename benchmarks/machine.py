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
