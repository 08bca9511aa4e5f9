"""The server's sandbox folder and kernel uids, claimed so that a successor can tell what a
dead server left behind from what a live one is using.

- Each server makes its own runtime folder (kernel folders, the font cache) in the temp
  folder and records it in ``<data_dir>/sandbox/<name>.lock``, a file it keeps locked
  (``flock``) while it lives: the kernel frees the lock when the process ends, even by
  SIGKILL. At start, every record of this data folder whose lock can be taken belongs to a
  dead server: its kernels' processes are killed and its folder removed. Records that are
  still locked (another live server on the same data folder) are left alone.
- Kernel uids of root servers are claimed host-wide by binding an abstract unix socket
  named after the uid: two servers never hand out the same uid, and a uid nobody holds is
  safe to clean up. Kernels live in their own network namespace, where these names do not
  exist, so they cannot squat them.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import logging
import os
import re
import shutil
import signal
import socket
import tempfile
from dataclasses import dataclass
from pathlib import Path

log = logging.getLogger(__name__)

UID_BASE = 620_000  # kernels run as uids from here on (root only); no passwd entry needed
UID_SPAN = 60_000
PREFIX = "shokunin-sandbox-"
_KERNEL_FOLDER = re.compile(r"k(\d+)(?:-\d+)*")


def claim_uid(uid: int) -> socket.socket | None:
    """Hold ``uid`` for this process's life (None: a live server holds it)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(f"\0shokunin-kernel-uid-{uid}")
    except OSError:
        sock.close()
        return None
    return sock


@dataclass
class Runtime:
    """This server's runtime folder, claimed for as long as the process lives."""

    root: Path
    record: Path
    _fd: int

    @classmethod
    def claim(cls, data_dir: Path) -> Runtime:
        registry = data_dir.resolve() / "sandbox"
        registry.mkdir(mode=0o700, parents=True, exist_ok=True)
        reap_dead_servers(registry)
        root = Path(tempfile.mkdtemp(prefix=PREFIX))
        root.chmod(0o711)  # kernels may pass through to their own folder
        record = registry / f"{root.name}.lock"
        fd = os.open(record, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o600)
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        os.write(fd, json.dumps({"root": str(root), "pid": os.getpid()}).encode())
        return cls(root, record, fd)

    def release(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        with contextlib.suppress(FileNotFoundError):
            self.record.unlink()
        os.close(self._fd)


def reap_dead_servers(registry: Path) -> list[Path]:
    """Kill the kernels and remove the folders of this data folder's dead servers; returns
    the folders removed."""
    removed = []
    for record in sorted(registry.glob(f"{PREFIX}*.lock")):
        try:
            fd = os.open(record, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                continue  # a live server
            root = _recorded_root(fd)
            if root is not None:
                _kill_kernels_of(root)
                shutil.rmtree(root, ignore_errors=True)
                removed.append(root)
            record.unlink()
        finally:
            os.close(fd)
    return removed


def _recorded_root(fd: int) -> Path | None:
    """The runtime folder a record names, if it is one we could have made: our own,
    a real folder (not a link), named as mkdtemp names ours."""
    with contextlib.suppress(OSError, ValueError, KeyError, TypeError):
        root = Path(json.loads(os.pread(fd, 4096, 0))["root"])
        st = os.lstat(root)
        if root.is_absolute() and root.name.startswith(PREFIX) and st.st_uid == os.geteuid() \
                and os.path.isdir(root) and not root.is_symlink():
            return root
    return None


def _kill_kernels_of(root: Path) -> None:
    """Kernel processes of a dead server: those naming its folder on their command line
    (a kernel, its launcher, their forks) and, as root, every process of its kernel uids
    that no live server has claimed since."""
    uids = set()
    if os.geteuid() == 0:
        for entry in os.scandir(root):
            match = _KERNEL_FOLDER.fullmatch(entry.name)
            if match and UID_BASE <= int(match.group(1)) < UID_BASE + UID_SPAN:
                uids.add(int(match.group(1)))
    claims = {uid: claim for uid in uids if (claim := claim_uid(uid)) is not None}
    try:
        needle = str(root).encode() + b"/"
        for _ in range(5):
            victims = [pid for pid, uid, cmdline in _processes()
                       if pid != os.getpid() and (uid in claims or needle in cmdline)]
            if not victims:
                return
            for pid in victims:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
    finally:
        for claim in claims.values():
            claim.close()


def _processes() -> list[tuple[int, int, bytes]]:
    """(pid, uid, command line) of every process that is not a zombie."""
    found = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                uid = entry.stat().st_uid
                with open(f"/proc/{entry.name}/stat", "rb") as f:
                    if f.read().rpartition(b")")[2].split()[0] == b"Z":
                        continue
                with open(f"/proc/{entry.name}/cmdline", "rb") as f:
                    found.append((int(entry.name), uid, f.read()))
    return found
