"""Which of the sandbox's walls hold on this machine, measured from inside a walled process.

At start the server runs a probe behind the same walls as a kernel (``Sandbox.start``); the
probe reports what it finds itself in (its root filesystem, its network, its uid, its
seccomp mode, whether Landlock stops it listing ``/``), so the report says what holds, not
what was asked for. Without the filesystem view (a normal user's server on a system without
unprivileged user namespaces) Python is refused unless the operator accepted the weaker
walls (``SHOKUNIN_SANDBOX_WEAK_WALLS``). The report is logged at start, served on
``/health`` and shown in the UI.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

# Run behind the walls after the start-up checks: prints one JSON line of facts.
PROBE = """
import json, os
def _root_fs():
    with open('/proc/self/mountinfo') as f:
        for line in f:
            fields = line.split()
            if fields[4] == '/':
                found = line.split(' - ')[1].split()[0]
    return found
def _interfaces():
    with open('/proc/self/net/dev') as f:
        return [line.split(':')[0].strip() for line in f.readlines()[2:]]
def _seccomp():
    with open('/proc/self/status') as f:
        return next((line.split()[1] for line in f if line.startswith('Seccomp:')), '0')
try:
    os.listdir('/')
    listed = True
except PermissionError:
    listed = False
print(json.dumps({'root_fs': _root_fs(), 'run': os.path.lexists('/run'),
                  'interfaces': _interfaces(), 'uid': os.getuid(),
                  'seccomp': _seccomp(), 'listed_root': listed}))
"""

# What each wall stops, for the log, /health and the UI (operators read these)
STOPS = {
    "filesystem_view": "the host's files and its services' unix sockets (PostgreSQL, "
                       "MariaDB, Redis): a kernel's filesystem holds only what Python needs",
    "own_uid": "other kernels and the server's files, by the uid's own rights",
    "no_network": "the network, even loopback",
    "seccomp": "new namespaces, mounts, tracing, kernel modules, connecting to any socket",
    "landlock": "reading or writing beyond the folders a kernel is given",
}


@dataclass(frozen=True)
class Wall:
    """One wall: whether it holds here, and what it stops."""

    name: str
    holds: bool
    stops: str


@dataclass(frozen=True)
class WallsReport:
    """The walls of this machine's kernels, and whether Python runs behind them."""

    walls: tuple[Wall, ...]
    python: bool
    reason: str | None = None  # why Python is refused, or what accepting weaker walls means

    @property
    def missing(self) -> list[str]:
        return [w.name for w in self.walls if not w.holds]

    def as_dict(self) -> dict:
        return {"python": "on" if self.python else "refused",
                "walls": {w.name: w.holds for w in self.walls},
                "missing": [{"wall": w.name, "lets_through": w.stops}
                            for w in self.walls if not w.holds],
                "reason": self.reason}

    def summary(self) -> str:
        """One line for the start-up log."""
        held = ", ".join(w.name for w in self.walls if w.holds) or "none"
        if not self.missing:
            return f"sandbox walls: all hold ({held})"
        line = f"sandbox walls: {held} hold; missing: {', '.join(self.missing)}"
        return f"{line}. {self.reason}" if self.reason else line


def measure(probe_stdout: str, *, server_uid: int, is_root: bool, landlock_abi: int,
            weak_walls_accepted: bool) -> WallsReport:
    """The report from the probe's output (its last line)."""
    facts = json.loads(probe_stdout.strip().splitlines()[-1])
    holds = {
        "filesystem_view": facts["root_fs"] == "tmpfs" and not facts["run"],
        "own_uid": is_root and facts["uid"] != server_uid,
        "no_network": facts["interfaces"] == ["lo"],
        "seccomp": facts["seccomp"] == "2",
        "landlock": landlock_abi >= 1 and not facts["listed_root"],
    }
    walls = tuple(Wall(name, holds[name], STOPS[name]) for name in STOPS)
    python, reason = True, None
    if not holds["filesystem_view"]:
        if weak_walls_accepted:
            reason = ("Python runs with weaker walls (SHOKUNIN_SANDBOX_WEAK_WALLS=true): "
                      "kernels see the host's files, limited by Landlock and seccomp only. "
                      "See docs/threat-model.md.")
        else:
            python = False
            reason = ("Python is refused: this system lets a normal user make no user "
                      "namespace, so a kernel cannot get a filesystem of its own and could "
                      "reach the host's files and services. Run the server as root, allow "
                      "unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 "
                      "or user.max_user_namespaces>0), or accept the weaker walls with "
                      "SHOKUNIN_SANDBOX_WEAK_WALLS=true (docs/threat-model.md).")
    elif not is_root:
        reason = ("kernels of a normal user's server share its uid: the filesystem view, "
                  "Landlock and seccomp keep them apart from the host, not from each other's "
                  "workspaces")
    return WallsReport(walls, python, reason)
