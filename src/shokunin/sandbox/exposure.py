"""What of this Python installation a kernel must see, and why it may not be able to.

Kernels of a root server run as their own unprivileged uid, which can only use what
"other" users may: a checkout under /root or a ``mktemp -d`` folder (mode 0700) is out of
reach. Inside the kernel's mount namespace the launcher covers such a folder with an empty
tmpfs and binds the installation back, so only the installation's own modes matter; when
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


# What any Python process reads and runs: libraries, programs, configuration, fonts
# (/usr/share/fonts), /proc and /sys (CPU counts, its own descriptors). Not /dev as a
# whole, which holds the host's /dev/shm: the launcher grants the few devices by name.
SYSTEM_READABLE = ("/usr", "/lib", "/lib32", "/lib64", "/libx32", "/bin", "/sbin", "/etc",
                   "/proc", "/sys")


def readable_paths(workdir: Path, data_dir: Path) -> list[str]:
    """What a kernel may read and execute (Landlock): the system folders, the Python
    installation and every folder on this interpreter's import path, except an entry that
    is or holds the server's working folder (``-m`` puts it on the path as '') or the
    data folder, or lies in the data folder."""
    work, data = os.path.realpath(workdir), os.path.realpath(data_dir)
    paths = set(SYSTEM_READABLE) | set(install_paths())
    for entry in filter(None, sys.path):
        real = os.path.realpath(entry)
        if not (_beneath(work, real) or _beneath(data, real) or _beneath(real, data)) \
                and os.path.exists(real):
            paths.add(real)
    return sorted(paths)


def _beneath(path: str, folder: str) -> bool:
    """``path`` is ``folder`` or lies in it."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def blocked_ancestors(paths: list[str]) -> list[str]:
    """The highest folder above each path that other users cannot enter (to cover with tmpfs)."""
    blocked = set()
    for path in paths:
        parts = Path(path).parts
        for depth in range(2, len(parts)):
            ancestor = str(Path(*parts[:depth]))
            if not _others_may(ancestor, stat.S_IXOTH):
                blocked.add(ancestor)
                break
    return sorted(blocked)


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


def diagnose(hidden: list[str]) -> str | None:
    """The first file a kernel needs that other users cannot read (or folder they cannot
    enter), below the folders the launcher covers; None when every mode looks right."""
    for file in _files_a_kernel_reads():
        parts = Path(file).parts
        start = 1
        for cover in hidden:  # a covered folder is tmpfs (0755) in the kernel's namespace
            if Path(file).is_relative_to(cover):
                start = max(start, len(Path(cover).parts))
        for depth in range(start + 1, len(parts)):
            folder = str(Path(*parts[:depth]))
            if not _others_may(folder, stat.S_IXOTH | stat.S_IROTH):
                return _describe(folder, "cannot enter")
        if not _others_may(file, stat.S_IROTH):
            return _describe(file, "cannot read")
    return None


def _describe(path: str, what: str) -> str:
    st = os.stat(path)
    return f"other users {what} {path} (mode {stat.S_IMODE(st.st_mode):04o}, uid {st.st_uid})"
