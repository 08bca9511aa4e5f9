"""Warm kernels: started ahead of need, so a new thread's first cell does not wait ~1.5 s."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from shokunin.sandbox.kernel import Kernel

log = logging.getLogger(__name__)


class KernelPool:
    """Keeps ``size`` started, unassigned kernels; refills in the background."""

    def __init__(self, size: int, factory: Callable[[], Awaitable[Kernel]]) -> None:
        self.size = size
        self._factory = factory
        self._ready: list[Kernel] = []
        self._refill: asyncio.Task[None] | None = None

    def fill(self) -> None:
        if self.size > 0 and (self._refill is None or self._refill.done()):
            self._refill = asyncio.create_task(self._fill())

    async def _fill(self) -> None:
        while len(self._ready) < self.size:
            try:
                self._ready.append(await self._factory())
            except Exception:
                log.exception("could not start a pooled kernel")
                return

    async def take(self) -> Kernel:
        """A warm kernel if one is ready, else a freshly started one. The caller refills
        (``fill``) once the kernel has answered its first cell: a kernel starting meanwhile
        would take the CPU that first answer needs."""
        kernel = self._ready.pop(0) if self._ready else None
        return kernel if kernel is not None else await self._factory()

    @property
    def filling(self) -> bool:
        """Whether kernels are being started for the pool now."""
        return self._refill is not None and not self._refill.done()

    @property
    def ready(self) -> int:
        return len(self._ready)

    async def wait_filled(self) -> None:
        if self._refill is not None:
            await self._refill

    async def close(self) -> None:
        # Let a start under way finish rather than cancel it: a cancelled start can
        # leave a kernel process that nothing owns.
        self.size = 0
        if self._refill is not None:
            with contextlib.suppress(Exception):
                await self._refill
        kernels, self._ready = self._ready, []
        await asyncio.gather(*(k.close() for k in kernels), return_exceptions=True)
