"""Fit the learned evaluation (``value.py``) on self-play games: ``elgrande train-value``.

1. **Play.** Games between heuristic bots (``medium``, and ``easy`` in some seats so that
   weaker positions are seen too), and search bots in a share of the seats if asked (so
   that the positions a search reaches against searching opponents are seen too), for
   each number of players asked. Every time a new
   turn starts, a round begins or a scoring changes the scores, the position's features
   are recorded; at the end every record gets the game's win shares as its target.
2. **Fit.** For each (players, rounds left), the conditional logit's weights by Newton's
   method (the log-likelihood is concave; a small ridge keeps rare stages finite).
3. **Check.** One game in five is held out. On those positions the learned chances are
   compared with what the search used before (each seat's ``sigmoid(lead / 6)``) by
   log loss and Brier score against who won.

Needs numpy (``pip install elgrande[learn]``, in the dev extras); playing does not.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from elgrande.rules import (
    GameConfig,
    Options,
    apply,
    is_chance,
    is_terminal,
    new_game,
    resolve_chance,
    to_act,
    winners,
)

from .evaluate import evaluate
from .ismcts import turn_key
from .levels import make_bot
from .tournament import derive_seed
from .value import NUM_FEATURES, ValueModel, features, stage

HELD_OUT_EVERY = 5  # game g is held out when g % 5 == 4
RIDGE = 1.0  # L2 penalty on the weights, summed over a stage's positions
OLD_TEMPERATURE = 6.0  # the search's fixed squashing before (ismcts.rewards)


@dataclass(frozen=True)
class Record:
    """One position: its game, players, rounds left, features, the hand-set evaluation."""

    game: int
    players: int
    rounds: int
    features: list[list[float]]
    evaluation: list[float]


@dataclass(frozen=True)
class GameData:
    game: int
    records: list[Record]
    shares: list[float]  # final win share per seat


DEFAULT_SEARCH_BOT = "ismcts:300"


@dataclass(frozen=True)
class Field:
    """Who plays the training games: each seat is ``search_bot`` with chance
    ``search_share``, else ``easy`` with chance ``easy_share``, else ``medium``."""

    easy_share: float = 0.2
    search_share: float = 0.0
    search_bot: str = DEFAULT_SEARCH_BOT

    def __post_init__(self) -> None:
        for name, share in (("easy", self.easy_share), ("search", self.search_share)):
            if not 0 <= share <= 1:
                raise ValueError(f"the {name} share is a chance, from 0 to 1")
        if self.easy_share + self.search_share > 1:
            raise ValueError("the easy and search shares add up to more than 1")
        make_bot(self.search_bot)  # an unknown name fails here, before any game is played


def game_bots(seed: int, game: int, players: int, field: Field) -> list[str]:
    # One draw per seat, so that a field without search seats deals as before they existed.
    rng = random.Random(derive_seed("train-bots", seed, players, game))
    names = []
    for _ in range(players):
        draw = rng.random()
        if draw < field.search_share:
            names.append(field.search_bot)
        elif draw < field.search_share + field.easy_share:
            names.append("easy")
        else:
            names.append("medium")
    return names


def play_and_record(args: tuple[int, int, int, int, Field]) -> GameData:
    """Play one game and record its positions (a worker's job)."""
    seed, game, players, rounds, field = args
    names = game_bots(seed, game, players, field)
    bots = [make_bot(name, derive_seed("train-seat", seed, players, game, p))
            for p, name in enumerate(names)]
    config = GameConfig(players=players, rounds=rounds, options=Options.preset("yucata"))
    chance = random.Random(derive_seed("train-chance", seed, players, game))
    s = new_game(config)
    records: list[Record] = []
    last: tuple[Any, ...] = ()
    while not is_terminal(s):
        key = (*turn_key(s), tuple(s.scores))
        if key != last:
            last = key
            records.append(Record(game, players, stage(s), features(s), evaluate(s)))
        if is_chance(s):
            resolve_chance(s, chance)
            continue
        seat = to_act(s)[0]
        apply(s, bots[seat].choose(s, seat))
    win = winners(s)
    shares = [1.0 / len(win) if p in win else 0.0 for p in range(players)]
    return GameData(game, records, shares)


def generate(games: int, players: Sequence[int], seed: int, workers: int = 1,
             rounds: int = 9, field: Field = Field(),
             progress: Callable[[Iterator[GameData], int], Iterator[GameData]] | None = None
             ) -> list[GameData]:
    """``games`` games for each player count, played in ``workers`` processes."""
    jobs = [(seed, g, n, rounds, field) for n in players for g in range(games)]
    if workers <= 1:
        it: Iterator[GameData] = map(play_and_record, jobs)
        return list(progress(it, len(jobs)) if progress else it)
    # Search games take far longer than heuristic ones: small chunks keep both workers busy.
    chunk = 1 if field.search_share else 4
    with ProcessPoolExecutor(max_workers=workers) as pool:
        it = pool.map(play_and_record, jobs, chunksize=chunk)
        return list(progress(it, len(jobs)) if progress else it)


def _arrays(data: Sequence[GameData], n: int, rounds: int) -> tuple[Any, Any, Any]:
    import numpy as np

    xs, ys, evs = [], [], []
    for g in data:
        for r in g.records:
            if r.players == n and r.rounds == rounds:
                xs.append(r.features)
                ys.append(g.shares)
                evs.append(r.evaluation)
    return (np.array(xs, dtype=float).reshape(-1, n, NUM_FEATURES),
            np.array(ys, dtype=float).reshape(-1, n), np.array(evs, dtype=float).reshape(-1, n))


def _softmax(u: Any) -> Any:
    import numpy as np

    e = np.exp(u - u.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def fit_stage(x: Any, y: Any, ridge: float = RIDGE, steps: int = 50) -> list[float]:
    """Weights maximising sum(y * log softmax(x @ w)) - ridge/2 |w|^2 (Newton, with halving)."""
    import numpy as np

    k = x.shape[2]
    w = np.zeros(k)

    def objective(w: Any) -> float:
        u = x @ w
        top = u.max(axis=1, keepdims=True)
        logp = u - top - np.log(np.exp(u - top).sum(axis=1, keepdims=True))
        return float((y * logp).sum() - ridge / 2 * w @ w)

    value = objective(w)
    for _ in range(steps):
        p = _softmax(x @ w)
        mean = np.einsum("mn,mnk->mk", p, x)
        grad = np.einsum("mn,mnk->k", y - p, x) - ridge * w
        second = np.einsum("mn,mnk,mnj->kj", p, x, x) - mean.T @ mean
        hess = second + ridge * np.eye(k)
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-6:
            candidate = w + t * step
            new = objective(candidate)
            if new >= value:
                break
            t /= 2
        else:
            break
        w, gain, value = candidate, new - value, new
        if gain < 1e-9 * max(1.0, abs(value)):
            break
    return [float(v) for v in w]


def _scores(chances: Any, y: Any) -> tuple[float, float]:
    """(log loss, Brier score) of predicted chances against the win shares."""
    import numpy as np

    eps = 1e-12
    logloss = float(-(y * np.log(np.clip(chances, eps, 1.0))).sum(axis=1).mean())
    brier = float(((chances - y) ** 2).sum(axis=1).mean())
    return logloss, brier


def _old_rewards(ev: Any) -> Any:
    """ismcts.rewards before: each seat's sigmoid(lead over its best opponent / 6)."""
    import numpy as np

    n = ev.shape[1]
    lead = np.empty_like(ev)
    for p in range(n):
        others = np.delete(ev, p, axis=1)
        lead[:, p] = ev[:, p] - others.max(axis=1)
    return 1.0 / (1.0 + np.exp(-lead / OLD_TEMPERATURE))


def fit(data: Sequence[GameData], players: Sequence[int], rounds: int = 9
        ) -> tuple[ValueModel, dict[str, Any]]:
    """The model fitted on the training games and its check on the held-out ones."""
    import numpy as np

    train = [g for g in data if g.game % HELD_OUT_EVERY != HELD_OUT_EVERY - 1]
    test = [g for g in data if g.game % HELD_OUT_EVERY == HELD_OUT_EVERY - 1]
    weights: dict[str, list[float]] = {}
    check: dict[str, Any] = {}
    for n in players:
        positions = 0
        totals = {name: [0.0, 0.0] for name in ("learned", "old", "old_normalised", "uniform")}
        for r in range(1, rounds + 1):
            x, y, _ = _arrays(train, n, r)
            if len(x) == 0:
                continue
            w = fit_stage(x, y)
            weights[f"{n}:{r}"] = w
            tx, ty, tev = _arrays(test, n, r)
            if len(tx) == 0:
                continue
            m = len(tx)
            positions += m
            old = _old_rewards(tev)
            for name, pred in (("learned", _softmax(tx @ np.array(w))),
                               ("old", old),
                               ("old_normalised", old / old.sum(axis=1, keepdims=True)),
                               ("uniform", np.full_like(ty, 1.0 / n))):
                loss, brier = _scores(pred, ty)
                totals[name][0] += loss * m
                totals[name][1] += brier * m
        m = max(positions, 1)
        check[str(n)] = {
            "training_games": sum(1 for g in train if g.records and g.records[0].players == n),
            "training_positions": sum(len(g.records) for g in train
                                      if g.records and g.records[0].players == n),
            "held_out_positions": positions,
            **{f"{name}_log_loss": round(totals[name][0] / m, 4)
               for name in ("learned", "old_normalised", "uniform")},
            **{f"{name}_brier": round(totals[name][1] / m, 4)
               for name in ("learned", "old", "old_normalised", "uniform")},
        }
    info = {
        "positions": sum(len(g.records) for g in train),
        "games": len(train),
        "held_out": check,
    }
    return ValueModel(weights, info), info


def merge(old: ValueModel, new: ValueModel) -> ValueModel:
    """``new``'s player counts over ``old``'s others; the commands chained, so the
    recorded command still makes the file again."""
    trained = {key.partition(":")[0] for key in new.weights}
    weights = {k: w for k, w in old.weights.items() if k.partition(":")[0] not in trained}
    held_out = {n: c for n, c in old.info.get("held_out", {}).items() if n not in trained}
    held_out = dict(sorted({**held_out, **new.info["held_out"]}.items()))
    info = {
        **new.info,
        "command": f"{old.info.get('command', '?')} && {new.info['command']}",
        "seconds": round(old.info.get("seconds", 0.0) + new.info["seconds"], 1),
        "held_out": held_out,
    }
    # The totals, where every player count says what it was trained on.
    for total, key in (("games", "training_games"), ("positions", "training_positions")):
        counts = [c.get(key) for c in held_out.values()]
        if None in counts:
            info.pop(total, None)
        else:
            info[total] = sum(counts)
    return ValueModel(dict(sorted({**weights, **new.weights}.items())), info)


def describe(check: dict[str, Any]) -> list[str]:
    """The held-out check as a table. "before": the search's old reward, each seat's
    sigmoid(lead / 6); "scaled": the same divided by its sum, so that it is a distribution."""
    lines = [f"{'players':>7} {'positions':>9}  {'Brier: learned':>14} {'before':>7} "
             f"{'scaled':>7} {'uniform':>7}  {'log loss: learned':>17} {'scaled':>7} "
             f"{'uniform':>7}"]
    for n, c in check.items():
        old_loss = c.get("old_normalised_log_loss", math.nan)
        old_brier = c.get("old_normalised_brier", math.nan)
        lines.append(f"{n:>7} {c['held_out_positions']:>9}  {c['learned_brier']:>14.4f} "
                     f"{c['old_brier']:>7.4f} {old_brier:>7.4f} {c['uniform_brier']:>7.4f}  "
                     f"{c['learned_log_loss']:>17.4f} {old_loss:>7.4f} "
                     f"{c['uniform_log_loss']:>7.4f}")
    return lines
