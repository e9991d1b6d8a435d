"""The schema of the whole project, at the top of the layers: one Alembic environment
whose migrations (``versions/``) create every package's tables, and the operations
behind ``elgrande db upgrade|current|check`` (``serve`` upgrades at start).

No other package migrates: building a ``MatchStore`` or an app expects the schema to
be there already."""

from .run import SchemaError, check, current, heads, require_current, upgrade

__all__ = ["SchemaError", "check", "current", "heads", "require_current", "upgrade"]
