"""Bind a host folder into a running kernel's filesystem view (root servers only).

Run by path as ``python mount_into.py PID SOURCE TARGET``: the kernel's view holds nothing
of the host's tree (``root_view.py``), so a thread's workspace, known only when a pooled
kernel is taken, cannot be bound from a path inside it. This clones the folder as a
detached mount here, in the host's namespace (never following a link: the workspace's
kernel-owned contents may hold any), then enters the kernel's mount namespace and attaches
the clone at ``TARGET``, the kernel's (root-owned) work folder. A process of its own:
entering a mount namespace needs a single-threaded caller.
"""

from __future__ import annotations

import ctypes
import os
import sys

CLONE_NEWNS = 0x00020000
OPEN_TREE, MOVE_MOUNT = 428, 429  # the same number on every architecture
OPEN_TREE_CLONE, OPEN_TREE_CLOEXEC = 1, os.O_CLOEXEC
AT_EMPTY_PATH = 0x1000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
AT_FDCWD = -100

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


def _check(rc: int, what: str) -> int:
    if rc < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return rc


def main(pid: int, source: str, target: str) -> None:
    folder = os.open(source, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    tree = _check(_libc.syscall(OPEN_TREE, folder, b"", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC
                                | AT_EMPTY_PATH), "open_tree")
    namespace = os.open(f"/proc/{pid}/ns/mnt", os.O_RDONLY | os.O_CLOEXEC)
    _check(_libc.setns(namespace, CLONE_NEWNS), "setns")
    # No MOVE_MOUNT_T_SYMLINKS: a link at the target is not followed
    _check(_libc.syscall(MOVE_MOUNT, tree, b"", AT_FDCWD, target.encode(),
                         MOVE_MOUNT_F_EMPTY_PATH), f"move_mount {target}")


if __name__ == "__main__":
    try:
        main(int(sys.argv[1]), sys.argv[2], sys.argv[3])
    except OSError as exc:
        sys.exit(str(exc))
