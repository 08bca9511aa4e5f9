"""Who is calling: the admin token (``SHOKUNIN_AUTH_TOKEN``) or an API key, or nobody.

Auth is on when the admin token is set or any API key was ever created (a revoked key
keeps auth on, so revoking the last key never opens the server). A verified key is cached
by a digest of its token, but its row is read on every request, so a revocation takes
effect at once on a running server.
"""

from __future__ import annotations

import hashlib
import hmac
from collections import OrderedDict

import anyio
import anyio.to_thread

from shokunin.auth.key_store import KeyStore
from shokunin.auth.keys import parse_token, verify_secret

ADMIN = "admin"
_CACHE_SIZE = 1024
_HASHERS = 2  # concurrent scrypt checks: each holds ~16 MiB, so a flood of wrong secrets
# for a known key id queues here instead of filling the thread pool


class Authenticator:
    """Checks tokens; bound to the key store once the server's store is open."""

    def __init__(self, admin_token: str | None, keys: KeyStore | None = None) -> None:
        # Digests of equal length, so the comparison does not reveal the token's length.
        self._admin = hashlib.sha256(admin_token.encode()).digest() if admin_token else None
        self.keys = keys
        self._keys_seen = False  # once a key exists, auth stays on
        self._verified: OrderedDict[bytes, str] = OrderedDict()  # token digest -> hash
        self._limiter: anyio.CapacityLimiter | None = None

    @property
    def ready(self) -> bool:
        """Whether it can decide (the key store is bound)."""
        return self.keys is not None

    async def enabled(self) -> bool:
        if self._admin is not None or self._keys_seen:
            return True
        if self.keys is None:
            raise RuntimeError("the authenticator is not bound to a key store yet")
        self._keys_seen = await self.keys.any_exist()
        return self._keys_seen

    async def principal(self, token: str) -> str | None:
        """``"admin"``, ``"key:<name>"``, or None if ``token`` is neither."""
        digest = hashlib.sha256(token.encode()).digest()
        if self._admin is not None and hmac.compare_digest(digest, self._admin):
            return ADMIN
        parsed = parse_token(token)
        if parsed is None or self.keys is None:
            return None
        found = await self.keys.active(parsed.key_id)
        if found is None:
            return None
        name, secret_hash = found
        cached = self._verified.get(digest)
        if cached is None or not hmac.compare_digest(cached, secret_hash):
            self._limiter = self._limiter or anyio.CapacityLimiter(_HASHERS)
            if not await anyio.to_thread.run_sync(verify_secret, parsed.secret, secret_hash,
                                                  limiter=self._limiter):
                return None
            self._verified[digest] = secret_hash
            while len(self._verified) > _CACHE_SIZE:
                self._verified.popitem(last=False)
        self._verified.move_to_end(digest)
        return f"key:{name}"
