"""What of this Python installation a kernel must see, and why it may not be able to.

Kernels of a root server run as their own unprivileged uid, which can only use what
"other" users may: a checkout under /root or a ``mktemp -d`` folder (mode 0700) is out of
reach. The kernel's filesystem view (``root_view.py``) makes the folders above each bound
path afresh, traversable, so only the installation's own modes matter; when
those shut other users out too, nothing short of changing them helps, and
``diagnose`` says which path is at fault and what to do.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# What a kernel imports first; found by the start-up probe as the kernel's uid.
KERNEL_MODULES = ("ipykernel_launcher", "ipykernel", "zmq", "matplotlib", "pandas")


def install_paths() -> list[str]:
    """The interpreter's prefixes and the folder of kernel_startup.py: all a kernel runs.

    The rest of shokunin's source stays out of sight (the kernel never imports it).
    """
    paths = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, str(HERE),
             os.path.dirname(os.path.realpath(sys.executable))}
    return sorted({os.path.realpath(p) for p in paths})


# What any Python process reads and runs: libraries, programs, fonts (/usr/share/fonts),
# and the few files of /etc that libc, Python and its libraries read (the dynamic
# linker's cache, time zone, names of users and MIME types, Debian's Python
# configuration); /proc and /sys (CPU counts, its own descriptors) are bound apart. Not
# /etc as a whole (other programs' configuration and credentials), not /dev as a whole
# (the host's /dev/shm): the launcher grants the few devices by name.
SYSTEM_READABLE = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin")
ETC_READABLE = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone",
                "nsswitch.conf", "passwd", "group", "hosts", "host.conf", "gai.conf",
                "mime.types", "os-release", "alternatives", "fonts", "locale.alias",
                "matplotlibrc")


def system_paths() -> list[str]:
    """The system's part of what every walled process sees (see SYSTEM_READABLE)."""
    etc = [f"/etc/{name}" for name in ETC_READABLE]
    etc += [str(p) for p in sorted(Path("/etc").glob("python3*"))]
    return [*SYSTEM_READABLE, *etc, "/proc", "/sys"]


def readable_paths(workdir: Path, data_dir: Path) -> list[str]:
    """What a kernel may read and execute (Landlock): the system folders, the Python
    installation and every folder on this interpreter's import path, except an entry that
    is or holds the server's working folder (``-m`` puts it on the path as '') or the
    data folder, or lies in the data folder."""
    work, data = os.path.realpath(workdir), os.path.realpath(data_dir)
    paths = set(system_paths()) | set(install_paths())
    for entry in filter(None, sys.path):
        real = os.path.realpath(entry)
        if not (_beneath(work, real) or _beneath(data, real) or _beneath(real, data)) \
                and os.path.exists(real):
            paths.add(real)
    return sorted(paths)


def _beneath(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies in it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def _others_may(path: str, bits: int) -> bool:
    try:
        return os.stat(path).st_mode & bits == bits
    except OSError:
        return False


def _files_a_kernel_reads() -> list[str]:
    files = [os.path.realpath(sys.executable), os.path.realpath(os.__file__),
             str(HERE / "kernel_startup.py")]
    for name in KERNEL_MODULES:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin:
            files.append(os.path.realpath(spec.origin))
    return files


def diagnose(bound: list[str]) -> str | None:
    """The first file a kernel needs that other users cannot read (or folder they cannot
    enter), beneath the folder of ``bound`` that holds it (the view makes the folders
    above a bound one, traversable); None when every mode looks right."""
    for file in _files_a_kernel_reads():
        parts = Path(file).parts
        start = max((len(Path(b).parts) for b in bound if _beneath(file, b)), default=1)
        for depth in range(start, len(parts)):
            folder = str(Path(*parts[:depth]))
            if not _others_may(folder, stat.S_IXOTH | stat.S_IROTH):
                return _describe(folder, "cannot enter")
        if not _others_may(file, stat.S_IROTH):
            return _describe(file, "cannot read")
    return None


def secrets_beneath(bound: list[str], secrets: list[str]) -> list[str]:
    """The ``secrets`` a view of ``bound`` would show (each lies beneath a bound folder),
    except one that holds a bound path (covering it would hide that path too)."""
    return sorted({s for s in secrets
                   if any(_beneath(s, b) and s != b for b in bound)
                   and not any(_beneath(b, s) for b in bound)})


def _describe(path: str, what: str) -> str:
    st = os.stat(path)
    return f"other users {what} {path} (mode {stat.S_IMODE(st.st_mode):04o}, uid {st.st_uid})"
