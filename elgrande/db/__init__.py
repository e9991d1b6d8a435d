"""Storage: SQLAlchemy 2 models and the one Alembic environment of the project."""

from .engine import DEFAULT_URL, database_url, make_engine
from .migrate import upgrade
from .models import Base

__all__ = ["DEFAULT_URL", "Base", "database_url", "make_engine", "upgrade"]
