"""Persistence: SQLAlchemy 2 async over SQLite by default, PostgreSQL by URL."""

from shokunin.store.database import create_engine
from shokunin.store.migrations import LATEST, migrate
from shokunin.store.store import Store

__all__ = ["LATEST", "Store", "create_engine", "migrate"]
