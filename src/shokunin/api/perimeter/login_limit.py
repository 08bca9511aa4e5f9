"""How many wrong tokens one client address may send before it is answered 429 for a
while: on every route (a Bearer header, the login cookie, an API key; ``api/auth.py``) and
on ``POST /login`` alike, one count per address.

Failed attempts are counted in a moving window per client address (``limits``' in-memory
moving window): a guesser at one address is slowed to ``PER_CLIENT`` tries per window.
There is no server-wide count: it would let anyone refuse the right token to everyone.
Only failures count, and only distinct wrong tokens: a client that keeps retrying one stale
token (a tab or script whose key was revoked, reconnecting every few seconds) learns
nothing new from it, and must not lock the right token out of its address (every local
client shares 127.0.0.1). Every count expires with its window, so the right token works
again from that address once the window has passed (a lockout never lasts). The address
is the connection's peer; a proxy's ``X-Forwarded-For`` only counts when the proxy is
trusted (``SHOKUNIN_FORWARDED_ALLOW_IPS``, applied by uvicorn).
"""

from __future__ import annotations

import hashlib
import math
import time
from typing import Any

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

PER_CLIENT = RateLimitItemPerMinute(10)  # wrong tokens per address per minute
MAX_REMEMBERED = 10_000  # (address, token) pairs kept to tell a repeat from a new guess


class LoginLimiter:
    """Counts failed authentications; ``retry_after()`` says how long a client must wait,
    if at all."""

    def __init__(self, per_client: RateLimitItem = PER_CLIENT) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._item = per_client
        self._seen: dict[tuple[str, str], float] = {}  # (address, token digest) -> expiry

    def retry_after(self, client: str) -> int | None:
        """Seconds until ``client`` may try again; None when it may try now."""
        if self._limiter.test(self._item, "client", client):
            return None
        reset = self._limiter.get_window_stats(self._item, "client", client).reset_time
        return max(1, math.ceil(reset - time.time()))

    def failed(self, client: str, token: str | None = None) -> None:
        """Count one wrong ``token`` from ``client``, unless the same one already failed
        from there within the window (None: always counted)."""
        if token is not None:
            now = time.monotonic()
            key = (client, hashlib.sha256(token.encode("utf-8", "replace")).hexdigest())
            if self._seen.get(key, 0.0) > now:
                return
            if len(self._seen) >= MAX_REMEMBERED:
                self._seen = {k: t for k, t in self._seen.items() if t > now}
            if len(self._seen) < MAX_REMEMBERED:
                self._seen[key] = now + self._item.get_expiry()
        self._limiter.hit(self._item, "client", client)


def limiter_of(state: Any) -> LoginLimiter:
    """The app's one limiter (``app.state.login_limiter``), made on first use."""
    if getattr(state, "login_limiter", None) is None:
        state.login_limiter = LoginLimiter()
    return state.login_limiter
