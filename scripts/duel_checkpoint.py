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
    .venv/bin/python scripts/duel_checkpoint.py OUT.json --resume [the same options]

(``--workers`` is ignored: one process.) The report keeps every pair's games in full
(``checkpoint``), so ``--resume`` goes on from the pairs in OUT.json, with the same
options, in another process or session: a duel stopped for time can be continued until
its test decides, and ends with the same pairs, games and figures as one run would.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from dataclasses import asdict
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
ROLES = ("candidate", "baseline")


class ResumeError(ValueError):
    pass


def record_from_dict(d: dict[str, Any]) -> GameRecord:
    return GameRecord(index=d["index"], bots=tuple(d["bots"]), scores=tuple(d["scores"]),
                      seconds=tuple(d["seconds"]), decisions=tuple(d["decisions"]),
                      decision_seconds=tuple(tuple(x) for x in d["decision_seconds"]),
                      turn_seconds=tuple(tuple(x) for x in d["turn_seconds"]))


def resumed(out: str, expected: dict[str, Any]
            ) -> tuple[list[PairResult], list[dict[str, dict[str, int]]], float]:
    """The pairs, their court counts and the wall seconds kept in checkpoint ``out``,
    which must be this duel's (``expected``: what the options' report says of the duel)."""
    try:
        with open(out, encoding="utf-8") as f:
            data = json.load(f)
    except OSError as exc:
        raise ResumeError(f"cannot read {out!r} to resume: {exc.strerror}") from None
    except json.JSONDecodeError as exc:
        raise ResumeError(f"{out!r} is not JSON: {exc}") from None
    if "checkpoint" not in data:
        raise ResumeError(f"{out!r} keeps no games to resume from (written by an older "
                          "version of this script, or not by it)")
    for key in expected:
        if data.get(key) != expected.get(key):
            raise ResumeError(f"{out!r} is another duel: its {key} is {data.get(key)!r}, "
                              f"these options give {expected.get(key)!r}")
    pairs, courts = [], []
    for k, p in enumerate(data["checkpoint"]):
        if p["pair"] != k:
            raise ResumeError(f"{out!r}: pair {k} is missing")
        pairs.append(PairResult(k, p["seat"], record_from_dict(p["candidate"]),
                                record_from_dict(p["baseline"]), p["cpu_seconds"]))
        courts.append(p["court"])
    return pairs, courts, float(data.get("wall_seconds", 0.0))


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


def report(config: Any, args: argparse.Namespace, pairs: list[PairResult],
           courts: list[dict[str, dict[str, int]]], wall: float) -> dict[str, Any]:
    """The duel's report after ``pairs`` (with the games kept for ``--resume``)."""
    bounds = sprt.Bounds.of(config.alpha, config.beta)
    value = sprt.llr((p.score for p in pairs), config.mu0, config.mu1)
    result = DuelResult(config, tuple(pairs), value, bounds, bounds.verdict(value))
    data: dict[str, Any] = duel_cli._as_dict(result, args)
    data["court"] = {role: {key: sum(c[role][key] for c in courts) for key in COURT_KEYS}
                     for role in ROLES}
    data["wall_seconds"] = wall
    data["finished"] = result.verdict != sprt.CONTINUE or len(pairs) >= config.max_pairs
    data["checkpoint"] = [
        {"pair": p.pair, "seat": p.seat, "cpu_seconds": p.cpu_seconds, "court": c,
         "candidate": asdict(p.candidate), "baseline": asdict(p.baseline)}
        for p, c in zip(pairs, courts, strict=True)]
    return data


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    resume = "--resume" in argv
    if resume:
        argv.remove("--resume")
    if not argv or argv[0].startswith("-"):
        print("usage: duel_checkpoint.py OUT.json [--resume] [elgrande duel's options]",
              file=sys.stderr)
        return 2
    out = argv[0]
    parser = argparse.ArgumentParser(prog="duel_checkpoint")
    sub = parser.add_subparsers()
    duel_cli.register(sub)
    args = parser.parse_args(["duel", *argv[1:]])
    config = duel_cli._config(args)
    pairs: list[PairResult] = []
    courts: list[dict[str, dict[str, int]]] = []
    wall = 0.0
    if resume:
        try:
            pairs, courts, wall = resumed(out, duel_cli._identity(config, args))
        except ResumeError as exc:
            print(f"duel_checkpoint: {exc}", file=sys.stderr)
            return 2
        if pairs and report(config, args, pairs, courts, wall)["finished"]:
            print(f"duel_checkpoint: {out} is finished already", file=sys.stderr)
            return 0
    started = time.time() - wall
    for k in range(len(pairs), config.max_pairs):
        played = []
        cpu = 0.0
        court = {role: dict.fromkeys(COURT_KEYS, 0) for role in ROLES}
        for role, spec in zip(ROLES, pair_specs(config, k), strict=True):
            c0 = time.process_time()
            record, counts = play_counted(spec, k % config.players)
            cpu += time.process_time() - c0
            played.append(record)
            court[role] = counts
        pairs.append(PairResult(k, k % config.players, played[0], played[1], cpu))
        courts.append(court)
        data = report(config, args, pairs, courts, time.time() - started)
        value, verdict = data["llr"], data["verdict"]
        tmp = out + ".tmp"
        with open(tmp, "w") as f:
            json.dump(data, f, indent=2)
        os.replace(tmp, out)
        d = data["share_difference"]
        print(f"pair {k + 1}: LLR {value:+.2f} diff {d['mean']:+.3f} [{d['low']:+.3f}, "
              f"{d['high']:+.3f}] cpu {data['cpu_seconds']:.0f} s court {data['court']}",
              file=sys.stderr, flush=True)
        if verdict != sprt.CONTINUE:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
