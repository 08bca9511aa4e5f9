"""Logs never show credentials, and a short secret neither mangles them nor breaks them:
the record masking keeps a record's arguments in shape (uvicorn's access log unpacks
them) and redacts ``?token=``-like parameters and credential headers."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import httpx
import pytest
from uvicorn.logging import AccessFormatter

from shokunin.redaction import redact_credentials
from shokunin.tools import leak_guard
from tests.live_server import LiveServer

pytestmark = pytest.mark.subprocess

ADMIN = "admin-token-0123456789abcdef"
URL_SECRET = "URLSECRET0123456789"


def _access_record(path: str) -> logging.LogRecord:
    """A record as uvicorn's access logger makes it (through the process's factory)."""
    return logging.getLogRecordFactory()(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5000", "GET", path, "1.1", 200), None)


@pytest.fixture
def masking(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(leak_guard, "_known", [])
    leak_guard.install_log_masking()


@pytest.mark.usefixtures("masking")
def test_a_short_secret_masks_nothing_and_the_access_log_still_formats() -> None:
    leak_guard.remember(["2"])
    record = _access_record("/api/threads/2")
    line = AccessFormatter("%(message)s", use_colors=False).format(record)
    assert line == '127.0.0.1:5000 - "GET /api/threads/2 HTTP/1.1" 200'


@pytest.mark.usefixtures("masking")
def test_a_long_secret_is_masked_and_the_access_log_keeps_its_arguments() -> None:
    leak_guard.remember(["tvly-0123456789"])
    line = AccessFormatter("%(message)s", use_colors=False).format(
        _access_record("/api/x?q=tvly-0123456789"))
    assert "tvly-0123456789" not in line and line.endswith('HTTP/1.1" 200')


@pytest.mark.usefixtures("masking")
@pytest.mark.parametrize(("message", "args"), [
    ("GET %s", ("/api/threads?token=SECRETVALUE&x=1",)),
    ("request %s", ("http://127.0.0.1/ws?x=1&access_token=SECRETVALUE",)),
    ("headers %r", ({"authorization": "Bearer SECRETVALUE", "host": "x"},)),
    ("Authorization: Bearer SECRETVALUE", ()),
    ("cookie: shokunin_token=SECRETVALUE; theme=dark", ()),
    ("proxy http://user:SECRETVALUE@proxy.example/", ()),
    ("key %s", ("shk_0123456789ab_" + "S" * 43,)),
])
def test_credentials_in_urls_and_headers_are_redacted(message: str, args: tuple) -> None:
    record = logging.getLogRecordFactory()("t", logging.INFO, __file__, 1, message, args, None)
    text = record.getMessage()
    assert "SECRETVALUE" not in text and "S" * 43 not in text and "[REDACTED]" in text


@pytest.mark.usefixtures("masking")
def test_masking_never_raises_on_a_broken_record() -> None:
    leak_guard.remember(["long-enough-secret"])
    record = logging.getLogRecordFactory()("t", logging.INFO, __file__, 1, "%d %d", ("x",),
                                           None)
    assert record.msg == "%d %d"  # left to logging, which reports it the usual way


def test_served_logs_show_no_url_token_and_no_traceback_from_a_short_secret(
        tmp_path: Path) -> None:
    data = tmp_path / "server"
    (data / "userdata").mkdir(parents=True)
    (data / "userdata" / "settings.json").write_text(
        json.dumps({"web_search": {"tavily_api_key": "2"}}), encoding="utf-8")
    server = LiveServer(data, env={"SHOKUNIN_AUTH_TOKEN": ADMIN}, log_level="info").start()
    try:
        refused = httpx.get(f"{server.url}/api/threads?token={URL_SECRET}")
        cookie = httpx.get(f"{server.url}/api/threads?x=2",
                           headers={"Authorization": f"Bearer {ADMIN}"})
        assert (refused.status_code, cookie.status_code) == (401, 200)
    finally:
        server.stop()
    log = server.log_path.read_text(encoding="utf-8")
    assert URL_SECRET not in log and ADMIN not in log
    assert '"GET /api/threads?token=[REDACTED] HTTP/1.1" 401' in log
    assert '"GET /api/threads?x=2 HTTP/1.1" 200' in log  # a 2 is a 2
    assert "Traceback" not in log and "Logging error" not in log


@pytest.mark.usefixtures("masking")
@pytest.mark.parametrize("path", ["/health?cookie=1", "/health?authorization=x",
                                  "/health?x=1&set-cookie=a"])
def test_a_credential_named_parameter_keeps_the_access_record_in_shape(path: str) -> None:
    record = _access_record(path)
    assert isinstance(record.args, tuple) and len(record.args) == 5
    line = AccessFormatter("%(message)s", use_colors=False).format(record)
    assert line.endswith(' HTTP/1.1" 200') and "=[REDACTED]" in line


@pytest.mark.usefixtures("masking")
@pytest.mark.parametrize("path", ["/x?t=SECRETVALUE", "/x?tok%65n=SECRETVALUE",
                                  "/x?token%00=SECRETVALUE", "/x?token[]=SECRETVALUE",
                                  "/x?a=1&TOKEN=SECRETVALUE", "/x?tok%2565n=SECRETVALUE"])
def test_dressed_up_parameter_names_are_redacted(path: str) -> None:
    line = AccessFormatter("%(message)s", use_colors=False).format(_access_record(path))
    assert "SECRETVALUE" not in line and line.endswith(' HTTP/1.1" 200')


@pytest.mark.usefixtures("masking")
@pytest.mark.parametrize("path", ["/api/threads/{key}", "/api/x?q={key}",
                                  "/api/x?q={encoded}"])
def test_an_api_key_is_redacted_wherever_it_appears(path: str) -> None:
    key = "shk_0123456789ab_" + "S" * 43
    line = AccessFormatter("%(message)s", use_colors=False).format(_access_record(
        path.format(key=key, encoded=key.replace("_", "%5F"))))
    assert "S" * 43 not in line and "[REDACTED]" in line


def test_served_logs_stay_whole_and_never_show_the_admin_token(tmp_path: Path) -> None:
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_AUTH_TOKEN": ADMIN},
                        log_level="info").start()
    try:
        for path in ("/health?cookie=1", "/health?authorization=x", f"/api/threads/{ADMIN}",
                     f"/api/threads?t={ADMIN}", f"/api/threads?tok%65n={ADMIN}",
                     f"/api/threads?token%00={ADMIN}x", f"/api/threads?token[]={ADMIN}"):
            httpx.get(f"{server.url}{path}")
    finally:
        server.stop()
    log = server.log_path.read_text(encoding="utf-8")
    assert ADMIN not in log
    assert "Logging error" not in log and "Traceback" not in log
    assert '"GET /health?cookie=[REDACTED] HTTP/1.1" 200' in log
    assert '"GET /health?authorization=[REDACTED] HTTP/1.1" 200' in log


@pytest.mark.parametrize(("line", "kept"), [
    ("using basic authentication for the proxy", True),
    ("Basic settings: loaded", True),
    ("Authorization: Basic dXNlcjpwYXNz", False),  # user:pass in base64
])
def test_basic_in_prose_is_kept_and_basic_credentials_are_not(line: str, kept: bool) -> None:
    assert (redact_credentials(line) == line) is kept
