"""What ``scripts/gc_probe`` logged: per server process, its young, middle and full
collections in the last T seconds (count, p50, max, total) and the time stopped.

    .venv/bin/python scripts/gc_summary.py /tmp/gc 300
"""

from __future__ import annotations

import argparse
import glob
import json
import statistics


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("prefix", help="GCPROBE_OUT as given to the probe")
    parser.add_argument("seconds", type=float, help="the window: the last T seconds logged")
    args = parser.parse_args()
    paths = sorted(glob.glob(f"{args.prefix}.*.jsonl"))
    if not paths:
        parser.error(f"no {args.prefix}.<pid>.jsonl: was GCPROBE_OUT set to that?")
    for path in paths:
        with open(path) as log:
            rows = [json.loads(line) for line in log if line.startswith('{"gen"')]
        if not rows:
            continue
        start = rows[-1]["t"] - args.seconds
        window = [row for row in rows if row["t"] >= start]
        print(path)
        for generation, name in enumerate(("young", "middle", "full")):
            times = sorted(row["ms"] for row in window if row["gen"] == generation)
            if times:
                print(f"  {name}: {len(times)} collections, p50 {statistics.median(times):.1f} "
                      f"ms, max {times[-1]:.1f} ms, total {sum(times) / 1e3:.2f} s")
        stopped = sum(row["ms"] for row in window) / 1e3
        long = sum(row["ms"] for row in window if row["ms"] > 100) / 1e3
        print(f"  stopped {stopped:.2f} s, {long:.2f} s of it in pauses over 100 ms")


if __name__ == "__main__":
    main()
