"""Credentials out of log lines: a URL's ``?token=``-like parameters and user info, the
values of ``Authorization``/``Cookie``-like headers, bearer tokens and shokunin's own API
keys are replaced with ``[REDACTED]`` wherever a line prints them (uvicorn's access log
prints the whole URL of a request, even one refused for carrying a token in it)."""

from __future__ import annotations

import re

REDACTED = "[REDACTED]"
_PARAMS = ("token", "access_token", "refresh_token", "id_token", "api_key", "apikey",
           "api-key", "key", "password", "passwd", "secret", "client_secret", "auth",
           "signature", "sig", "session", "code")
_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
            "api-key", "x-auth-token")
_RULES = [
    # ?token=abc, &api_key=abc (also percent-encoded names' plain form in a log line)
    (re.compile(rf"(?i)([?&;](?:{'|'.join(map(re.escape, _PARAMS))})=)[^&#\s\"'<>]*"),
     rf"\1{REDACTED}"),
    # scheme://user:password@host
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@"), rf"\1{REDACTED}@"),
    # Authorization: Bearer x, {'cookie': 'a=b'}, ("x-api-key", "x")
    (re.compile(rf"(?i)(\b(?:{'|'.join(map(re.escape, _HEADERS))})(?:['\"]\s*[:,]|\s*[:=])"
                r"\s*(?:b?['\"])?)[^\r\n'\"]+"), rf"\1{REDACTED}"),
    (re.compile(r"(?i)\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}"), rf"\1 {REDACTED}"),
    (re.compile(r"\bshk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}"), REDACTED),  # auth/keys.py's form
]


def redact_credentials(text: str) -> str:
    """``text`` with every credential it shows replaced by ``[REDACTED]``."""
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    return text
