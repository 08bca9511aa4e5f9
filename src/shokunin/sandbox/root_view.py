"""The filesystem a walled process sees: an allow-list, never the host's tree with holes.

A fresh root (a small tmpfs) holds read-only binds of what Python and its libraries need
(``/usr``, ``/lib*``, the few files of ``/etc`` they read, the interpreter and its
packages), the process's own folders read-write, a private size-bounded ``/tmp`` and
``/dev/shm``, a ``/dev`` of a few device nodes, ``/proc`` and a read-only ``/sys``; then
``pivot_root`` into it and the old root is detached. What is not bound is not there: no
``/run``, ``/var``, ``/home``, ``/srv``, no data folder, no server working folder, so no
host service's unix socket (PostgreSQL's, MariaDB's, a Redis listener under /var/lib)
has a name the process could connect to. Landlock does not govern ``connect()`` to a
pathname socket; an absent name does.

Called by the launcher (``launcher.wall``) in a new mount namespace, as root or inside a
user namespace, for a kernel (cold or forked from the template) and for the upload
parser's children alike. Standard library only: the launcher runs it by path.
"""

from __future__ import annotations

import ctypes
import os
import stat

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC = 32, 4096, 16384
MNT_DETACH = 2
PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}  # no libc wrapper: the system call's number
# statvfs's flags and the mount flags they stand for: a read-only remount of a bind must
# keep the source's, which a user namespace has locked.
_KEPT = {os.ST_NOSUID: MS_NOSUID, os.ST_NODEV: MS_NODEV, os.ST_NOEXEC: MS_NOEXEC,
         os.ST_NOATIME: 1024, os.ST_NODIRATIME: 2048, os.ST_RELATIME: 1 << 21}
# /dev's links to the process's own descriptors
DEV_LINKS = {"fd": "/proc/self/fd", "stdin": "/proc/self/fd/0", "stdout": "/proc/self/fd/1",
             "stderr": "/proc/self/fd/2"}

_libc = ctypes.CDLL(None, use_errno=True)


def _check(rc: int, what: str) -> None:
    if rc != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


def mount(source: str | None, target: str, fstype: str | None, flags: int,
          data: str = "") -> None:
    _check(_libc.mount(source.encode() if source else None, target.encode(),
                       fstype.encode() if fstype else None, flags, data.encode() or None),
           f"mount {target}")


def build(view: dict, tmp: dict) -> None:
    """Make ``view`` this mount namespace's whole filesystem (see the module docstring).

    ``view``: ``root`` an empty folder to build on; ``readable`` paths bound read-only
    (/proc and /sys are always there),
    ``writable`` paths bound read-write, each at its own path; ``devices`` the device
    nodes of ``/dev``; ``cover`` paths that lie beneath a bound one and must not be seen
    (the data folder, a home folder): an empty folder or file over each. ``tmp``:
    ``folders`` that get a fresh tmpfs of ``mb`` MiB each (/tmp, /dev/shm).
    Raises OSError: the caller must not go on with a half-built view.
    """
    new = view["root"]
    os.umask(0o022)  # what is made here must be traversable by the process's uid
    mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755")
    _bind("/proc", new + "/proc", readonly=False)
    _bind("/sys", new + "/sys", readonly=True)
    _dev(new, view["devices"])
    for folder in tmp["folders"]:
        os.makedirs(new + folder, exist_ok=True)
        mount("tmpfs", new + folder, "tmpfs", MS_NOSUID | MS_NODEV,
              f"size={tmp['mb']}m,mode=1777")
    for path in sorted(set(view["readable"]) - {"/proc", "/sys"}, key=len):
        _bind(path, new + path, readonly=True)
    for path in sorted(set(view["writable"]), key=len):
        _bind(path, new + path, readonly=False)
    for path in view["cover"]:
        _cover(new + path)
    mount(None, new, None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV)
    os.chdir(new)
    # the old root now lies under the new one, at "."
    _check(_libc.syscall(PIVOT_ROOT[os.uname().machine], b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", MNT_DETACH), "umount the host's root")
    os.chdir("/")


def _bind(source: str, target: str, *, readonly: bool) -> None:
    """Bind ``source`` at ``target`` (a link is made again as a link: /bin -> usr/bin);
    a source that does not exist is skipped."""
    try:
        st = os.lstat(source)
    except FileNotFoundError:
        return
    if stat.S_ISLNK(st.st_mode):
        if not os.path.lexists(target):
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(os.readlink(source), target)
        return
    if not os.path.lexists(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if stat.S_ISDIR(st.st_mode):
            os.mkdir(target)
        else:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW, 0o644))
    mount(source, target, None, MS_BIND | MS_REC)
    if readonly:
        kept = os.statvfs(target).f_flag
        flags = sum(ms for st_flag, ms in _KEPT.items() if kept & st_flag)
        mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | flags)


def _dev(new: str, devices: list[str]) -> None:
    """A /dev of the given device nodes (bound from the host's) and links to the
    process's own descriptors: no disks, no terminals, nothing of the host's /dev/shm."""
    dev = new + "/dev"
    os.makedirs(dev)
    mount("tmpfs", dev, "tmpfs", MS_NOSUID, "size=64k,mode=0755")
    for device in devices:
        _bind(device, new + device, readonly=False)
    for name, target in DEV_LINKS.items():
        os.symlink(target, f"{dev}/{name}")


def _cover(target: str) -> None:
    if os.path.isdir(target) and not os.path.islink(target):
        mount("tmpfs", target, "tmpfs", MS_RDONLY | MS_NOSUID | MS_NODEV, "size=4k,mode=0755")
    elif os.path.isfile(target) and not os.path.islink(target):
        mount("/dev/null", target, None, MS_BIND)
