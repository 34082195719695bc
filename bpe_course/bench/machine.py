"""Where and with what a benchmark row was measured: the machine, Python and package version, the date.

Every table the benchmarks write carries these columns, so rows from two machines (or two
releases) are never pooled as repeats of one another.
"""

from __future__ import annotations

import datetime
import os
import platform

import bpe_course


def machine_label() -> str:
    """Where a run is made, specific enough that runs of two machines never share a label:
    ``"Linux x86_64, AMD EPYC, 2 cores (vm)"`` (system, CPU model, cores, host name)."""
    return (
        f"{platform.system()} {platform.machine()}, {cpu_model()}{os.cpu_count()} cores "
        f"({platform.node()})"
    )


def cpu_model() -> str:
    """The CPU's model name and a comma (Linux's /proc/cpuinfo; elsewhere the platform's word)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip() + ", "
    except OSError:
        pass
    return f"{platform.processor()}, " if platform.processor() else ""


def context() -> dict:
    """The columns every benchmark row carries: Python, machine, package version, date."""
    return {
        "python": platform.python_version(),
        "machine": machine_label(),
        "package": bpe_course.__version__,
        "date": datetime.date.today().isoformat(),
    }
