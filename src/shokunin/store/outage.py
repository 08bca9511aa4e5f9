"""The database does not answer: how such a failure is told apart from a bug, and the
error a client gets for it (503 ``database_unavailable``, try again shortly).

A PostgreSQL server restarted, a network cut, a SQLite file locked past its wait: the
driver raises its own error (``ConnectionRefusedError`` while connecting, a SQLAlchemy
``OperationalError`` / ``InterfaceError`` or an invalidated connection later). The pool
checks a connection before lending it (``pool_pre_ping``), so once the database is back the
next request works again without a restart.
"""

from __future__ import annotations

from sqlalchemy.exc import DBAPIError, InterfaceError, OperationalError

from shokunin.errors import ErrorCode, ShokuninError

RETRY_AFTER_SEC = 2


class DatabaseUnavailable(ShokuninError):
    """The database did not answer; nothing was done, the request may be sent again."""

    status = 503
    code = ErrorCode.DATABASE_UNAVAILABLE


def unreachable(exc: BaseException) -> bool:
    """Whether ``exc`` says the database could not be reached (not that a query was wrong)."""
    if isinstance(exc, (ConnectionRefusedError, ConnectionResetError, ConnectionAbortedError,
                        BrokenPipeError)):
        return True
    if isinstance(exc, (OperationalError, InterfaceError)):
        return True
    return isinstance(exc, DBAPIError) and exc.connection_invalidated
