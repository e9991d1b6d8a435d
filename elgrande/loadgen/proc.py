"""What the operating system tells about a process (Linux ``/proc``): its CPU time, for
the servers' CPU per committed move in ``bench server``, and the machine's CPU time taken
by the hypervisor (a virtual machine's "steal"), which slows every figure of a run
without showing in any process's CPU. Memory: ``memory.rss_mb``."""

from __future__ import annotations

import os
from pathlib import Path


def cpu_seconds(pid: int) -> float | None:
    """User plus system CPU time the process has used, in seconds, all its threads
    together (None once it has exited)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may hold spaces: split after it.
    fields = stat.rpartition(")")[2].split()
    try:
        utime, stime = int(fields[11]), int(fields[12])  # fields 14 and 15 of proc(5)
    except (IndexError, ValueError):
        return None
    return (utime + stime) / os.sysconf("SC_CLK_TCK")


def machine_ticks(stat: Path = Path("/proc/stat")) -> tuple[int, int] | None:
    """The machine's CPU time so far, in clock ticks, all CPUs together: (stolen by the
    hypervisor, total). None where the system does not say (no ``/proc/stat``)."""
    try:
        line = stat.read_text().split("\n", 1)[0]
    except OSError:
        return None
    fields = line.split()
    if len(fields) < 9 or fields[0] != "cpu" or not all(x.isdigit() for x in fields[1:9]):
        return None
    ticks = [int(x) for x in fields[1:9]]  # user nice system idle iowait irq softirq steal
    return ticks[7], sum(ticks)


def stolen_percent(before: tuple[int, int] | None, after: tuple[int, int] | None
                   ) -> float | None:
    """The share of the machine's CPU time that the hypervisor took between two
    ``machine_ticks`` readings, in per cent (None if either is missing or no time passed)."""
    if before is None or after is None or after[1] <= before[1]:
        return None
    return round(100 * (after[0] - before[0]) / (after[1] - before[1]), 1)
