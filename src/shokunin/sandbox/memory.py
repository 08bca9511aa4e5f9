"""What kernels cost in memory: PSS and USS from ``/proc/<pid>/smaps_rollup``, not RSS.

Kernels forked from the template share most of their pages with it and with each other, so
RSS counts those pages once per kernel. USS (Private_Clean + Private_Dirty) is what a kernel
holds alone, what it added to the template (a big DataFrame shows here); PSS shares each
page among the processes that map it, so the PSS of all kernels and the template adds up to
what they take together.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Memory:
    """Memory of a set of processes, in KiB."""

    pss_kb: int = 0
    uss_kb: int = 0

    def __add__(self, other: Memory) -> Memory:
        return Memory(self.pss_kb + other.pss_kb, self.uss_kb + other.uss_kb)


def memory_of(pids: list[int]) -> Memory:
    """PSS and USS of these processes together; a process gone meanwhile counts nothing."""
    total = Memory()
    for pid in pids:
        with contextlib.suppress(OSError):
            text = Path(f"/proc/{pid}/smaps_rollup").read_text()
            fields = {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()
                      if line.endswith("kB")}
            total += Memory(fields.get("Pss", 0),
                            fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0))
    return total
