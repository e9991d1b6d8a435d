"""Test tiers: every test that needs a PostgreSQL server, a Redis server or a browser gets
the marker ``postgres``, ``redis`` or ``browser`` here, from what it uses, so that nobody
has to remember to mark: ``pytest -m "not (postgres or redis or browser)"`` (make
test-quick) runs the rest. A test is marked when

- it lies under tests/browser/;
- it, or a fixture it uses, asks for a fixture named below (e.g. ``postgres_url``);
- it is parametrized with the value "postgresql" (the fixtures that run one test on
  SQLite and on PostgreSQL start PostgreSQL only for that value) or its name says
  postgresql (e.g. a Hypothesis state machine's TestCase);
- its code, or its fixtures' code, names one of the server classes below.
"""

from __future__ import annotations

import os

# The suite runs the pure rules engine, the reference (docs/compiled-engine.md), however
# pytest is started (`make test` says so too); tests/rules/test_compiled.py runs the
# compiled one in processes of its own and compares the two.
os.environ.setdefault("ELGRANDE_ENGINE", "pure")

import inspect  # noqa: E402
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

FIXTURES = {
    "postgres": {"postgres_server", "postgres_url"},
    "redis": {"redis_server"},
    "browser": {"playwright", "browser"},
}
NAMES = {
    "postgres": {"PostgresServer", "RestartablePostgres", "shared_server"},
    "redis": {"RedisServer"},
    "browser": {"sync_playwright", "async_playwright"},
}
BROWSER_DIR = Path(__file__).parent / "browser"


def _code_names(code: types.CodeType) -> Iterator[str]:
    """Global and attribute names a function's code refers to, nested functions included."""
    yield from code.co_names
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_names(const)


def _tiers(item: pytest.Item) -> set[str]:
    tiers = {tier for tier, names in FIXTURES.items()
             if names & set(getattr(item, "fixturenames", ()))}
    if BROWSER_DIR in item.path.parents:
        tiers.add("browser")
    callspec = getattr(item, "callspec", None)
    if (callspec is not None and "postgresql" in callspec.params.values()) \
            or "postgresql" in item.nodeid.lower():
        tiers.add("postgres")
    functions = [getattr(item, "function", None)]
    info = getattr(item, "_fixtureinfo", None)
    if info is not None:
        functions += [d.func for defs in info.name2fixturedefs.values() for d in defs]
    names: set[str] = set()
    for function in functions:
        code = getattr(inspect.unwrap(function), "__code__", None) if function else None
        if code is not None:
            names.update(_code_names(code))
    tiers |= {tier for tier, server_names in NAMES.items() if server_names & names}
    return tiers


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for tier in sorted(_tiers(item)):
            item.add_marker(tier)
