"""Persistence: SQLAlchemy 2 async over SQLite by default, PostgreSQL by URL."""

from shokunin.store.checkpointer import close_checkpointer, open_checkpointer
from shokunin.store.database import create_engine
from shokunin.store.datasets import DatasetRecords
from shokunin.store.event_writer import Write
from shokunin.store.kernel_homes import KernelHomes
from shokunin.store.migrations import LATEST, migrate
from shokunin.store.outage import RETRY_AFTER_SEC, DatabaseUnavailable, unreachable
from shokunin.store.rows import RunRow, RunStatus, ThreadRow, ThreadSummary
from shokunin.store.safe_files import SafeTree, UnsafePath, read_resolved
from shokunin.store.store import Store

__all__ = ["RETRY_AFTER_SEC", "DatabaseUnavailable", "DatasetRecords", "KernelHomes", "LATEST",
    "RunRow", "RunStatus", "SafeTree", "Store", "ThreadRow", "ThreadSummary", "UnsafePath", "Write",
    "close_checkpointer", "create_engine", "migrate", "open_checkpointer", "read_resolved",
    "unreachable"]
