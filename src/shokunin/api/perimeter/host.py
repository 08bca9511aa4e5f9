"""Refuse requests whose ``Host`` the server does not answer to (DNS rebinding).

A page on ``attacker.example`` that rebinds its name to 127.0.0.1 reaches a loopback
server with ``Host: attacker.example`` and a matching ``Origin``, which the Origin check
alone accepts. So every HTTP request and WebSocket handshake (Socket.IO and /mcp are
inside the app) must name a configured host: loopback names by default (``localhost`` and
its subdomains, which browsers never resolve elsewhere, and loopback addresses), plus
``SHOKUNIN_ALLOWED_HOSTS``. An entry is a host name or address (any port), ``.example.com``
for that domain and its subdomains (Django's convention), or ``*`` to turn the check off.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

from starlette.datastructures import Headers
from starlette.types import ASGIApp, Receive, Scope, Send

from shokunin.api.errors import deny_before_accept

SETTING = "SHOKUNIN_ALLOWED_HOSTS"


def host_name(host: str) -> str:
    """``host`` without its port, lower case; an IPv6 address keeps its brackets."""
    host = host.strip().lower().rstrip(".")
    if host.startswith("["):
        return host[:host.find("]") + 1] if "]" in host else host
    name, colon, port = host.rpartition(":")
    return name.rstrip(".") if colon and port.isdigit() else host


def is_loopback_name(name: str) -> bool:
    """``localhost``, ``*.localhost`` (RFC 6761) or a loopback address."""
    if name == "localhost" or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name.strip("[]")).is_loopback
    except ValueError:
        return False


def host_allowed(host: str | None, allowed: frozenset[str]) -> bool:
    """Whether a request naming ``host`` may proceed, given the configured entries."""
    if "*" in allowed:
        return True
    name = host_name(host) if host else ""
    if not name:
        return False
    if is_loopback_name(name) or name in allowed:
        return True
    return any(entry.startswith(".") and (name.endswith(entry) or name == entry[1:])
               for entry in allowed)


class HostMiddleware:
    def __init__(self, app: ASGIApp, allowed_hosts: Iterable[str] = ()) -> None:
        self.app = app
        self.allowed = frozenset(
            entry if entry == "*" or entry.startswith(".") else host_name(entry)
            for entry in (e.strip().lower() for e in allowed_hosts) if entry)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            host = Headers(scope=scope).get("host")
            if not host_allowed(host, self.allowed):
                shown = repr(host[:100]) if host else "(none)"
                await deny_before_accept(
                    scope, receive, send, 400,
                    f"host {shown} is not allowed: this server answers to loopback names; "
                    f"add the name to {SETTING} to serve it", "forbidden_host")
                return
        await self.app(scope, receive, send)
