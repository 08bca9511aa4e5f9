"""Ports for tools' own web UIs: a free loopback port to hand out, and whether a given
process is the one listening on it.

A tool that has a UI gets ``context["ui_port"]`` (as in the origin project) and starts its
own small web server there, in its child process. The server proxies that port only while
the tool's process is the one listening on it: another program that took the port in the
meantime is never proxied to (Linux: read from ``/proc``).
"""

from __future__ import annotations

import contextlib
import os
import socket
from pathlib import Path

LISTEN = "0A"  # TCP_LISTEN in /proc/net/tcp's "st" column


def free_port() -> int:
    """A TCP port nothing listens on at 127.0.0.1 now (the kernel's choice)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening_inodes(port: int, proc: Path = Path("/proc")) -> set[str]:
    """The socket inodes listening on ``port`` on loopback or every address (IPv4 and 6)."""
    found: set[str] = set()
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):
            lines = (proc / "net" / table).read_text().splitlines()[1:]
            for line in lines:
                fields = line.split()
                if len(fields) < 10 or fields[3] != LISTEN:
                    continue
                address, _, hex_port = fields[1].partition(":")
                if int(hex_port, 16) == port and _local(address):
                    found.add(fields[9])
    return found


def owns_listener(pid: int, port: int, proc: Path = Path("/proc")) -> bool:
    """Whether process ``pid`` holds a socket listening on ``port``. Without ``/proc``
    (not Linux) any listener on 127.0.0.1 counts."""
    if not (proc / "net" / "tcp").exists():
        return _accepts(port)
    inodes = listening_inodes(port, proc)
    if not inodes:
        return False
    fd_dir = proc / str(pid) / "fd"
    with contextlib.suppress(OSError):
        for fd in os.listdir(fd_dir):
            with contextlib.suppress(OSError):
                target = os.readlink(fd_dir / fd)
                if target.startswith("socket:[") and target[8:-1] in inodes:
                    return True
    return False


def _local(hex_address: str) -> bool:
    """Loopback or the wildcard, as /proc/net/tcp{,6} spells it (little-endian words)."""
    if len(hex_address) == 8:  # IPv4
        return hex_address == "00000000" or hex_address.endswith("7F")
    return hex_address in ("0" * 32, "0" * 24 + "01000000",  # :: and ::1
                           "0000000000000000FFFF00000100007F")  # ::ffff:127.0.0.1


def _accepts(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex(("127.0.0.1", port)) == 0
