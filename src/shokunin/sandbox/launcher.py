"""The kernel launcher: walls the process in, then execs ipykernel in its place.

Run by path (``python launcher.py CONFIG_JSON -- KERNEL_ARGV...``) so that it imports none
of shokunin's server code and costs a few milliseconds. Everything it sets is inherited by
the kernel and everything the kernel starts, and none of it can be undone without
privileges:

- as root: new network namespace (no interface but a down loopback, so no network; the
  kernel talks to the server over unix sockets, which ignore network namespaces), new
  mount namespace, new IPC namespace (System V shared memory of its own, bounded like
  /dev/shm), then a switch to an unprivileged uid of the kernel's own (so RLIMIT_NPROC
  applies and kernels cannot read or signal each other);
- unprivileged: a user + network + mount + IPC namespace when the system allows one,
  else none of these (the server refuses Python then, unless an operator accepted the
  weaker walls);
- in the mount namespace, the filesystem is an allow-list (``root_view.py``): a fresh
  root of read-only binds of what Python needs, the kernel's own folder, a private
  size-bounded /tmp and /dev/shm; no host socket, no data folder is there to reach.
  Without a namespace TMPDIR points into the kernel's own folder and Landlock keeps it
  out of the host's /tmp and /dev/shm;
- always: resource limits (address space, CPU time, processes, file size), umask 077; the
  kernel dies with the server (PR_SET_PDEATHSIG) and reaps its forks' orphans (subreaper);
- last, right before the exec: Landlock (``landlock_rules.py``: what it may read and
  write) and the seccomp filter (``syscall_filter.py``: no namespaces, mounts, ptrace,
  bpf, keys, sockets but unix ones...). A system with seccomp where the filter cannot be
  loaded stops the launch: no kernel starts without it.

It imports the standard library and its three sibling modules (found beside it: Python puts
the script's folder first on sys.path), which load libseccomp through ``pyseccomp``.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys

import landlock_rules
import root_view
import syscall_filter

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_REC = 16384
MS_PRIVATE = 1 << 18
PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15
PR_SET_CHILD_SUBREAPER = 36

_libc = ctypes.CDLL(None, use_errno=True)

LIMITS = {"as": resource.RLIMIT_AS, "cpu": resource.RLIMIT_CPU,
          "nproc": resource.RLIMIT_NPROC, "fsize": resource.RLIMIT_FSIZE,
          "nofile": resource.RLIMIT_NOFILE}


def _check(rc: int, what: str) -> None:
    if rc != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"{what}: {os.strerror(errno)}")


_mount = root_view.mount


def isolate_as_root() -> None:
    """Private network, mounts and System V IPC; the filesystem view is built next."""
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC), "unshare")
    _mount("none", "/", None, MS_REC | MS_PRIVATE)


def isolate_unprivileged() -> bool:
    """A user + network + mount namespace if the system permits it; False when it does not."""
    uid, gid = os.getuid(), os.getgid()
    if _libc.unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWIPC) != 0:
        return False
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    return True


def bound_ipc(size_mb: int) -> None:
    """System V shared memory of the kernel's own IPC namespace (gone with its last
    process, out of the host's and other kernels' reach) bounded like its /dev/shm: a new
    namespace starts with the host's near-unlimited shmmax and shmall. Best effort where
    the namespace's owner may not set them (an unprivileged server's user namespace)."""
    total = size_mb << 20
    for name, value in (("shmmax", total), ("shmall", total // os.sysconf("SC_PAGE_SIZE")),
                        ("shmmni", 64)):
        try:
            with open(f"/proc/sys/kernel/{name}", "w") as f:
                f.write(str(value))
        except OSError:
            pass


def filter_syscalls() -> None:
    """The seccomp filter; a system that has seccomp but cannot load it stops the launch."""
    if not syscall_filter.kernel_supports_seccomp():
        return  # the server logs this once at start
    try:
        syscall_filter.apply()
    except syscall_filter.FilterUnavailable as exc:
        print(f"shokunin launcher: {exc}", file=sys.stderr)
        sys.exit(1)


def become_subreaper() -> None:
    """Orphans of the kernel's forks become the kernel's children, which it can reap:
    zombies count against RLIMIT_NPROC until someone does."""
    _check(_libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0), "prctl(PR_SET_CHILD_SUBREAPER)")


def name_process(name: bytes) -> None:
    """The name ``ps`` and /proc/<pid>/comm show (15 bytes at most)."""
    _check(_libc.prctl(PR_SET_NAME, name, 0, 0, 0), "prctl(PR_SET_NAME)")


def die_with(parent: int) -> None:
    """SIGKILL when the server goes, even by SIGKILL. Set after the change of uid, which
    clears it. Linux ties it to the server's thread that started the kernel: jupyter_client
    starts kernels on the event loop's thread, which lives as long as the server."""
    _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:  # the server died before the line above
        os._exit(1)


