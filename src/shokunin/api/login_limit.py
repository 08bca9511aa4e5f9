"""How many wrong tokens ``POST /login`` takes before it answers 429 for a while.

Failed attempts are counted in a moving window per client address and for the whole
server (``limits``' in-memory moving window): a guesser at one address is slowed to
``PER_CLIENT`` tries per window, many addresses together to ``GLOBAL`` tries. Only
failures count, and every count expires with its window, so the right token always works
again once the window has passed (a lockout never lasts).
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItem, RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

PER_CLIENT = RateLimitItemPerMinute(10)  # wrong tokens per address per minute
GLOBAL = RateLimitItemPerMinute(100)  # wrong tokens per minute, every address together


class LoginLimiter:
    """Counts failed logins; ``retry_after()`` says how long a client must wait, if at all."""

    def __init__(self, per_client: RateLimitItem = PER_CLIENT,
                 overall: RateLimitItem = GLOBAL) -> None:
        self._limiter = MovingWindowRateLimiter(MemoryStorage())
        self._items = ((per_client, "client"), (overall, "all"))

    def retry_after(self, client: str) -> int | None:
        """Seconds until ``client`` may try again; None when it may try now."""
        waits = [self._wait(item, scope, client) for item, scope in self._items
                 if not self._limiter.test(item, scope, self._key(scope, client))]
        return max(waits) if waits else None

    def failed(self, client: str) -> None:
        """Count one wrong token from ``client``."""
        for item, scope in self._items:
            self._limiter.hit(item, scope, self._key(scope, client))

    @staticmethod
    def _key(scope: str, client: str) -> str:
        return client if scope == "client" else "*"

    def _wait(self, item: RateLimitItem, scope: str, client: str) -> int:
        reset = self._limiter.get_window_stats(item, scope, self._key(scope, client)).reset_time
        return max(1, math.ceil(reset - time.time()))
