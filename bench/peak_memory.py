"""Peak memory of a process: its VmHWM, which exec resets (unlike ru_maxrss, which a forked
child inherits from its parent). Read before the process exits."""

from __future__ import annotations

import contextlib
from pathlib import Path


def hwm_mb(pid: int | str = "self") -> float:
    """The largest resident set process ``pid`` has had, in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return 0.0


def descendants_hwm_mb(root: int) -> float:
    """The largest peak among the live descendants of ``root`` (a server's kernels)."""
    parents = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = next(
                int(line.split()[1]) for line in status.splitlines() if line.startswith("PPid:"))
    mine, best = {root}, 0.0
    for _ in range(6):  # a few generations: launcher, kernel
        mine |= {pid for pid, ppid in parents.items() if ppid in mine}
    for pid in mine - {root}:
        with contextlib.suppress(OSError):  # it ended meanwhile
            best = max(best, hwm_mb(pid))
    return best
