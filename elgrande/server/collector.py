"""The garbage collector tuned for a server that holds thousands of games.

CPython collects its youngest objects every 700 net allocations, and whatever survives
two young collections is promoted to the oldest generation; once the promoted objects
reach a quarter of that generation, a full collection walks every tracked object with
the interpreter stopped. A server holding 2,000 games tracks about 450,000 objects (the
pages' sockets, the cached views and logs), and a full collection takes about 0.5 s on
the development machine: every page waits. With young collections every 20,000
allocations, the objects of a request or a move are mostly gone before the collector
looks, far fewer are promoted, and full collections become rare (in
`elgrande bench server --model daily --games 2000 --set-up-first`: 36 full collections
of 0.47 to 0.63 s during the run at the default, none with this; docs/bench.md,
"Capacity"). Cycles are still collected, only in larger batches.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 20_000


def tune_collector(young: int = YOUNG_THRESHOLD) -> None:
    """Collect the youngest generation every ``young`` allocations (net of those freed;
    the older generations' thresholds unchanged). ``young`` is the setting
    ``ELGRANDE_GC_YOUNG_THRESHOLD``."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(young, middle, oldest)
