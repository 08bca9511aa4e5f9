"""How many kernels may live at once: a global cap, a cap per owner, and memory pressure.

A thread needs a kernel slot only for its first cell (or the first after its kernel was
shut down). Beyond a cap the sandbox, in this order: shuts down the least recently used
idle kernel that makes room; else waits, up to ``queue_sec``, for one to fall idle or
close; else refuses with ``SandboxBusy``. It never waits without bound.

The owner is a string the caller passes (a client or API-key identity). ``None`` puts the
thread in a bucket of its own, so only the global cap applies to callers without identity.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable

from shokunin.errors import ErrorCode, ShokuninError

MEMINFO = "/proc/meminfo"
POLL_SEC = 0.2  # how often a waiting cell looks whether it was aborted


class SandboxBusy(ShokuninError, RuntimeError):
    """No kernel slot came free within the wait; the message says which limit and why."""
    status = 503
    code = ErrorCode.BUSY


def owner_key(thread_id: str, owner: str | None) -> str:
    return f"owner:{owner}" if owner is not None else f"thread:{thread_id}"


def mem_available_mb() -> int | None:
    """MemAvailable of /proc/meminfo in MiB; None where there is no such file."""
    with contextlib.suppress(OSError, ValueError), open(MEMINFO, encoding="ascii") as f:
        for line in f:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) // 1024
    return None


class KernelQuota:
    """Slots of kernels held by threads, by owner; waiters are woken by ``notify``."""

    def __init__(self, max_kernels: int, max_per_owner: int, queue_sec: float) -> None:
        self.max_kernels = max(1, max_kernels)
        self.max_per_owner = max(1, max_per_owner)
        self.queue_sec = max(0.0, queue_sec)
        self._holders: dict[str, str] = {}  # thread id -> owner key
        self._changed = asyncio.Event()

    @property
    def in_use(self) -> int:
        return len(self._holders)

    def held_by(self, key: str) -> int:
        return sum(1 for k in self._holders.values() if k == key)

    async def admit(self, thread_id: str, key: str, idle: Callable[[], list[str]],
                    evict: Callable[[str], Awaitable[None]],
                    aborted: Callable[[], bool] = lambda: False) -> None:
        """Reserve a slot for ``thread_id``: free, or an idle kernel's, or after a wait.

        ``idle`` lists the threads whose kernels are idle, least recently used first;
        ``evict`` shuts one down (it must drop the thread's kernel before it first awaits).
        Raises SandboxBusy when the wait runs out, InterruptedError when ``aborted()``.
        """
        deadline = time.monotonic() + self.queue_sec
        while True:
            full = self._full(key)
            if full is None:
                self._holders[thread_id] = key
                return
            victim = next((t for t in idle() if self._makes_room(t, key)), None)
            if victim is not None:
                # Swap the slots before awaiting, so no other waiter can take this one.
                self._holders.pop(victim, None)
                self._holders[thread_id] = key
                await evict(victim)
                return
            if aborted():
                raise InterruptedError("aborted while waiting for a kernel")
            changed = self._changed
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(changed.wait(),
                                       min(POLL_SEC, deadline - time.monotonic()))
            if time.monotonic() >= deadline and self._full(key) is not None \
                    and not any(self._makes_room(t, key) for t in idle()):
                raise SandboxBusy(f"{full} and none came free within {self.queue_sec:g} s; "
                                  "try again shortly")

    def release(self, thread_id: str) -> None:
        if self._holders.pop(thread_id, None) is not None:
            self.notify()

    def notify(self) -> None:
        """A kernel fell idle or closed: let waiters look again."""
        self._changed.set()
        self._changed = asyncio.Event()

    def _full(self, key: str) -> str | None:
        # The owner's own cap first: when it binds, only the owner's kernels can make room.
        if self.held_by(key) >= self.max_per_owner:
            return (f"{_kernels(self.held_by(key))} in use by this client "
                    f"(limit {self.max_per_owner} per client)")
        if self.in_use >= self.max_kernels:
            return f"{_kernels(self.in_use)} in use (limit {self.max_kernels})"
        return None

    def _makes_room(self, victim: str, key: str) -> bool:
        held = self._holders.get(victim)
        if held is None:
            return False
        return self.held_by(key) < self.max_per_owner or held == key


def _kernels(n: int) -> str:
    return f"{n} kernel" + ("" if n == 1 else "s")
