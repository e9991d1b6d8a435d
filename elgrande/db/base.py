"""The declarative base every package declares its tables on. Each package owns its
tables (``elgrande/matches/tables.py``, ``elgrande/server/tables.py``,
``elgrande/scale/tables.py``); the migrations (``elgrande/migrations``) import them all."""

from __future__ import annotations

from sqlalchemy.orm import DeclarativeBase


class Base(DeclarativeBase):
    pass
