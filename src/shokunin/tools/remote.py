"""Tools served by another process the registry keeps sessions with (MCP servers' tools,
``mcp/client``): what the registry needs of such a source, so it never imports one."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

from shokunin.tools.loader import LoadedTool

CONNECT_WAIT_SEC = 10.0  # how long start() waits for the servers' first connections
MAX_NAME = 64  # the longest function name model APIs accept


class RemoteServer(Protocol):
    name: str


class RemoteTools(Protocol):
    """A source of tools behind sessions that come and go; ``on_change`` is called when
    its list of tools changes."""

    servers: Sequence[Any]
    on_change: Callable[[], None]

    async def start(self, wait: float = CONNECT_WAIT_SEC) -> None: ...

    async def close(self) -> None: ...

    def loaded(self) -> list[LoadedTool]: ...

    def status(self) -> list[dict[str, Any]]: ...
