"""A learned evaluation: each seat's chance of winning a position, fitted on self-play.

``evaluate`` adds the parts of a position (score, majorities, the Castillo, reserves,
tempo, power cards) with hand-set weights, and ISMCTS squashes each seat's lead with a
fixed sigmoid. Here the same parts are *features*, and their weights are fitted on played
games for each number of players and each number of rounds left: a seat's utility is
``u_p = sum_k w_k * f_pk`` and its chance of winning is ``exp(u_p) / sum_q exp(u_q)`` (a
conditional logit, as for a race with one winner). The chances sum to 1, like the win
shares a finished game pays, and they are calibrated: how much a lead in round 2 is worth
is learned, not assumed.

The weights come from ``elgrande train-value`` (``train_value.py``, docs/ai.md "A learned
evaluation") and live in ``value_model.json`` next to this module; playing needs nothing
but this file.
"""

from __future__ import annotations

import json
import math
from importlib import resources
from typing import Any

from elgrande.rules.board import CASTILLO
from elgrande.rules.state import BID, State

from .evaluate import (
    _HAND,
    _HAND_MASK,
    _finished_turns,
    _pending_recruits,
    _release_gain,
    area_awards,
    area_points,
    scorings_left,
)

#: The features of a seat, in the order of the weights.
FEATURES = (
    "score",  # points scored so far
    "regions",  # what the nine regions would pay now (with King and home bonuses)
    "castillo",  # what the Castillo would pay now
    "release",  # what its Castillo Caballeros add to the best region they can reach
    "court",  # Caballeros in court (and recruits due this round) that can still be placed
    "provinces",  # Caballeros in the provinces, per six, while there are rounds to recruit
    "tempo",  # this round's bid, by rank, while bids are being made
    "hand",  # power-card value kept in hand, as far as rounds are left to play it
    "leads",  # regions it leads alone
    "board",  # Caballeros in the nine regions
    # Whether the seat's turn of this round is still to come, and the Caballeros it could
    # place in it (at most five): mid-round, as where a playout cut at the next turn ends,
    # a seat that has played has used its turn and the others have not. Constant across
    # the seats at a round's start or end, so there they change no chance.
    "to_play",
    "placeable",
)
NUM_FEATURES = len(FEATURES)
FEATURES_BEFORE_TURNS = 10  # models fitted before to_play and placeable have these first ones
MODEL_FILE = "value_model.json"


def stage(s: State) -> int:
    """Rounds still to be played, the current one included (0 once the game is over)."""
    return scorings_left(s)[1]


def features(s: State) -> list[list[float]]:
    """``FEATURES`` of every seat, from the full state (a determinisation in a search)."""
    n = s.n
    generals, rounds = scorings_left(s)
    cab, king, grande = s.cab, s.king, s.grande
    aws = area_awards(s.tiles)
    out = [[float(s.scores[p])] + [0.0] * (NUM_FEATURES - 1) for p in range(n)]
    region_points = []
    for area in range(9):
        counts = cab[area * n: area * n + n]
        pts = area_points(counts, aws[area], n, area, king, grande)
        region_points.append(pts)
        top = max(counts)
        for p in range(n):
            row = out[p]
            row[1] += pts[p]
            row[9] += counts[p]
            if top > 0 and counts[p] == top and counts.count(top) == 1:
                row[8] += 1.0
    cas = cab[CASTILLO * n: CASTILLO * n + n]
    if any(cas):
        pts = area_points(cas, aws[CASTILLO], n, CASTILLO, king, grande)
        for p in range(n):
            out[p][2] = float(pts[p])
            if cas[p] and generals:
                out[p][3] = _release_gain(s, p, cas[p], region_points)
    finished = _finished_turns(s)
    pending = _pending_recruits(s, finished, s.active, s.bids)
    future = max(rounds - 1, 0)
    played = sorted((b for b in s.bids if b), reverse=True) if s.phase == BID else []
    for p in range(n):
        row = out[p]
        turns_left = rounds - (1 if p in finished else 0)
        if turns_left > 0:
            row[4] = float(min(s.court[p] + pending[p], 5 * turns_left))
        row[5] = min(s.provinces[p], 6 * future) / 6
        b = s.bids[p]
        if played and b:
            row[6] = (1 - played.index(b) / max(1, n - 1)) * (b / 13)
        total, count = _HAND[s.hand[p] & _HAND_MASK]
        if count:
            row[7] = total * min(1.0, future / count)
        if s.order and s.phase != BID and p not in finished:
            row[10] = 1.0
            row[11] = float(min(s.court[p] + pending[p], 5))
    return out


class ValueModel:
    """Fitted weights per (players, rounds left); ``chances(s)`` are the win chances."""

    def __init__(self, weights: dict[str, list[float]], info: dict[str, Any] | None = None
                 ) -> None:
        for key, w in weights.items():
            if len(w) != NUM_FEATURES:
                raise ValueError(f"value model: stage {key} has {len(w)} weights, "
                                 f"expected {NUM_FEATURES}")
        self.weights = weights
        self.info = info or {}
        # Looked up by (players, rounds left); a stage the training never saw (a 6-round
        # game's, say) borrows the nearest one with as many rounds left or fewer.
        self._table: dict[tuple[int, int], list[float]] = {}
        for key, w in weights.items():
            players, _, rounds = key.partition(":")
            self._table[(int(players), int(rounds))] = w

    def weights_for(self, n: int, rounds: int) -> list[float]:
        for r in range(rounds, 0, -1):
            w = self._table.get((n, r))
            if w is not None:
                return w
        raise ValueError(f"value model: no weights for {n} players")

    def utilities(self, s: State) -> list[float]:
        w = self.weights_for(s.n, max(stage(s), 1))
        out = []
        for row in features(s):
            u = 0.0
            for k in range(NUM_FEATURES):
                u += w[k] * row[k]
            out.append(u)
        return out

    def chances(self, s: State) -> list[float]:
        u = self.utilities(s)
        top = max(u)
        e = [math.exp(x - top) for x in u]
        total = sum(e)
        return [x / total for x in e]

    def to_dict(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "weights": self.weights, **self.info}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ValueModel:
        """The model a file describes. A model fitted before ``to_play`` and
        ``placeable`` existed (the shipped one among them) weighs them 0: it judges as
        before."""
        names = list(data.get("features", ()))
        if names not in (list(FEATURES), list(FEATURES[:FEATURES_BEFORE_TURNS])):
            raise ValueError("value model: its features are not this code's FEATURES; "
                             "train it again with `elgrande train-value`")
        pad = [0.0] * (NUM_FEATURES - len(names))
        info = {k: v for k, v in data.items() if k not in ("features", "weights")}
        return cls({k: [float(x) for x in w] + pad for k, w in data["weights"].items()}, info)


_LOADED: list[ValueModel] = []


def load_model() -> ValueModel:
    """The shipped model (``value_model.json``), read once per process."""
    if not _LOADED:
        # The package's files, not this module's folder: compiled, this module lives in
        # the build (elgrande/rules/compiled.py), and the model stays with the sources.
        text = resources.files("elgrande.ai").joinpath(MODEL_FILE).read_text()
        _LOADED.append(ValueModel.from_dict(json.loads(text)))
    return _LOADED[0]
