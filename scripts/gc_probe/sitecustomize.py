"""A probe of a server's garbage collections (docs/bench.md, "Capacity"), loaded by any
Python started with this directory on ``PYTHONPATH``; it acts only in server processes
(an argument naming ``create_app``, as ``elgrande bench server`` starts them):

    GCPROBE_OUT=/tmp/gc PYTHONPATH=scripts/gc_probe elgrande bench server ...
    .venv/bin/python scripts/gc_summary.py /tmp/gc 300    # the last 300 s of each server

Each collection is timed and written as a line of ``$GCPROBE_OUT.<pid>.jsonl``. With
``GCPROBE_CENSUS=N``, the first N middle collections after ``$GCPROBE_OUT.go`` exists
(touch it when the window starts) also write a census of the middle generation, what
survived young collections since the last middle one: its objects by type and, for a
sample of the commonest types, who holds them (three referrers up). A census stops the
server for seconds (its pages may time out): read it, do not measure with it.
"""

from __future__ import annotations

import collections
import gc
import json
import os
import sys
import time
import types
from typing import Any

_OUT = os.environ.get("GCPROBE_OUT")
_SAMPLED = ("list", "tuple", "dict", "generator", "method", "Frame", "State", "SeatState")


def _name(found: Any) -> str:
    kind = type(found).__qualname__
    if isinstance(found, types.FrameType):
        return f"frame:{found.f_code.co_qualname}"
    if isinstance(found, types.GeneratorType):
        return f"generator:{found.gi_code.co_qualname}"
    if isinstance(found, types.MethodType):
        return f"method:{getattr(found.__func__, '__qualname__', '?')}"
    return kind


def _holders(found: Any, ignored: set[int], depth: int = 3) -> str:
    """Who holds ``found``, its first referrer at each step up (the probe's own lists
    and frames left out)."""
    chain, temporary = [], []
    for _ in range(depth):
        referrers = gc.get_referrers(found)
        temporary.append(referrers)
        skip = ignored | {id(kept) for kept in temporary}
        held_by = [r for r in referrers if id(r) not in skip and not (
            isinstance(r, types.FrameType) and r.f_code.co_filename == __file__)]
        temporary.append(held_by)
        if not held_by:
            break
        found = held_by[0]
        chain.append(_name(found))
    return " <- ".join(chain)


def _census(out: Any) -> None:
    middle = gc.get_objects(1)
    by_type: dict[str, list[Any]] = collections.defaultdict(list)
    for found in middle:
        by_type[type(found).__qualname__].append(found)
    ignored = {id(middle), id(by_type)} | {id(group) for group in by_type.values()}
    held = {}
    for kind in _SAMPLED:
        group = by_type.get(kind, [])
        if not group:
            continue
        step = max(1, len(group) // 25)
        sample = group[::step][:25]
        counts: collections.Counter[str] = collections.Counter()
        for found in sample:
            counts[_holders(found, ignored | {id(sample)})] += step
        held[kind] = {"objects": len(group), "held_by": counts.most_common(10)}
    out.write(json.dumps({
        "census": time.time(), "sizes": [len(gc.get_objects(g)) for g in range(3)],
        "types": collections.Counter({k: len(v) for k, v in by_type.items()}).most_common(30),
        "held": held}) + "\n")


def _install(out_prefix: str) -> None:
    out = open(f"{out_prefix}.{os.getpid()}.jsonl", "a", buffering=1)  # noqa: SIM115
    censuses = int(os.environ.get("GCPROBE_CENSUS", "0"))
    taken, started = [0], [0.0]

    def timed(phase: str, info: dict[str, int]) -> None:
        generation = info["generation"]
        if phase == "start":
            if generation == 1 and taken[0] < censuses and os.path.exists(f"{out_prefix}.go"):
                taken[0] += 1
                _census(out)
            started[0] = time.perf_counter()
        else:
            out.write(json.dumps({"gen": generation, "t": time.time(),
                                  "ms": (time.perf_counter() - started[0]) * 1e3,
                                  "collected": info["collected"]}) + "\n")

    gc.callbacks.append(timed)


if _OUT and any("create_app" in argument for argument in sys.argv):
    _install(_OUT)
