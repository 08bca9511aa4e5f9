"""``POST /login`` slows guessing: wrong tokens past the limit get 429 with Retry-After, and
the right token works again once the window has passed."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from limits import RateLimitItemPerSecond

from shokunin.api import create_app
from shokunin.api.auth import COOKIE
from shokunin.api.login_limit import LoginLimiter
from tests.api.test_auth import ADMIN_TOKEN, make_settings

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
WINDOW_SEC = 2


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(make_settings(tmp_path, auth_token=ADMIN_TOKEN))
    app.state.login_limiter = LoginLimiter(RateLimitItemPerSecond(3, WINDOW_SEC),
                                           RateLimitItemPerSecond(100, WINDOW_SEC))
    with TestClient(app, follow_redirects=False) as test_client:
        yield test_client


def _login(client: TestClient, token: str) -> httpx.Response:
    return client.post("/login", content=f"token={token}", headers=FORM)


def test_after_three_wrong_tokens_the_next_try_is_429_then_the_window_passes(
        client: TestClient) -> None:
    assert [_login(client, f"wrong-{i}").status_code for i in range(3)] == [401] * 3
    refused = _login(client, ADMIN_TOKEN)  # even the right one waits: no oracle
    assert refused.status_code == 429
    assert 1 <= int(refused.headers["Retry-After"]) <= WINDOW_SEC
    assert "Too many" in refused.text
    time.sleep(WINDOW_SEC + 0.2)
    right = _login(client, ADMIN_TOKEN)
    assert right.status_code == 303 and right.headers["set-cookie"].startswith(COOKIE)


def test_a_right_token_does_not_count() -> None:
    limiter = LoginLimiter(RateLimitItemPerSecond(2, 60), RateLimitItemPerSecond(100, 60))
    limiter.failed("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") is None
    limiter.failed("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") is not None
    assert limiter.retry_after("10.0.0.2") is None  # another address is not slowed


def test_many_addresses_together_hit_the_global_limit() -> None:
    limiter = LoginLimiter(RateLimitItemPerSecond(5, 60), RateLimitItemPerSecond(4, 60))
    for i in range(4):
        limiter.failed(f"10.0.0.{i}")
    assert 1 <= (limiter.retry_after("10.9.9.9") or 0) <= 60
