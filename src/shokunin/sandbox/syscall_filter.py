"""The kernel's seccomp filter: the system calls container runtimes deny by default.

Applied by the launcher as the last step before it execs the kernel, so that everything
the kernel starts inherits it and nothing can lift it (seccomp filters only ever add up).
It denies what a process needs only to change its own walls or reach past them: new
namespaces (``unshare -Ur`` would make the kernel uid 0 of a namespace of its own, free
to mount), mounts, tracing other processes, loading code into the kernel (bpf, modules,
kexec), the key store, I/O rings (which run system calls past this filter), every socket
but a unix stream one (the kernel talks to the server over unix sockets only; this holds
even where no network namespace could be made) and a netlink route one (see AF_NETLINK),
and ``connect``: a walled process may listen, never reach a listener, so no host
service's unix socket answers it even where no filesystem view could hide the name.

Built with libseccomp (``libseccomp.so.2``, on Debian and most distributions by default)
through ``pyseccomp``, a ctypes binding that is API-compatible with libseccomp's own
Python bindings and has no compiled part, so it works on every Python version.
"""

from __future__ import annotations

import errno

from shokunin.errors import ShokuninError

# Denied outright (EPERM). Names unknown to this architecture or libseccomp are skipped.
DENIED = (
    # namespaces and mounts: the walls the launcher built must stay as they are
    "unshare", "setns", "mount", "umount2", "pivot_root", "chroot", "open_tree",
    "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr",
    # other processes' memory and descriptors
    "ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd", "kcmp",
    # code and data in the host kernel
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "init_module", "finit_module", "delete_module", "create_module", "query_module",
    "get_kernel_syms", "kexec_load", "kexec_file_load", "reboot", "swapon", "swapoff",
    "acct", "quotactl", "quotactl_fd", "syslog", "open_by_handle_at", "name_to_handle_at",
    "iopl", "ioperm", "lookup_dcookie", "nfsservctl", "uselib", "_sysctl", "vhangup",
    # the host's clock
    "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    # I/O rings run operations (opening sockets among them) this filter never sees
    "io_uring_setup", "io_uring_enter", "io_uring_register",
    # reaching a listener: a walled process only listens (a kernel's channels are its own
    # sockets, which the server connects to), and a host service's unix socket, such as
    # PostgreSQL's with trust authentication, ignores network namespaces
    "connect",
)
# clone3 passes its flags in memory, which a filter cannot read: ENOSYS makes glibc fall
# back to clone, whose flags it can.
UNSUPPORTED = ("clone3",)
CLONE_NEW = (0x00020000, 0x02000000, 0x04000000, 0x08000000, 0x10000000, 0x20000000,
             0x40000000)  # NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET
# personality(2) may select only Linux (PER_LINUX, PER_LINUX32, UNAME26), as Docker's
# default profile allows: not READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE and the like.
PERSONALITY_ALLOWED_BITS = 0x0008 | 0x0020000
# Sockets: unix ones, and netlink's route family, read-only without privileges, which
# libzmq needs (ipykernel binds a pipe on 127.0.0.1 at start: libzmq lists the interfaces
# first and aborts the process when it cannot; the TCP socket itself is then refused and
# ipykernel goes on without that pipe). In the kernel's network namespace it sees a
# loopback that is down.
AF_UNIX, AF_NETLINK, NETLINK_ROUTE = 1, 16, 0
# A unix datagram socket sends to any named one without connecting (syslog's /dev/log,
# the journal's): none may be made. The type's low bits; the rest are SOCK_CLOEXEC etc.
SOCK_DGRAM, SOCK_TYPE_MASK = 2, 0xF


class FilterUnavailable(ShokuninError, RuntimeError):
    """The system supports seccomp but the filter could not be built or loaded."""


def kernel_supports_seccomp() -> bool:
    """Whether this kernel has seccomp filters at all (``Seccomp:`` in /proc/self/status)."""
    try:
        with open("/proc/self/status", encoding="ascii", errors="replace") as f:
            return any(line.startswith("Seccomp:") for line in f)
    except OSError:
        return False


def apply() -> None:
    """Load the filter into this process (and so into all it will start).

    Sets PR_SET_NO_NEW_PRIVS first (libseccomp does so too), which seccomp needs without
    privileges and which stops set-uid programs from gaining any. Raises
    FilterUnavailable when libseccomp is missing or the kernel refuses the filter.
    """
    try:
        import pyseccomp as sc
    except (ImportError, OSError) as exc:  # pyseccomp raises on import without libseccomp
        raise FilterUnavailable(f"libseccomp cannot be loaded ({exc}); install libseccomp2 "
                                "(Debian: apt-get install libseccomp2)") from exc
    try:
        flt = sc.SyscallFilter(sc.ALLOW)
        _deny(sc, flt, DENIED, errno.EPERM)
        _deny(sc, flt, UNSUPPORTED, errno.ENOSYS)
        eperm = sc.ERRNO(errno.EPERM)
        for flag in CLONE_NEW:
            flt.add_rule(eperm, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
        for bit in range(32):
            if not (1 << bit) & PERSONALITY_ALLOWED_BITS:
                flt.add_rule(eperm, "personality", sc.Arg(0, sc.MASKED_EQ, 1 << bit, 1 << bit))
        no_family = sc.ERRNO(errno.EAFNOSUPPORT)  # "no such network here": callers fall back
        for call in ("socket", "socketpair"):
            for family in (*range(AF_UNIX), *range(AF_UNIX + 1, AF_NETLINK)):
                flt.add_rule(no_family, call, sc.Arg(0, sc.EQ, family))
            flt.add_rule(no_family, call, sc.Arg(0, sc.GT, AF_NETLINK))
            flt.add_rule(no_family, call, sc.Arg(0, sc.EQ, AF_NETLINK),
                         sc.Arg(2, sc.NE, NETLINK_ROUTE))
            flt.add_rule(eperm, call, sc.Arg(0, sc.EQ, AF_UNIX),
                         sc.Arg(1, sc.MASKED_EQ, SOCK_TYPE_MASK, SOCK_DGRAM))
        flt.load()
    except OSError as exc:
        raise FilterUnavailable(f"the seccomp filter could not be loaded: {exc}") from exc


def _deny(sc, flt, names: tuple[str, ...], code: int) -> None:  # noqa: ANN001
    arch = sc.system_arch()
    for name in names:
        try:
            number = sc.resolve_syscall(arch, name)
        except (OSError, ValueError):
            continue
        if number >= 0:  # negative: a pseudo-number, the call does not exist here
            flt.add_rule(sc.ERRNO(code), number)

