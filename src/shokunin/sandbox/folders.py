"""The files a root server shares with a kernel, laid out so that it never writes where
the kernel can plant a link.

A kernel process gets a fresh folder per start (a restart gets a new one)::

    k<uid>-<n>/          root, 0710, group = the kernel's: it may pass, not list or write
      connection.json    root:kernel 0640, written by jupyter_client before the kernel runs
      context.json       root:kernel 0640, the values of seed 004's ``context``, per cell
      work/              root 0755, empty: the thread's workspace is bound over it
      home/              the kernel's own (0700): sockets, matplotlib and IPython folders
    k<uid>-<n>.view/     root 0700: where the kernel's filesystem view is built (in its
                         mount namespace; the view then becomes its root)

Root only writes in folders nobody else can write, and copies the font cache into
``home`` as the kernel's uid (in the launcher). The one tree root must change that a
kernel wrote is a workspace handed to the next kernel of its thread (another uid):
``hand_over`` changes owners through file descriptors, never following a link and never
touching a file with more than one name.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import stat
from pathlib import Path

log = logging.getLogger(__name__)

MAX_DEPTH = 128  # deeper folders of a workspace keep their owner (and an fd per level)


class KernelFolder:
    """The folder of one kernel process (see the module docstring)."""

    def __init__(self, root: Path, uid: int, generation: int, serial: int = 0) -> None:
        self.uid = uid
        # An unprivileged server runs every kernel as its own uid: the serial keeps their
        # folders (and so their connection files) apart.
        self.path = root / f"k{uid}-{serial}-{generation}"
        self.view = root / f"k{uid}-{serial}-{generation}.view"
        self.connection = self.path / "connection.json"
        self.context = self.path / "context.json"
        self.work = self.path / "work"
        self.home = self.path / "home"

    def create(self) -> None:
        """Make the layout afresh; whatever held these names before is removed first."""
        self.remove()
        shared = os.getuid() == 0
        self.path.mkdir(mode=0o710)
        self.view.mkdir(mode=0o700)
        self.work.mkdir(mode=0o755)
        self.home.mkdir(mode=0o700)
        os.chmod(self.path, 0o710)  # whatever the umask
        os.chmod(self.work, 0o755)
        if shared:  # nobody but root can write here yet: plain paths are safe
            os.chown(self.path, 0, self.uid)
            os.chown(self.home, self.uid, self.uid)

    def write_context(self, text: str) -> Path:
        """Write ``context.json`` for the kernel to read (it cannot write or remove it)."""
        with contextlib.suppress(FileNotFoundError):
            self.context.unlink()
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(self.context, flags, 0o640)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            if os.getuid() == 0:
                os.fchown(f.fileno(), 0, self.uid)
            f.write(text)
        return self.context

    def remove(self) -> None:
        # rmtree works through file descriptors on Linux: links in home are removed, not
        # followed.
        shutil.rmtree(self.path, ignore_errors=True)
        with contextlib.suppress(OSError):
            self.view.rmdir()


def hand_over(folder: Path, uid: int) -> None:
    """Make ``folder`` and what it holds belong to ``uid``, without following any link.

    A previous kernel of the thread (another uid) may have left symlinks, hard links to
    files elsewhere or FIFOs in it: symlinks change owner themselves, a file with more
    than one name keeps its owner (its other name may be anywhere), the rest changes owner
    through a descriptor of what was checked, so nothing swapped in meanwhile is touched.
    Raises NotADirectoryError / OSError when ``folder`` itself is a link or not a folder.
    """
    top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    stack = [(top, 0)]
    try:
        while stack:
            fd, depth = stack.pop()
            try:
                os.fchown(fd, uid, uid)
                for name in os.listdir(fd):
                    sub = _hand_over_entry(fd, name, uid, depth < MAX_DEPTH)
                    if sub is not None:
                        stack.append((sub, depth + 1))
            finally:
                os.close(fd)
    finally:
        for fd, _ in stack:
            os.close(fd)


def _hand_over_entry(parent: int, name: str, uid: int, descend: bool) -> int | None:
    """Hand one entry over; returns an open descriptor of it when it is a folder to walk."""
    try:
        st = os.stat(name, dir_fd=parent, follow_symlinks=False)
        if stat.S_ISLNK(st.st_mode):
            os.chown(name, uid, uid, dir_fd=parent, follow_symlinks=False)
            return None
        if stat.S_ISDIR(st.st_mode):
            if not descend:
                log.warning("workspace deeper than %d folders: the rest keeps its owner",
                            MAX_DEPTH)
                return None
            return os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
                           dir_fd=parent)
        # O_PATH pins the inode that is checked; chown through /proc/self/fd reaches that
        # inode whatever happens to the name.
        fd = os.open(name, os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent)
        try:
            st = os.fstat(fd)
            if st.st_nlink == 1 and not stat.S_ISLNK(st.st_mode) \
                    and not stat.S_ISDIR(st.st_mode):
                os.chown(f"/proc/self/fd/{fd}", uid, uid)
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("workspace entry %r not handed over: %s", name, exc)
    return None