def share_with(path: str, gid: int) -> None:
    """Let the kernel's group read a file the server wrote (in a folder only root can
    write, so the name cannot be a planted link; O_NOFOLLOW all the same)."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fchown(fd, 0, gid)
        os.fchmod(fd, 0o640)
    finally:
        os.close(fd)


def seed(source: str, target: str) -> None:
    """Copy a prebuilt cache into the kernel's own folder, as the kernel's uid (so a link
    the kernel planted there can only lead where the kernel may write anyway)."""
    import shutil

    try:
        shutil.copytree(source, target, dirs_exist_ok=True)
    except OSError as exc:  # only a cache: matplotlib rebuilds it, slowly
        print(f"shokunin launcher: font cache not copied: {exc}", file=sys.stderr)


def apply_limits(limits: dict[str, int]) -> None:
    for name, value in limits.items():
        resource.setrlimit(LIMITS[name], (value, value))


def wall(config: dict, parent: int) -> None:
    """Apply every wall of ``config`` to this process, in the launcher's order; the process
    dies with ``parent``. Called in the launcher before the exec, in a kernel forked from
    the template (``zygote.py``) and in the upload parser's children before they run
    anything of their own."""
    uid, gid = config["uid"], config["gid"]
    tmp, writable = config["tmp"], list(config["writable"])
    if os.geteuid() == 0:
        for path in config["share"]:
            share_with(path, gid)
        isolate_as_root()
        private = True
    else:
        private = isolate_unprivileged()
    if private:
        bound_ipc(tmp["mb"])
        root_view.build({"root": config["root"], "readable": config["readable"],
                         "writable": writable, "devices": config["devices"],
                         "cover": config["cover"]}, tmp)
        writable += tmp["folders"]
    apply_limits(config["limits"])
    become_subreaper()
    os.umask(0o077)
    if os.geteuid() == 0:
        os.setgroups([])
        os.setgid(gid)
        os.setuid(uid)
    die_with(parent)
    if config["seed"]:
        seed(*config["seed"])
    if not private:  # the host's tree, /tmp and /dev/shm: Landlock keeps the kernel out
        os.makedirs(tmp["fallback"], mode=0o700, exist_ok=True)
        os.environ["TMPDIR"] = tmp["fallback"]
        writable.append(tmp["fallback"])
    # no folder of its own (a parse child): it works in its temp folder
    os.chdir(config["cwd"] or ("/tmp" if private else tmp["fallback"]))
    # Landlock when the kernel has it (the server logs once when it does not); a parse
    # child's files are its descriptors, each allowed on its own
    landlock_rules.confine([*config["readable"], *config.get("files_read", [])],
                           [*writable, *config.get("files_write", [])], config["devices"])
    filter_syscalls()


def main(argv: list[str]) -> None:
    config = json.loads(argv[1])
    wall(config, config["parent"])
    kernel_argv = argv[argv.index("--") + 1:]
    os.execve(kernel_argv[0], kernel_argv, os.environ)


if __name__ == "__main__":
    main(sys.argv)
