"""The database base layer: the declarative ``Base`` and engines (an SQLite file in WAL
mode by default, PostgreSQL by URL). No tables live here: each package owns its own."""

from .base import Base
from .engine import DEFAULT_URL, make_engine, writer

__all__ = ["DEFAULT_URL", "Base", "make_engine", "writer"]
