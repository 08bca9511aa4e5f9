"""The kernel's walls for the children that parse untrusted uploads (``shokunin.untrusted``).

A parse child feeds attacker bytes to pandas' C reader, calamine and DuckDB: a bug in one
of them is native code running in the child. So the child gets what a kernel gets, from
the same function (``launcher.wall``) before it parses anything: an environment with no
secret, its own network, mount and IPC namespaces, the same filesystem view (no data
folder, no host socket) with a private /tmp, its own uid on a root server, resource
limits, Landlock and seccomp. Its input and output are the descriptors the server opened
(``untrusted.Descriptor``); the view holds none of their folders, so the child reaches the
files through its descriptors only: Landlock is given each of them, and on a root server
their group becomes the parsers' uid's, which may then read (and write, when the server
opened it for writing) what the server handed over and nothing else.
"""

from __future__ import annotations

import fcntl
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
NOFILE = 1024
NPROC = 2048  # every parse child shares the uid: DuckDB starts a thread per core in each


@dataclass(frozen=True)
class ParserWalls:
    """What ``launcher.wall`` applies to a parse child (pickled to it); call it in the child
    with the descriptors it was handed."""

    uid: int
    readable: tuple[str, ...]
    cover: tuple[str, ...]
    root: str  # an empty folder to build the view on (each child in its own namespace)
    fallback_tmp: str  # the temp folder where no namespace can be made
    tmp_mb: int
    env: tuple[tuple[str, str], ...]

    def __call__(self, descriptors: list[int]) -> None:
        """Wall this process in (a parse child, before the parse): never returns on
        failure (the child must not parse without its walls)."""
        sys.path.insert(0, str(HERE))  # the launcher imports its siblings by bare name
        import launcher

        read, write = [], []
        for fd in descriptors:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue  # a pipe or socket: no path, nothing to reopen
            writable = fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_ACCMODE != os.O_RDONLY
            if os.geteuid() == 0:
                _share(fd, self.uid, writable)
            (write if writable else read).append(f"/proc/self/fd/{fd}")
        limits = {"nofile": NOFILE, **({"nproc": NPROC} if os.geteuid() == 0 else {})}
        config: dict[str, Any] = {
            "uid": self.uid, "gid": self.uid, "share": [], "seed": None, "cwd": None,
            "limits": limits, "root": self.root, "readable": list(self.readable),
            "writable": [], "cover": list(self.cover), "devices": list(DEVICES),
            "tmp": {"folders": ["/tmp", "/dev/shm"], "mb": self.tmp_mb,
                    "fallback": self.fallback_tmp},
            "files_read": read, "files_write": write}
        os.environ.clear()
        os.environ.update(dict(self.env))
        launcher.wall(config, os.getppid())


def _share(fd: int, gid: int, writable: bool) -> None:
    """Let the parsers' uid open the file behind ``fd`` again (libraries that take a path
    reopen /proc/self/fd/N, which checks the file's mode): its group, and group read
    (and write) permission. Through the descriptor: the file the server checked."""
    mode = stat.S_IMODE(os.fstat(fd).st_mode)
    os.fchown(fd, -1, gid)
    os.fchmod(fd, mode | stat.S_IRGRP | (stat.S_IWGRP if writable else 0))
