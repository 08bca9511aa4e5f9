"""Who may see a thread: the principal the auth middleware set, and the thread's owner.

No principal (auth off) and ``"admin"`` see everything; an API key's principal sees only
the threads it owns. Until the threads table has an ``owner`` column, every thread is
visible.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.requests import HTTPConnection


def principal(conn: HTTPConnection) -> str | None:
    return getattr(conn.state, "principal", None)


def owner_scope(who: str | None) -> str | None:
    """The owner whose threads ``who`` is limited to; None when it sees every thread."""
    return None if who in (None, "admin") else who


def may_see(who: str | None, thread: Mapping[str, Any]) -> bool:
    scope = owner_scope(who)
    return scope is None or "owner" not in thread or thread["owner"] == scope
