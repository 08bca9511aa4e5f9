"""``shokunin auth ...`` and the ``serve`` refusal, with typer's CliRunner (nothing binds)."""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from shokunin.cli.app import app

runner = CliRunner()
KEY = re.compile(r"shk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}")


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in ("SHOKUNIN_AUTH_TOKEN", "SHOKUNIN_HOST", "SHOKUNIN_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("COLUMNS", "200")
    return tmp_path / "data"


@pytest.fixture
def uvicorn_calls(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    monkeypatch.setattr("uvicorn.run",
                        lambda app, **kwargs: calls.append(kwargs))
    # The server's collector schedule would become the test process's.
    monkeypatch.setattr("shokunin.cli.collector.tune_gc", lambda interval: None)
    return calls


def invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def test_create_key_shows_the_key_once_and_stores_only_a_hash(data_dir: Path) -> None:
    code, out = invoke("auth", "create-key", "alice")
    assert code == 0
    token = KEY.search(out)[0]
    code, listed = invoke("auth", "list-keys")
    assert code == 0 and "alice" in listed and "active" in listed and token not in listed
    with sqlite3.connect(data_dir / "shokunin.db") as conn:
        stored = conn.execute("SELECT * FROM api_keys").fetchall()
    assert stored and token.split("_", 2)[2] not in repr(stored)  # the secret may hold "_"


def test_json_output(data_dir: Path) -> None:
    code, out = invoke("auth", "create-key", "bot-1", "--json")
    created = json.loads(out)
    assert code == 0 and KEY.fullmatch(created["token"]) and created["principal"] == "key:bot-1"
    listed = json.loads(invoke("auth", "list-keys", "--json")[1])["keys"]
    assert [k["name"] for k in listed] == ["bot-1"] and "token" not in listed[0]
    revoked = json.loads(invoke("auth", "revoke-key", "bot-1", "--json")[1])
    assert revoked["revoked_at"] is not None


def test_revoke_then_reuse_the_name(data_dir: Path) -> None:
    invoke("auth", "create-key", "carol")
    code, out = invoke("auth", "create-key", "carol")
    assert code == 1 and "exists" in out
    assert invoke("auth", "revoke-key", "carol")[0] == 0
    code, out = invoke("auth", "revoke-key", "carol")
    assert code == 1 and "no active key" in out
    assert invoke("auth", "create-key", "carol")[0] == 0
    assert "revoked" in invoke("auth", "list-keys")[1]


def test_a_bad_key_name_is_refused(data_dir: Path) -> None:
    code, out = invoke("auth", "create-key", "no spaces/please")
    assert code == 1 and "invalid key name" in out


def test_serve_beyond_loopback_without_auth_refuses_and_says_why(
        data_dir: Path, uvicorn_calls: list[dict[str, Any]]) -> None:
    for host in ("0.0.0.0", "192.168.1.20", "::", "myhost.lan"):
        code, out = invoke("serve", "--host", host)
        assert code == 2, (host, out)
        assert f"refusing to listen on {host}" in out and "SHOKUNIN_AUTH_TOKEN" in out
        assert "--insecure" in out
    assert uvicorn_calls == []


def test_serve_refuses_a_non_loopback_host_from_the_environment(
        data_dir: Path, uvicorn_calls: list[dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOKUNIN_HOST", "0.0.0.0")
    assert invoke("serve")[0] == 2 and uvicorn_calls == []


def test_serve_starts_on_loopback_with_auth_or_when_insecure(
        data_dir: Path, uvicorn_calls: list[dict[str, Any]],
        monkeypatch: pytest.MonkeyPatch) -> None:
    assert invoke("serve")[0] == 0
    assert invoke("serve", "--host", "::1")[0] == 0
    code, out = invoke("serve", "--host", "0.0.0.0", "--insecure")
    assert code == 0 and "without auth" in out
    monkeypatch.setenv("SHOKUNIN_AUTH_TOKEN", "t" * 32)
    assert invoke("serve", "--host", "0.0.0.0")[0] == 0
    assert [call["host"] for call in uvicorn_calls] == ["127.0.0.1", "::1", "0.0.0.0", "0.0.0.0"]


def test_serve_counts_an_api_key_as_auth(
        data_dir: Path, uvicorn_calls: list[dict[str, Any]]) -> None:
    invoke("auth", "create-key", "ops")
    assert invoke("serve", "--host", "0.0.0.0")[0] == 0 and len(uvicorn_calls) == 1
