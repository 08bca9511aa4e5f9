"""The server's garbage-collector schedule: on a clock and on memory growth, not on every
few hundred allocations.

Frozen objects (modules, classes, schemas: everything imported so far) are never walked
again. Under load a schedule driven by allocations walks the objects of the runs in flight
over and over (with a first threshold of 10,000, a young collection every few runs): 0.3 ms
of CPU per run with 500 clients, cache misses included. A finished run is freed by reference
counting (tests/agents/test_run_memory.py), leaving a few objects per run in cycles; a full
collection every ``interval`` seconds frees them. Cycles can also hold big buffers while
adding few objects (a rejected 4 MB request body), so a full collection also runs as soon
as the process has grown ``GROWTH_BYTES`` since the last one, and a young one when
``BURST_OBJECTS`` new objects pile up.
"""

from __future__ import annotations

import contextlib
import gc
import logging
import os
import threading
import time
from collections.abc import Iterator

log = logging.getLogger(__name__)

# Net new container objects that start a (young) collection before its time.
BURST_OBJECTS = 1_000_000
# Resident memory grown since the last collection that starts a full one at once.
GROWTH_BYTES = 256 * 1024 * 1024
_TICK = 1.0  # how often memory is looked at (a read of /proc/self/statm)


@contextlib.contextmanager
def starting() -> Iterator[None]:
    """No collection while a command imports and builds what it needs: each would walk
    everything built so far, to free nothing (a tenth of the time). What it built lives
    until the process ends: on the way out it is collected once and frozen, so that no
    later collection walks it again, before the collector is on again (on first, it would
    start a full collection at once)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
        gc.collect()
        gc.freeze()
    finally:
        if was:
            gc.enable()


def tune_gc(interval: float, growth_bytes: int = GROWTH_BYTES) -> None:
    """Unless ``interval`` is 0 (Python's own schedule), collect every ``interval`` seconds,
    or once resident memory grew ``growth_bytes``; after ``starting()`` froze the start."""
    if interval <= 0:
        return
    gc.set_threshold(BURST_OBJECTS, 10, 10)
    threading.Thread(target=_collect, args=(interval, growth_bytes, _resident_bytes()),
                     name="shokunin-gc", daemon=True).start()


def _resident_bytes() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None  # no /proc: the clock alone


def _collect(interval: float, growth_bytes: int, lowest: int | None) -> None:
    # Finalizers then run in this thread, as they do in whichever thread happens to start
    # an automatic collection.
    last = time.monotonic()
    while True:
        time.sleep(min(_TICK, interval))
        size = _resident_bytes()
        lowest = size if lowest is None or size is None else min(lowest, size)
        grown = size is not None and lowest is not None and size - lowest >= growth_bytes
        if not grown and time.monotonic() - last < interval:
            continue
        try:
            gc.collect()
        except Exception:  # noqa: BLE001 - the schedule must outlive one failed collection
            log.exception("garbage collection failed")
        last, lowest = time.monotonic(), _resident_bytes()
