"""Landlock: the folders a kernel may read, and the few it may write, whatever its uid.

Applied by the launcher right before it execs the kernel; like seccomp, a Landlock domain
is inherited by every process the kernel starts and can only be narrowed, never lifted.
It is the wall that still holds where uids do not: a server run by a normal user starts
its kernels as that same user, and only Landlock keeps them out of the data folder and
the server's working folder (``server.log``).

Everything Landlock knows on this kernel (ABI 1 to 7) is handled: files and folders
(read, write, execute, make, remove, rename across folders, truncate, device ioctls),
TCP bind and connect (ABI 4: none allowed), and scoping (ABI 6: no signals to processes
outside the kernel's domain, no connecting to abstract unix sockets made outside it).
Ptrace of processes outside the domain is refused from ABI 1 on.

A small ctypes module: the two Python bindings on PyPI were not fit (``landlock`` 1.0.0
is alpha and knows filesystem rights up to ABI 5 only, without TCP rules or scoping;
``landlockpy`` is not on this project's package index), and the kernel interface is
three system calls and two structures (Documentation/userspace-api/landlock.rst).
"""

from __future__ import annotations

import ctypes
import os
import stat

SYS_CREATE_RULESET, SYS_ADD_RULE, SYS_RESTRICT_SELF = 444, 445, 446  # every architecture
CREATE_RULESET_VERSION = 1
RULE_PATH_BENEATH = 1
PR_SET_NO_NEW_PRIVS = 38

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
FS_ABI1 = (1 << 13) - 1  # EXECUTE .. MAKE_SYM
NET_TCP = 1 | 2  # BIND_TCP, CONNECT_TCP (ABI 4)
SCOPES = 1 | 2  # ABSTRACT_UNIX_SOCKET, SIGNAL (ABI 6)
FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV  # all a file can hold

_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def abi_version() -> int:
    """The Landlock ABI of the running kernel; 0 when it has none (or it is disabled)."""
    version = _libc.syscall(SYS_CREATE_RULESET, None, ctypes.c_size_t(0),
                            ctypes.c_uint32(CREATE_RULESET_VERSION))
    return max(int(version), 0)


def handled_fs(abi: int) -> int:
    """Every filesystem right the given ABI knows."""
    rights = FS_ABI1
    if abi >= 2:
        rights |= REFER
    if abi >= 3:
        rights |= TRUNCATE
    if abi >= 5:
        rights |= IOCTL_DEV
    return rights


def confine(readable: list[str], writable: list[str], devices: list[str]) -> int:
    """Restrict this process: read and execute beneath ``readable``, anything beneath
    ``writable``, read and write the device files ``devices``; nothing else, no TCP, no
    signals or abstract sockets outside the domain. Paths that do not exist are skipped.

    Returns the ABI applied, 0 when the kernel has no Landlock (nothing is done). Raises
    OSError when Landlock is there but refuses the rules: the caller must not go on.
    """
    abi = abi_version()
    if abi < 1:
        return 0
    fs = handled_fs(abi)
    attr = _RulesetAttr(fs, NET_TCP if abi >= 4 else 0, SCOPES if abi >= 6 else 0)
    ruleset = _call(SYS_CREATE_RULESET, ctypes.byref(attr), ctypes.c_size_t(ctypes.sizeof(attr)),
                    ctypes.c_uint32(0), what="landlock_create_ruleset")
    try:
        for paths, rights in ((readable, EXECUTE | READ_FILE | READ_DIR), (writable, fs),
                              (devices, READ_FILE | WRITE_FILE | TRUNCATE | IOCTL_DEV)):
            for path in paths:
                _allow(ruleset, path, rights & fs)
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_NO_NEW_PRIVS)")
        _call(SYS_RESTRICT_SELF, ctypes.c_int(ruleset), ctypes.c_uint32(0),
              what="landlock_restrict_self")
    finally:
        os.close(ruleset)
    return abi


def _allow(ruleset: int, path: str, rights: int) -> None:
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS  # folder rights on a file are refused (EINVAL)
        rule = _PathBeneath(rights, fd)
        _call(SYS_ADD_RULE, ctypes.c_int(ruleset), ctypes.c_int(RULE_PATH_BENEATH),
              ctypes.byref(rule), ctypes.c_uint32(0), what=f"landlock_add_rule {path}")
    finally:
        os.close(fd)


def _call(number: int, *args: object, what: str) -> int:
    result = _libc.syscall(number, *args)
    if result < 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")
    return int(result)
