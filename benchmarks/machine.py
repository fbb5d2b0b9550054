"""A one-line description of this machine for benchmark records."""
from __future__ import annotations

import os
import platform


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
