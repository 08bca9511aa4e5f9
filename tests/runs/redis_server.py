"""The Redis the Redis bus's tests use: ``SHOKUNIN_TEST_REDIS_URL``, by default the local one
that ``.ci/run`` starts; a test that needs it is skipped, saying why, when it does not answer."""

from __future__ import annotations

import os

import pytest

from shokunin.runs.redis_bus import RedisBus

REDIS_URL = os.environ.get("SHOKUNIN_TEST_REDIS_URL", "redis://127.0.0.1:6379/0")


def redis_available() -> bool:
    """Whether the test Redis answers a PING (for tests of several server processes)."""
    import redis

    try:
        return bool(redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping())
    except redis.RedisError:
        return False


async def open_redis_bus(namespace: str) -> RedisBus:
    """A RedisBus on the test Redis, or the test skipped saying why there is none."""
    try:
        return await RedisBus.open(REDIS_URL, namespace)
    except ConnectionError as exc:
        pytest.skip(f"no Redis for the Redis bus (set SHOKUNIN_TEST_REDIS_URL): {exc}")
