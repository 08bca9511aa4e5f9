"""The kernel launcher: walls the process in, then execs ipykernel in its place.

Run by path (``python launcher.py CONFIG_JSON -- KERNEL_ARGV...``) so that it imports none
of shokunin's server code and costs a few milliseconds. Everything it sets is inherited by
the kernel and everything the kernel starts, and none of it can be undone without
privileges:

- as root: new network namespace (no interface but a down loopback, so no network; the
  kernel talks to the server over unix sockets, which ignore network namespaces), new
  mount namespace where the server's data folder and secret files are hidden, new IPC
  namespace (System V shared memory of its own, bounded like /dev/shm), then a
  switch to an unprivileged uid of the kernel's own (so RLIMIT_NPROC applies and kernels
  cannot read or signal each other);
- unprivileged: a user + network + mount + IPC namespace when the system allows one,
  else nothing;
- private /tmp and /dev/shm: a size-bounded tmpfs each in the kernel's mount namespace
  (root, or unprivileged with a user namespace), gone with the kernel; without a namespace
  TMPDIR points into the kernel's own folder and Landlock keeps it out of both;
- always: resource limits (address space, CPU time, processes, file size), umask 077; the
  kernel dies with the server (PR_SET_PDEATHSIG) and reaps its forks' orphans (subreaper);
- last, right before the exec: Landlock (``landlock_rules.py``: what it may read and
  write) and the seccomp filter (``syscall_filter.py``: no namespaces, mounts, ptrace,
  bpf, keys, sockets but unix ones...). A system with seccomp where the filter cannot be
  loaded stops the launch: no kernel starts without it.

It imports the standard library and its two sibling modules (found beside it: Python puts
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
import syscall_filter

CLONE_NEWNS = 0x00020000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWNET = 0x40000000
MS_NOSUID = 2
MS_NODEV = 4
MS_BIND = 4096
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


def _mount(source: str, target: str, fstype: str | None, flags: int, data: str = "") -> None:
    _check(_libc.mount(source.encode(), target.encode(),
                       fstype.encode() if fstype else None, flags, data.encode() or None),
           f"mount {target}")


def isolate_as_root(stash: str, hide: list[str], expose: list[str]) -> None:
    """Private network and mounts; the real tree stays reachable, for root only, at stash.

    Each folder in ``hide`` becomes an empty tmpfs, each file /dev/null; a path of
    ``expose`` inside a hidden folder (the Python installation under /root or under a 0700
    folder, say) is bound back, so the kernel can run without seeing what lies beside it.
    A hidden path inside an exposed one is hidden again, so exposing never uncovers.
    """
    _check(_libc.unshare(CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC), "unshare")
    _mount("none", "/", None, MS_REC | MS_PRIVATE)
    # The server binds the thread's workspace in later (nsenter) from this copy of "/",
    # which sits in a root-only folder, so the kernel itself cannot walk through it.
    _mount("/", stash, None, MS_BIND | MS_REC)
    for path in hide:
        _hide(path)
    os.umask(0o022)  # mount points made below must be traversable by the kernel's uid
    for path in expose:
        if _inside(path, hide) and os.path.isdir(stash + path):
            os.makedirs(path, exist_ok=True)
            _mount(stash + path, path, None, MS_BIND | MS_REC)
    for path in hide:
        if _inside(path, expose):
            _hide(path)


def _inside(path: str, folders: list[str]) -> bool:
    return any(path.startswith(f.rstrip("/") + "/") for f in folders)


def _hide(path: str) -> None:
    if os.path.isdir(path):
        _mount("tmpfs", path, "tmpfs", 0, "size=64k,mode=0755")
    elif os.path.exists(path):
        _mount("/dev/null", path, None, MS_BIND)


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


def private_tmp(folders: list[str], size_mb: int, keep: list[str]) -> None:
    """A fresh tmpfs of ``size_mb`` MiB on each of ``folders`` (/tmp, /dev/shm), in this
    mount namespace only: what the kernel writes there is bounded and goes with it.

    The paths of ``keep`` that lie beneath one of them (the kernel's own folder, its
    stash, the font cache: the server's runtime folder is in the temp folder) are bound
    back from a descriptor taken before they were covered.
    """
    held = {}
    for path in sorted(set(keep), key=len):
        if _inside(path, folders) and os.path.isdir(path):
            held[path] = os.open(path, os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
    for folder in folders:
        if os.path.isdir(folder):
            _mount("tmpfs", folder, "tmpfs", MS_NOSUID | MS_NODEV,
                   f"size={size_mb}m,mode=1777")
    os.umask(0o022)  # folders made below must be traversable by the kernel's uid
    for path, fd in held.items():
        os.makedirs(path, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC)
        os.close(fd)


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
    dies with ``parent``. Called in the launcher before the exec, and in a kernel forked
    from the template (``zygote.py``) before it runs anything of its own."""
    uid, gid = config["uid"], config["gid"]
    tmp, writable = config["tmp"], list(config["writable"])
    if os.geteuid() == 0:
        isolate_as_root(config["stash"], config["hide"], config["expose"])
        private = True
        for path in config["share"]:
            share_with(path, gid)
    else:
        private = isolate_unprivileged()
    if private:
        bound_ipc(tmp["mb"])
        private_tmp(tmp["folders"], tmp["mb"], config["keep"])
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
    if not private:  # /tmp and /dev/shm are the host's: Landlock keeps the kernel out
        os.makedirs(tmp["fallback"], mode=0o700, exist_ok=True)
        os.environ["TMPDIR"] = tmp["fallback"]
    os.chdir(config["cwd"])
    # Landlock when the kernel has it (the server logs once when it does not)
    landlock_rules.confine(config["readable"], writable, config["devices"])
    filter_syscalls()


def main(argv: list[str]) -> None:
    config = json.loads(argv[1])
    wall(config, config["parent"])
    kernel_argv = argv[argv.index("--") + 1:]
    os.execve(kernel_argv[0], kernel_argv, os.environ)


if __name__ == "__main__":
    main(sys.argv)
