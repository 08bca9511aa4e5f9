"""How many wrong tokens one client address may send before it is answered 429 for a
while: on every route (a Bearer header, the login cookie, an API key; ``api/auth.py``) and
on ``POST /login`` alike, one count per address.

Failed attempts are counted in a moving window per client address (``limits``' in-memory
moving window): a guesser at one address is slowed to ``PER_CLIENT`` tries per window.
There is no server-wide count: it would let anyone refuse the right token to everyone.
Only failures count, and every count expires with its window, so the right token works
again from that address once the window has passed (a lockout never lasts). The address
is the connection's peer; a proxy's ``X-Forwarded-For`` only counts when the proxy is
trusted (``SHOKUNIN_FORWARDED_ALLOW_IPS``, applied by uvicorn).
"""

from __future__ import annotations

import math
import time
from typing import Any

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

PER_CLIENT = RateLimitItemPerMinute(10)  # wrong tokens per address per minute


class LoginLimiter:
    """Counts failed authentications; ``retry_after()`` says how long a client must wait,
    if at all."""

    def __init__(self, per_client: RateLimitItem = PER_CLIENT) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._item = per_client

    def retry_after(self, client: str) -> int | None:
        """Seconds until ``client`` may try again; None when it may try now."""
        if self._limiter.test(self._item, "client", client):
            return None
        reset = self._limiter.get_window_stats(self._item, "client", client).reset_time
        return max(1, math.ceil(reset - time.time()))

    def failed(self, client: str) -> None:
        """Count one wrong token from ``client``."""
        self._limiter.hit(self._item, "client", client)


def limiter_of(state: Any) -> LoginLimiter:
    """The app's one limiter (``app.state.login_limiter``), made on first use."""
    if getattr(state, "login_limiter", None) is None:
        state.login_limiter = LoginLimiter()
    return state.login_limiter
