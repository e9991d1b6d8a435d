"""The garbage collector tuned for a server that holds thousands of games.

CPython collects its youngest objects every 700 net allocations (made minus freed), and
whatever survives two young collections is promoted to the oldest generation; once the
promoted objects reach a quarter of that generation, a full collection walks every
tracked object with the interpreter stopped. A server holding 2,000 games tracks about
450,000 objects (the pages' sockets, the cached views and logs), and a full collection
takes about 0.5 s on the development machine: every page waits. Collecting the young
generation less often lets the objects of a request or a move die before the collector
looks, so far fewer are promoted and full collections become rare (36 in a 2,000-game
`elgrande bench server --model daily --set-up-first` run at 700, none at 20,000).

Too rarely is no better: the count is net of objects freed, and a server replacing its
cached matches and views frees about as many old objects as it makes, so at 20,000 the
young generation held 50,000 to 125,000 objects when collected (3,000 held games) and each
young collection stopped the pages for 60 to 220 ms (over 1 µs an object on this machine:
the collector's walks miss the processor's caches). 5,000 keeps both pauses short: in the
same 3,000-game runs moves' p99 was 76 and 95 ms against 241 and 132 ms at 20,000
(docs/bench.md, "Capacity"). ``ELGRANDE_GC_YOUNG_THRESHOLD`` sets it per host.
"""

from __future__ import annotations

import gc

YOUNG_THRESHOLD = 5_000


def tune_collector(young: int = YOUNG_THRESHOLD) -> None:
    """Collect the youngest generation every ``young`` allocations (net of those freed;
    the older generations' thresholds unchanged). ``young`` is the setting
    ``ELGRANDE_GC_YOUNG_THRESHOLD``."""
    _, middle, oldest = gc.get_threshold()
    gc.set_threshold(young, middle, oldest)
