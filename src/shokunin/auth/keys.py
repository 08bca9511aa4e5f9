"""API key tokens: their format, and the slow salted hash the database keeps instead of them.

A key reads ``shk_<id>_<secret>``: ``id`` (12 hex digits) finds the row, ``secret`` (32
random bytes, URL-safe base64) is checked against the row's scrypt hash. The hash string
names its own parameters (``scrypt$n$r$p$salt$hash``), so they can change without a
migration.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

PREFIX = "shk"
_TOKEN = re.compile(r"shk_([0-9a-f]{12})_([A-Za-z0-9_-]{43})")
# scrypt at n=2**14, r=8 costs ~16 MiB and tens of ms: cheap once per key per process
# (verified keys are cached), dear for anyone guessing from a copy of the database.
_N, _R, _P = 2**14, 8, 1


@dataclass(frozen=True)
class KeyToken:
    key_id: str
    secret: str

    def __str__(self) -> str:
        return f"{PREFIX}_{self.key_id}_{self.secret}"


def new_token() -> KeyToken:
    """A fresh random key."""
    return KeyToken(secrets.token_hex(6), secrets.token_urlsafe(32))


def parse_token(value: str) -> KeyToken | None:
    """The key id and secret of ``value``, or None if it is not shaped like a key."""
    match = _TOKEN.fullmatch(value)
    return KeyToken(match[1], match[2]) if match else None


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def hash_secret(secret: str) -> str:
    """The stored form of ``secret``: scrypt with a random salt, parameters included."""
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(secret.encode(), salt=salt, n=_N, r=_R, p=_P, dklen=32)
    return f"scrypt${_N}${_R}${_P}${_b64(salt)}${_b64(digest)}"


def verify_secret(secret: str, stored: str) -> bool:
    """Whether ``secret`` hashes to ``stored``, compared in constant time."""
    try:
        scheme, n, r, p, salt, digest = stored.split("$")
        if scheme != "scrypt":
            return False
        expected = _unb64(digest)
        actual = hashlib.scrypt(secret.encode(), salt=_unb64(salt), n=int(n), r=int(r),
                                p=int(p), dklen=len(expected))
    except ValueError:
        return False
    return hmac.compare_digest(actual, expected)
