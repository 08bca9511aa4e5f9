"""Guessing is slowed per client address: wrong tokens past the limit, on ``POST /login``
or as a Bearer token on any route, get 429 with Retry-After; the right token works again
once the window has passed, and guessers elsewhere never lock anyone out."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient
from limits import RateLimitItemPerSecond

from shokunin.api import create_app
from shokunin.api.perimeter.auth import COOKIE
from shokunin.api.perimeter.login_limit import PER_CLIENT, LoginLimiter
from tests.api.perimeter.test_auth import ADMIN_TOKEN, make_settings
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

FORM = {"Content-Type": "application/x-www-form-urlencoded"}
WINDOW_SEC = 2


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(make_settings(tmp_path, auth_token=ADMIN_TOKEN))
    app.state.login_limiter = LoginLimiter(RateLimitItemPerSecond(3, WINDOW_SEC))
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


def test_one_stale_token_retried_does_not_lock_the_right_one_out(client: TestClient) -> None:
    """A tab or script retrying a revoked key every few seconds tells a guesser nothing new,
    and must not refuse the admin at the same (loopback) address."""
    stale = [client.get("/api/threads", headers={"Authorization": "Bearer shk_revoked"})
             for _ in range(10)]
    assert {r.status_code for r in stale} == {401}
    assert _login(client, ADMIN_TOKEN).status_code == 303


def test_a_right_token_does_not_count() -> None:
    limiter = LoginLimiter(RateLimitItemPerSecond(2, 60))
    limiter.failed("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") is None
    limiter.failed("10.0.0.1")
    assert limiter.retry_after("10.0.0.1") is not None
    assert limiter.retry_after("10.0.0.2") is None  # another address is not slowed


def test_a_flood_of_wrong_tokens_from_many_addresses_does_not_slow_another() -> None:
    limiter = LoginLimiter(RateLimitItemPerSecond(5, 60))
    for i in range(500):
        limiter.failed(f"10.0.{i // 250}.{i % 250}")
    assert limiter.retry_after("10.9.9.9") is None


def test_wrong_bearer_tokens_on_any_route_count_towards_the_same_limit(
        client: TestClient) -> None:
    bearer = [client.get("/api/threads", headers={"Authorization": f"Bearer wrong-{i}"})
              for i in range(3)]
    assert [r.status_code for r in bearer] == [401] * 3
    refused = client.get("/api/threads", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
    assert refused.status_code == 429 and refused.json()["code"] == "too_many_attempts"
    assert 1 <= int(refused.headers["Retry-After"]) <= WINDOW_SEC
    assert _login(client, ADMIN_TOKEN).status_code == 429  # /login shares the count
    assert client.get("/health").status_code == 200  # no token, no count


def test_guessing_from_one_address_over_a_live_server_neither_escapes_nor_locks_out(
        tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_AUTH_TOKEN": ADMIN_TOKEN}).start()
    try:
        with httpx.Client(base_url=server.url) as guesser:
            answers = [guesser.get("/api/threads", headers={
                "Authorization": f"Bearer wrong-{i}", "X-Forwarded-For": f"10.1.{i}.1"})
                for i in range(PER_CLIENT.amount + 5)]
        codes = [a.status_code for a in answers]
        assert codes[:PER_CLIENT.amount] == [401] * PER_CLIENT.amount
        assert set(codes[PER_CLIENT.amount:]) == {429}  # a rotated X-Forwarded-For is no one
        other = httpx.Client(base_url=server.url, transport=httpx.HTTPTransport(
            local_address="127.0.0.2"))
        with other:
            admin = other.get("/api/threads", headers={"Authorization": f"Bearer {ADMIN_TOKEN}"})
            assert admin.status_code == 200  # the admin elsewhere is not locked out
            login = other.post("/login", content=f"token={ADMIN_TOKEN}", headers=FORM)
            assert login.status_code == 303
    finally:
        server.stop()
