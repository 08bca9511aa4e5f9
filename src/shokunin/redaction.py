"""Credentials out of log lines: a URL's ``?token=``-like parameters and user info, the
values of ``Authorization``/``Cookie``-like headers, bearer tokens and shokunin's own API
keys are replaced with ``[REDACTED]`` wherever a line prints them (uvicorn's access log
prints the whole URL of a request, even one refused for carrying a token in it).

A parameter's name is matched after percent-decoding and without what a client may append
to dress it up (``tok%65n``, ``token%00``, ``token[]`` are ``token``). Tokens that appear
where no name announces them (in a path, under an unlisted name) are caught by their
shape (an API key) or, for the server's own admin token, by being a known secret
(``tools/leak_guard.remember``)."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote

REDACTED = "[REDACTED]"
_PARAMS = frozenset({
    "token", "access_token", "refresh_token", "id_token", "api_key", "apikey", "api-key",
    "key", "password", "passwd", "secret", "client_secret", "auth", "authorization",
    "signature", "sig", "session", "code", "cookie", "t"})
_HEADERS = ("authorization", "proxy-authorization", "cookie", "set-cookie", "x-api-key",
            "api-key", "x-auth-token")
# ?name=value, &name=value: the name is checked by _param (decoded, undressed)
_PARAM = re.compile(r"([?&;])([^=&#\s\"'<>?;]{1,64})=([^&#\s\"'<>]*)")
_UNDRESS = re.compile(r"[^a-z0-9_-]+")
def _scheme_token(match: re.Match[str]) -> str:
    """``Bearer <token>`` and ``Basic <user:password in base64>`` redacted; prose such as
    "basic authentication" is not a credential (no digit or symbol, no ``user:`` inside)."""
    value = match[2]
    if match[1].lower() == "bearer" or re.search(r"[0-9._~+/=-]", value) \
            or b":" in _b64(value):
        return f"{match[1]} {REDACTED}"
    return match[0]


def _b64(value: str) -> bytes:
    try:
        return base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return b""


_RULES = [
    # scheme://user:password@host
    (re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^/\s:@]*:)[^@\s/]+@"), rf"\1{REDACTED}@"),
    # Authorization: Bearer x, {'cookie': 'a=b'}, ("x-api-key", "x"); not a URL's
    # ?cookie=1 (a parameter, above), whose match would run on to the line's next quote.
    (re.compile(rf"(?i)(?<![?&;])(\b(?:{'|'.join(map(re.escape, _HEADERS))})"
                r"(?:['\"]\s*[:,]|\s*[:=])\s*(?:b?['\"])?)[^\r\n'\"]+"), rf"\1{REDACTED}"),
    (re.compile(r"(?i)\b(bearer|basic)\s+([A-Za-z0-9._~+/=-]{8,})"), _scheme_token),
]
_KEY = re.compile(r"shk_[0-9a-f]{12}_[A-Za-z0-9_-]{43}")  # auth/keys.py's form
_ENCODED = re.compile(r"(?:%[0-9A-Fa-f]{2}|[A-Za-z0-9_-]){50,400}")  # a key, maybe encoded


def _name(raw: str) -> str:
    """A parameter's name as a server would read it, lower case, without dressing."""
    name = raw
    for _ in range(3):  # doubly encoded names too
        decoded = unquote(name)
        if decoded == name:
            break
        name = decoded
    return _UNDRESS.sub("", name.lower())


def _param(match: re.Match[str]) -> str:
    if _name(match[2]) in _PARAMS:
        return f"{match[1]}{match[2]}={REDACTED}"
    return match[0]


def redact_credentials(text: str) -> str:
    """``text`` with every credential it shows replaced by ``[REDACTED]``."""
    text = _PARAM.sub(_param, text)
    for pattern, replacement in _RULES:
        text = pattern.sub(replacement, text)
    # An API key anywhere (a path, an unlisted parameter), percent-encoded or not.
    text = _KEY.sub(REDACTED, text)
    if "%" in text:
        text = _ENCODED.sub(lambda m: REDACTED if _KEY.search(unquote(m[0])) else m[0], text)
    return text
