"""The principal a connection runs as, as the auth middleware set it: None (auth off),
``"admin"``, or an API key's name."""

from __future__ import annotations

from starlette.requests import HTTPConnection


def principal(conn: HTTPConnection) -> str | None:
    return getattr(conn.state, "principal", None)
