"""``context["runtime"]``: what a tool reaches of the host besides its arguments.

``context["runtime"].workspace()`` is the thread's workspace folder, the one the sandbox and
the other tools of the thread see. Names are relative paths inside it (``"a.txt"``,
``"out/b.csv"``); an absolute path, a ``..`` or a link on the way is refused. The sandbox can
write this folder as another uid, so nothing here follows a link it may have planted: every
step is opened relative to its parent's descriptor with ``O_NOFOLLOW``, and a file is only
read or overwritten when it is a regular file with a single link.

Standard library only: a venv tool's child process imports this file by path.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO cannot hang us
MAX_ENTRIES = 10_000  # what list_files / list_dirs return at most


class WorkspacePathError(ValueError):
    """A name that is not a plain relative path inside the workspace, or that crosses a link."""


class Workspace:
    """The files of one thread's workspace."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._root = Path(os.path.abspath(root))

    def get_path(self) -> str:
        """The workspace folder's absolute path."""
        return str(self._root)

    def write(self, name: str, text: str | bytes) -> str:
        """Write ``text`` (str as UTF-8, or bytes) to ``name``, creating folders on the way;
        returns the file's absolute path (usable in a result's ``files``)."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        *folders, last = _parts(name)
        self._root.mkdir(parents=True, exist_ok=True)
        with self._folder(folders, create=True) as parent:
            fd = _open(last, os.O_WRONLY | os.O_CREAT, parent, name)
            try:
                _check_plain(fd, name)
                os.set_blocking(fd, True)
                os.ftruncate(fd, 0)  # only now: what was opened has been checked
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
            finally:
                os.close(fd)
        return str(self._root.joinpath(*folders, last))

    def read(self, name: str) -> str:
        """The text of ``name`` (UTF-8). FileNotFoundError when it does not exist."""
        *folders, last = _parts(name)
        with self._folder(folders) as parent:
            fd = _open(last, os.O_RDONLY, parent, name)
            try:
                _check_plain(fd, name)
                os.set_blocking(fd, True)
                with os.fdopen(os.dup(fd), "rb") as f:
                    return f.read().decode("utf-8")
            finally:
                os.close(fd)

    def exists(self, name: str) -> bool:
        """True when ``name`` is a file or folder reachable without crossing a link (a name
        outside the workspace is refused, as everywhere)."""
        *folders, last = _parts(name)
        try:
            with self._folder(folders) as parent:
                mode = os.stat(last, dir_fd=parent, follow_symlinks=False).st_mode
        except (FileNotFoundError, WorkspacePathError):
            return False
        return stat.S_ISREG(mode) or stat.S_ISDIR(mode)

    def list_files(self) -> list[str]:
        """Every regular file, as sorted relative paths (links are skipped, not followed)."""
        return sorted(path for path, is_dir in self._walk() if not is_dir)

    def list_dirs(self) -> list[str]:
        """Every folder, as sorted relative paths (links are skipped, not followed)."""
        return sorted(path for path, is_dir in self._walk() if is_dir)

    def _walk(self) -> list[tuple[str, bool]]:
        found: list[tuple[str, bool]] = []
        try:
            with self._folder([]) as root:
                _scan(root, "", found)
        except FileNotFoundError:
            pass
        return found

    @contextmanager
    def _folder(self, folders: list[str], *, create: bool = False) -> Iterator[int]:
        """A descriptor of ``root/folders``, each step opened without following a link."""
        try:
            fd = os.open(self._root, _DIR_FLAGS)
        except NotADirectoryError:
            raise WorkspacePathError("the workspace is not a plain folder") from None
        except OSError as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise WorkspacePathError(f"the workspace cannot be opened: {exc.strerror}") from None
        try:
            for part in folders:
                child = _step(fd, part, create)
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)


class Runtime:
    """What ``context["runtime"]`` is: ``workspace()`` gives the thread's workspace."""

    def __init__(self, workspace: str | os.PathLike[str]) -> None:
        self._workspace = Workspace(workspace)

    def workspace(self) -> Workspace:
        return self._workspace


def _parts(name: Any) -> list[str]:
    if not isinstance(name, str) or not name.strip():
        raise WorkspacePathError("a file name must be a non-empty string")
    if "\0" in name or "\\" in name:
        raise WorkspacePathError(f"{name!r}: NUL and backslashes are not allowed in a name")
    if name.startswith("/"):
        raise WorkspacePathError(f"{name!r} is absolute; names are relative to the workspace")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise WorkspacePathError(f"{name!r} leaves the workspace ('..' is not allowed)")
    if not parts:
        raise WorkspacePathError(f"{name!r} names no file")
    return parts


def _step(parent: int, part: str, create: bool) -> int:
    """Open the folder ``part`` under ``parent`` (made first when ``create``)."""
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:  # ELOOP (a link) or ENOTDIR (a file): not a folder we may enter
        raise WorkspacePathError(f"{part!r} is a link or not a folder ({exc.strerror})") from None
    try:
        os.mkdir(part, 0o755, dir_fd=parent)
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:  # a link or a file appeared in between
        raise WorkspacePathError(f"{part!r} is a link or not a folder ({exc.strerror})") from None


def _open(last: str, flags: int, parent: int, name: str) -> int:
    try:
        return os.open(last, flags | _FILE_FLAGS, 0o644, dir_fd=parent)
    except FileNotFoundError:
        raise
    except OSError as exc:  # ELOOP: a link; ENXIO: a FIFO; EISDIR...
        raise WorkspacePathError(f"{name!r} cannot be opened: it is a link or not a plain "
                                 f"file ({exc.strerror})") from None


def _check_plain(fd: int, name: str) -> None:
    st = os.fstat(fd)
    # A hard link is a regular file too, but it shares its inode with a file elsewhere.
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        raise WorkspacePathError(f"{name!r} is not a plain file (a link or a device)")


def _scan(fd: int, prefix: str, found: list[tuple[str, bool]]) -> None:
    with os.scandir(fd) as entries:
        children = sorted(entries, key=lambda e: e.name)
    for entry in children:
        if len(found) >= MAX_ENTRIES:
            return
        path = prefix + entry.name
        if entry.is_file(follow_symlinks=False):
            found.append((path, False))
        elif entry.is_dir(follow_symlinks=False):
            found.append((path, True))
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
            except OSError:  # replaced by a link or removed since it was listed
                continue
            try:
                _scan(child, path + "/", found)
            finally:
                os.close(child)
