"""The servers' memory over a run (``bench server --memory-every SECONDS``): a thread
reads each server process's resident set size (RSS, Linux /proc) every few seconds, so a
soak run shows whether memory levels off or keeps growing."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any


def rss_mb(pid: int) -> float | None:
    """The process's resident memory in MiB (None once it has exited)."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return round(int(line.split()[1]) / 1024, 1)  # the value is in kB
    except (OSError, ValueError, IndexError):
        pass
    return None


class MemorySampler:
    """Samples the RSS of ``pids`` every ``every`` seconds from start() to stop()."""

    def __init__(self, pids: list[int], every: float) -> None:
        self.pids = pids
        self.every = every
        self.samples: list[dict[str, Any]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True, name="rss-sampler")
        self._started = 0.0

    def start(self) -> MemorySampler:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def _sample(self) -> None:
        self.samples.append({"t": round(time.monotonic() - self._started, 1),
                             "rss_mb": [rss_mb(pid) for pid in self.pids]})

    def _run(self) -> None:
        self._sample()
        while not self._stop.wait(self.every):
            self._sample()

    def stop(self) -> dict[str, Any]:
        """The curve, and the total RSS of the servers at the start, end and peak."""
        self._stop.set()
        self._thread.join(timeout=10)
        self._sample()
        totals = [sum(x for x in s["rss_mb"] if x is not None) for s in self.samples]
        return {"every_s": self.every, "pids": self.pids, "samples": self.samples,
                "start_mb": round(totals[0], 1), "end_mb": round(totals[-1], 1),
                "peak_mb": round(max(totals), 1)}
