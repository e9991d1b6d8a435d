"""`elgrande duel` with one worker that rewrites its JSON report after every pair, so a
duel stopped by hand still leaves its figures (the same games, pairs and JSON as the
command; `elgrande duel` prints nothing until it stops).

It also counts, for the tested seat of each game, the turns that end with Caballeros left
in court although more could have been deployed:

* ``skipped``: the seat ended its turn ("end") while "deploy" was legal (Caballeros in
  court, the deployment not yet made);
* ``stopped_early``: it ended a deployment ("done") with Caballeros in court and places
  left on its card;
* ``left_in_court``: the Caballeros those turns could still have deployed
  (min(court, places left on the card)).

    .venv/bin/python scripts/duel_checkpoint.py OUT.json [elgrande duel's options]

(``--workers`` is ignored: one process.)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

from elgrande.ai import sprt
from elgrande.ai.duel import DuelResult, PairResult, pair_specs
from elgrande.ai.stats import GameRecord
from elgrande.ai.tournament import GameSpec, play_game
from elgrande.cli import duel as duel_cli
from elgrande.rules import Action, State, legal_actions
from elgrande.rules.actions import DEPLOY as A_DEPLOY
from elgrande.rules.actions import DONE as A_DONE
from elgrande.rules.actions import END as A_END
from elgrande.rules.actions import TAKE as A_TAKE
from elgrande.rules.cards import ALL_CARDS
from elgrande.rules.state import CHOOSE, DEPLOY

COURT_KEYS = ("turns", "skipped", "stopped_early", "left_in_court")


def play_counted(spec: GameSpec, watched: int) -> tuple[GameRecord, dict[str, int]]:
    """tournament.play_game, plus the court counts of seat ``watched``."""
    counts = dict.fromkeys(COURT_KEYS, 0)

    def observe(state: State, seat: int, action: Action) -> None:
        if seat != watched or action.seat != seat:
            return
        kind = action.kind_id
        court = state.court[seat]
        if state.phase == CHOOSE and kind == A_END and \
                any(a.kind_id == A_DEPLOY for a in legal_actions(state, seat)):
            counts["skipped"] += 1
            counts["left_in_court"] += min(court, ALL_CARDS[state.card].stack)
        elif state.phase == DEPLOY and kind == A_DONE and court and state.deploy_left:
            counts["stopped_early"] += 1
            counts["left_in_court"] += min(court, state.deploy_left)
        if kind == A_TAKE:
            counts["turns"] += 1

    return play_game(spec, observe), counts


def main() -> int:
    out = sys.argv[1]
    parser = argparse.ArgumentParser(prog="duel_checkpoint")
    sub = parser.add_subparsers()
    duel_cli.register(sub)
    args = parser.parse_args(["duel", *sys.argv[2:]])
    config = duel_cli._config(args)
    bounds = sprt.Bounds.of(config.alpha, config.beta)
    pairs: list[PairResult] = []
    court = {role: dict.fromkeys(COURT_KEYS, 0) for role in ("candidate", "baseline")}
    value, verdict = 0.0, sprt.CONTINUE
    started = time.time()
    for k in range(config.max_pairs):
        played = []
        cpu = 0.0
        for role, spec in zip(("candidate", "baseline"), pair_specs(config, k), strict=True):
            c0 = time.process_time()
            record, counts = play_counted(spec, k % config.players)
            cpu += time.process_time() - c0
            played.append(record)
            for key in COURT_KEYS:
                court[role][key] += counts[key]
        pairs.append(PairResult(k, k % config.players, played[0], played[1], cpu))
        value = sprt.llr((p.score for p in pairs), config.mu0, config.mu1)
        verdict = bounds.verdict(value)
        result = DuelResult(config, tuple(pairs), value, bounds, verdict)
        data: dict[str, Any] = duel_cli._as_dict(result, args)
        data["court"] = court
        data["wall_seconds"] = time.time() - started
        data["finished"] = verdict != sprt.CONTINUE or k + 1 == config.max_pairs
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=2)
        os.replace(tmp, out)
        d = result.share_difference()
        print(f"pair {k + 1}: LLR {value:+.2f} diff {d.mean:+.3f} [{d.low:+.3f}, {d.high:+.3f}]"
              f" cpu {result.cpu_seconds:.0f} s court {court}", file=sys.stderr, flush=True)
        if verdict != sprt.CONTINUE:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
