"""A TCP forwarder a test can cut and restore: a database "briefly down" without stopping
the real server other tests use."""

from __future__ import annotations

import asyncio
import contextlib
import threading

from tests.live_server import free_port


class TcpProxy:
    """Forwards 127.0.0.1:``port`` to 127.0.0.1:``target``, in a thread of its own."""

    def __init__(self, target: int) -> None:
        self.target = target
        self.port = free_port()
        self._loop = asyncio.new_event_loop()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        threading.Thread(target=self._loop.run_forever, daemon=True).start()

    def _call(self, coro) -> None:  # noqa: ANN001
        asyncio.run_coroutine_threadsafe(coro, self._loop).result(10)

    def start(self) -> TcpProxy:
        """Accept connections (again)."""
        self._call(self._listen())
        return self

    def cut(self) -> None:
        """Stop accepting, and close every connection: the database is gone."""
        self._call(self._cut())

    def close(self) -> None:
        self.cut()
        self._loop.call_soon_threadsafe(self._loop.stop)

    async def _listen(self) -> None:
        self._server = await asyncio.start_server(self._pipe, "127.0.0.1", self.port)

    async def _cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _pipe(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}

        async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
            with contextlib.suppress(OSError, asyncio.CancelledError):
                while data := await src.read(65536):
                    dst.write(data)
                    await dst.drain()
            dst.transport.abort()

        await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer))
        self._writers -= {writer, up_writer}
