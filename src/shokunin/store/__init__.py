"""Persistence: SQLAlchemy 2 async over SQLite by default, PostgreSQL by URL."""

from shokunin.store.checkpointer import close_checkpointer, open_checkpointer
from shokunin.store.database import create_engine
from shokunin.store.migrations import LATEST, migrate
from shokunin.store.store import Store

__all__ = ["LATEST", "Store", "close_checkpointer", "create_engine", "migrate",
           "open_checkpointer"]
