"""Live connections: every long-lived connection (a WebSocket, an SSE stream, a Socket.IO
session) holds a ``Lease`` naming its client address, principal and API key.

Leases bound how many live connections one client address and one principal may hold
(``SHOKUNIN_MAX_STREAMS_PER_CLIENT``, ``SHOKUNIN_MAX_STREAMS_PER_KEY``), and end the
connections of a revoked key: keys are revoked by ``shokunin auth revoke-key``, another
process, so one task asks the key store every ``POLL_SEC`` which of the keys held by
leases are revoked, and revokes their leases. A revoked lease runs its ``on_revoke``
callbacks, which close the connection in its protocol's form. Before a connection starts
a run, ``still_valid`` asks the store at once, so no run starts in between.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from shokunin.auth import Authenticator
from shokunin.errors import ErrorCode, ShokuninError

log = logging.getLogger(__name__)
POLL_SEC = 1.0
REVOKED_MESSAGE = "the API key of this connection was revoked"


class TooManyStreams(ShokuninError):
    """A client or principal holds as many live connections as allowed."""
    status = 429

    code = ErrorCode.TOO_MANY_STREAMS


@dataclass(eq=False)
class Lease:
    kind: str  # "ws", "sse" or "socketio"
    client: str
    principal: str | None
    key_id: str | None
    revoked: bool = False
    on_revoke: list[Callable[[], None]] = field(default_factory=list)

    def revoke(self) -> None:
        if self.revoked:
            return
        self.revoked = True
        for callback in self.on_revoke:
            try:
                callback()
            except Exception:  # noqa: BLE001 - the others must still run
                log.exception("closing a %s connection of a revoked key failed", self.kind)


class LiveConnections:
    def __init__(self, authenticator: Authenticator, max_per_client: int,
                 max_per_principal: int) -> None:
        self.authenticator = authenticator
        self.max_per_client = max_per_client
        self.max_per_principal = max_per_principal
        self.leases: set[Lease] = set()
        self._clients: Counter[str] = Counter()
        self._principals: Counter[str] = Counter()
        self._watcher: asyncio.Task[None] | None = None

    def open(self, kind: str, client: str, principal: str | None,
             key_id: str | None = None) -> Lease:
        """A lease for a new live connection, or TooManyStreams."""
        if self._clients[client] >= self.max_per_client:
            raise TooManyStreams(
                f"this client holds {self.max_per_client} live connections (streams, "
                "WebSockets, Socket.IO sessions), the most allowed: close one first "
                "(SHOKUNIN_MAX_STREAMS_PER_CLIENT)")
        if principal is not None and self._principals[principal] >= self.max_per_principal:
            raise TooManyStreams(
                f"this token holds {self.max_per_principal} live connections, the most "
                "allowed: close one first (SHOKUNIN_MAX_STREAMS_PER_KEY)")
        lease = Lease(kind, client, principal, key_id)
        self.leases.add(lease)
        self._clients[client] += 1
        if principal is not None:
            self._principals[principal] += 1
        if key_id is not None and (self._watcher is None or self._watcher.done()):
            self._watcher = asyncio.get_running_loop().create_task(
                self._watch(), name="live-connections-revocation")
        return lease

    def close(self, lease: Lease) -> None:
        if lease not in self.leases:
            return
        self.leases.discard(lease)
        self._clients[lease.client] -= 1
        if self._clients[lease.client] <= 0:
            del self._clients[lease.client]
        if lease.principal is not None:
            self._principals[lease.principal] -= 1
            if self._principals[lease.principal] <= 0:
                del self._principals[lease.principal]

    async def still_valid(self, lease: Lease) -> bool:
        """Whether the lease's key is still active, asked of the store now (a revoked one
        revokes the lease)."""
        if lease.revoked:
            return False
        keys = self.authenticator.keys
        if lease.key_id is None or keys is None:
            return True
        if await keys.revoked_among({lease.key_id}):
            lease.revoke()
            return False
        return True

    async def _watch(self) -> None:
        """Revoke the leases of revoked keys; ends when no lease holds a key."""
        while True:
            await asyncio.sleep(POLL_SEC)
            keyed = {lease.key_id for lease in self.leases if lease.key_id and not lease.revoked}
            keys = self.authenticator.keys
            if not keyed:
                return
            if keys is None:
                continue
            try:
                revoked = await keys.revoked_among(keyed)
            except Exception:  # noqa: BLE001 - a busy database: ask again next time
                log.warning("could not check for revoked keys", exc_info=True)
                continue
            for lease in [lease for lease in self.leases if lease.key_id in revoked]:
                lease.revoke()

    async def aclose(self) -> None:
        if self._watcher is not None:
            self._watcher.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._watcher
