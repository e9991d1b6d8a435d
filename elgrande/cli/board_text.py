"""A plain-text picture of the board for the terminal game."""

from __future__ import annotations

from elgrande.rules import State
from elgrande.rules.board import AREA_CODES, AREA_NAMES, NUM_AREAS
from elgrande.rules.cards import CARDS
from elgrande.rules.scoring import awards_of


def render(s: State, seat: int | None = None) -> str:
    n = s.n
    lines = []
    round_text = f"round {s.round}" if s.phase else "set-up"
    lines.append(f"== {round_text} of {s.config.rounds} ({', '.join(str(r) for r in s.config.round_labels)}) "
                 f"· phase {s.phase_name} · King in {AREA_CODES[s.king] if s.king >= 0 else '-'} ==")
    header = "area                     awards   " + " ".join(f"  p{p}" for p in range(n)) + "   marks"
    lines.append(header)
    for a in range(NUM_AREAS):
        counts = " ".join(f"{s.cab[a * n + p]:4d}" for p in range(n))
        marks = []
        if a == s.king:
            marks.append("KING")
        marks += [f"Grande p{p}" for p in range(n) if s.grande[p] == a]
        marks += [f"tile {'/'.join(map(str, t))}" for i, t in enumerate(((8, 4, 0), (4, 0, 0))) if s.tiles[i] == a]
        awards = "/".join(str(x) for x in awards_of(s, a))
        lines.append(f"{AREA_CODES[a]} {AREA_NAMES[a]:<20} {awards:<8} {counts}   {', '.join(marks)}")
    lines.append("")
    for p in range(n):
        hand = [v for v in range(1, 14) if s.hand[p] >> v & 1]
        me = " (you)" if p == seat else ""
        bid = f" bid {s.bids[p]}" if s.bids[p] else ""
        lines.append(f"p{p}{me}: score {s.scores[p]:3d} · court {s.court[p]:2d} · provinces {s.provinces[p]:2d}"
                     f"{bid} · hand {' '.join(map(str, hand))}")
    if s.available:
        lines.append("cards this round: " + " | ".join(f"{CARDS[c].id} {CARDS[c].name}" for c in s.available))
    if s.card >= 0:
        lines.append(f"card in play: {CARDS[s.card].id} — {CARDS[s.card].text}")
    return "\n".join(lines)
