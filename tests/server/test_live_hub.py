"""The hub of live updates keeps nothing for a game nobody watches any more (issue 11,
item 18: an empty entry per game ever opened was a slow leak)."""

from __future__ import annotations

from elgrande.server.live import Hub


def test_the_hub_forgets_games_nobody_watches() -> None:
    opened: list[tuple[str, int]] = []
    closed: list[tuple[str, int]] = []
    hub = Hub(on_open=[lambda m, s: opened.append((m, s))],
              on_close=[lambda m, s: closed.append((m, s))])
    pages = [hub.subscribe(f"match:m{i}", seat) for i in range(100) for seat in (0, None)]
    assert len(hub._subscribers) == 100
    for page in pages:
        hub.unsubscribe(page)
    assert hub._subscribers == {}
    assert sorted(opened) == sorted(closed) == sorted((f"m{i}", 0) for i in range(100))
    hub.unsubscribe(pages[0])  # twice: nothing more happens
    assert len(closed) == 100
