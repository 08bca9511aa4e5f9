"""Files in a tree that a sandboxed kernel can write, opened so that the server, whatever
its rights, only ever reaches what the kernel itself could.

A thread's workspace belongs to its kernel's uid: the kernel can put a symlink, a hard link
or a FIFO under any name in it, and swap a folder for a link between the server's check and
its use. So nothing here resolves a path by name from ``/``. A ``SafeTree`` is rooted at a
folder the server trusts (its parents are the server's); every name below it is resolved
beneath that folder's descriptor without following any link: one ``openat2`` with
``RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS`` where the kernel has it (Linux 5.6), else one
``openat`` with ``O_NOFOLLOW`` per component. A file is then used only when it is a regular
file with a single link, owned by the server or by the owner of its folder (a hard link to
a file elsewhere shares that file's inode; another owner means it was not made there),
checked on the opened descriptor, so nothing swapped in after the check is touched.

Standard library only: a tool's child process in its own virtual environment loads
``tools/runtime.py``, which loads this file by path.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

try:
    from shokunin.errors import ErrorCode, ShokuninError
except ImportError:  # loaded by path in a venv tool's child, where shokunin is not installed
    from enum import StrEnum

    class ShokuninError(Exception):  # type: ignore[no-redef]
        pass

    class ErrorCode(StrEnum):  # type: ignore[no-redef]
        NOT_FOUND = "not_found"

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_FILE_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO cannot hang us
_RESOLVE = 0x08 | 0x04 | 0x02  # RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS
_SYS_OPENAT2 = 437  # the same number on every architecture Linux added it to
MAX_ENTRIES = 10_000  # what a walk yields at most
MAX_DEPTH = 64


class UnsafePath(ShokuninError, ValueError):
    """A name that is not a plain relative path inside the tree, that crosses a link, or
    that is not a plain file (a link, a hard link, a device, a foreign owner's file)."""
    status = 404
    code = ErrorCode.NOT_FOUND


class _OpenHow(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_uint64), ("mode", ctypes.c_uint64),
                ("resolve", ctypes.c_uint64)]


_libc = ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = ctypes.c_long
_openat2_works = True  # until the kernel says ENOSYS (or a seccomp filter, EPERM)


def _openat2(dir_fd: int, path: str, flags: int, mode: int) -> int | None:
    """openat2 beneath ``dir_fd``; None when this kernel has no openat2."""
    global _openat2_works
    if not _openat2_works:
        return None
    how = _OpenHow(flags, mode if flags & os.O_CREAT else 0, _RESOLVE)
    fd = _libc.syscall(_SYS_OPENAT2, dir_fd, os.fsencode(path), ctypes.byref(how),
                       ctypes.sizeof(how))
    if fd >= 0:
        return int(fd)
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EPERM):
        _openat2_works = False
        return None
    raise OSError(err, os.strerror(err), path)


def parts(name: object) -> list[str]:
    """The components of a relative ``name``; UnsafePath for anything else."""
    if isinstance(name, os.PathLike):
        name = os.fspath(name)
    if not isinstance(name, str) or not name.strip():
        raise UnsafePath("a file name must be a non-empty string")
    if "\0" in name or "\\" in name:
        raise UnsafePath(f"{name!r}: NUL and backslashes are not allowed in a name")
    if name.startswith("/"):
        raise UnsafePath(f"{name!r} is absolute; names are relative to the workspace")
    found = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in found:
        raise UnsafePath(f"{name!r} leaves the workspace ('..' is not allowed)")
    return found


class SafeTree:
    """The files under one trusted folder, reached without following links.

    ``root`` is the trusted folder (its own name is resolved as usual: its parents must be
    the server's). Every method takes names relative to it, with ``/`` between folders.
    """

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self.root = Path(os.path.abspath(root))

    # -- opening -------------------------------------------------------------------------
    def open(self, name: str, flags: int = os.O_RDONLY, *, mode: int = 0o644,
             make_folders: bool = False) -> int:
        """A descriptor of the plain file ``name`` opened with ``flags`` (O_CREAT to make
        it; O_TRUNC is applied only after the checks). FileNotFoundError when it is not
        there, UnsafePath when it is not a plain file of this tree."""
        *folders, last = self._file_parts(name)
        truncate = flags & os.O_TRUNC
        flags = (flags & ~os.O_TRUNC) | _FILE_FLAGS
        with self.folder("/".join(folders), create=make_folders) as parent:
            folder_owner = os.fstat(parent).st_uid
            try:
                fd = os.open(last, flags, mode, dir_fd=parent)
            except FileNotFoundError:
                raise
            except OSError as exc:  # ELOOP: a link; ENXIO: a FIFO; EISDIR...
                raise UnsafePath(f"{name!r} is a link or not a plain file ({exc.strerror})") \
                    from None
        try:
            _check_plain(fd, name, folder_owner)
            os.set_blocking(fd, True)
            if truncate:
                os.ftruncate(fd, 0)
        except BaseException:
            os.close(fd)
            raise
        return fd

    def open_binary(self, name: str, mode: str = "rb") -> BinaryIO:
        """``name`` as a binary file object: "rb", "wb" (made or emptied, folders made on
        the way) or "xb" (must not exist)."""
        flags = {"rb": os.O_RDONLY, "wb": os.O_WRONLY | os.O_CREAT | os.O_TRUNC,
                 "xb": os.O_WRONLY | os.O_CREAT | os.O_EXCL}[mode]
        fd = self.open(name, flags, make_folders=mode != "rb")
        return os.fdopen(fd, mode.replace("x", "w"))

    @contextlib.contextmanager
    def folder(self, name: str = "", *, create: bool = False) -> Iterator[int]:
        """A descriptor of the folder ``name`` ("" is the root), closed on exit."""
        fd = self.open_folder(name, create=create)
        try:
            yield fd
        finally:
            os.close(fd)

    def open_folder(self, name: str = "", *, create: bool = False) -> int:
        """A descriptor of the folder ``name`` that the caller closes."""
        found = parts(name) if name else []
        try:
            fd = os.open(self.root, _DIR_FLAGS)
        except FileNotFoundError:
            if not create:
                raise
            self.root.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.root, _DIR_FLAGS)
        except OSError as exc:
            raise UnsafePath(f"{self.root} is not a plain folder ({exc.strerror})") from None
        if found and not create:
            try:
                sub = _openat2(fd, "/".join(found), _DIR_FLAGS, 0)
            except FileNotFoundError:
                os.close(fd)
                raise
            except OSError as exc:
                os.close(fd)
                raise UnsafePath(f"{name!r} is a link or not a folder ({exc.strerror})") \
                    from None
            if sub is not None:
                os.close(fd)
                return sub
        try:
            for part in found:
                child = _step(fd, part, create)
                os.close(fd)
                fd = child
        except BaseException:
            os.close(fd)
            raise
        return fd

    # -- whole files -----------------------------------------------------------------------
    def read_bytes(self, name: str, limit: int | None = None) -> bytes:
        """The bytes of ``name``; UnsafePath when it holds more than ``limit``."""
        with self.open_binary(name) as f:
            data = f.read() if limit is None else f.read(limit + 1)
        if limit is not None and len(data) > limit:
            raise UnsafePath(f"{name!r} is larger than {limit} bytes")
        return data

    def write_bytes(self, name: str, data: bytes) -> None:
        """Write ``data`` to ``name``, making folders on the way."""
        with self.open_binary(name, "wb") as f:
            f.write(data)

    def replace(self, name: str, data: bytes) -> None:
        """Write ``data`` to ``name`` atomically: a crash leaves the old file or the new one."""
        *folders, last = self._file_parts(name)
        part = f"{last}.part"
        prefix = "/".join(folders)
        self.write_bytes(f"{prefix}/{part}" if prefix else part, data)
        with self.folder(prefix) as parent:
            os.rename(part, last, src_dir_fd=parent, dst_dir_fd=parent)

    def is_file(self, name: str) -> bool:
        """True when ``name`` is a plain file of this tree (a link or anything else: False)."""
        try:
            os.close(self.open(name))
        except (OSError, UnsafePath):
            return False
        return True

    def stat(self, name: str) -> os.stat_result:
        """The stat of the plain file ``name``."""
        fd = self.open(name)
        try:
            return os.fstat(fd)
        finally:
            os.close(fd)

    def rename(self, source: str, target: str) -> None:
        """Rename within the tree (both folders must exist)."""
        *src_folders, src = self._file_parts(source)
        *dst_folders, dst = self._file_parts(target)
        with self.folder("/".join(src_folders)) as a, self.folder("/".join(dst_folders)) as b:
            os.rename(src, dst, src_dir_fd=a, dst_dir_fd=b)

    def unlink(self, name: str) -> None:
        """Remove the file or link ``name`` (FileNotFoundError when absent)."""
        *folders, last = self._file_parts(name)
        with self.folder("/".join(folders)) as parent:
            os.unlink(last, dir_fd=parent)

    def remove_tree(self, name: str) -> None:
        """Remove the folder ``name`` and what it holds, links removed, never followed."""
        *folders, last = self._file_parts(name)
        with contextlib.suppress(FileNotFoundError), self.folder("/".join(folders)) as parent:
            if stat.S_ISDIR(os.stat(last, dir_fd=parent, follow_symlinks=False).st_mode):
                shutil.rmtree(last, dir_fd=parent)  # through descriptors: links not followed
            else:
                os.unlink(last, dir_fd=parent)

    # -- listing ---------------------------------------------------------------------------
    def files(self, name: str = "") -> list[str]:
        """Every regular file under ``name``, as sorted names relative to the root (links
        are skipped, not followed; at most MAX_ENTRIES)."""
        return sorted(path for path, is_dir in self.entries(name) if not is_dir)

    def entries(self, name: str = "") -> list[tuple[str, bool]]:
        """(relative name, is_folder) of everything plain under ``name`` (nothing when
        ``name`` is a link)."""
        found: list[tuple[str, bool]] = []
        prefix = "/".join(parts(name)) + "/" if name else ""
        try:
            with self.folder(name) as fd:
                _scan(fd, prefix, found, 0)
        except FileNotFoundError:
            pass
        except UnsafePath:
            if not name:  # the root itself is not a plain folder: say so
                raise
            # a sub-folder that is a link holds nothing of this tree, as in _scan
        return found

    # -- checks ----------------------------------------------------------------------------
    def _file_parts(self, name: str) -> list[str]:
        found = parts(name)
        if not found:
            raise UnsafePath(f"{name!r} names no file")
        return found


def _check_plain(fd: int, name: str, folder_owner: int) -> None:
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or st.st_nlink != 1:
        raise UnsafePath(f"{name!r} is not a plain file (a link, a device or a FIFO)")
    if st.st_uid not in (os.geteuid(), folder_owner):
        raise UnsafePath(f"{name!r} belongs to another user than its folder")


def read_resolved(path: str | os.PathLike[str], limit: int | None = None) -> bytes:
    """The bytes of the file at the absolute ``path``, which was resolved when it was
    checked: no component may be a link now (one that became a link since is refused)."""
    return SafeTree("/").read_bytes(os.path.abspath(path).lstrip("/"), limit)


def _step(parent: int, part: str, create: bool) -> int:
    """Open the folder ``part`` under ``parent`` (made first when ``create``)."""
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except FileNotFoundError:
        if not create:
            raise
    except OSError as exc:  # ELOOP (a link) or ENOTDIR (a file): not a folder we may enter
        raise UnsafePath(f"{part!r} is a link or not a folder ({exc.strerror})") from None
    try:
        os.mkdir(part, 0o755, dir_fd=parent)
    except FileExistsError:
        pass  # made meanwhile: the open below still refuses a link
    except OSError as exc:
        raise UnsafePath(f"{part!r} cannot be made ({exc.strerror})") from None
    try:
        return os.open(part, _DIR_FLAGS, dir_fd=parent)
    except OSError as exc:  # a link or a file appeared in between
        raise UnsafePath(f"{part!r} is a link or not a folder ({exc.strerror})") from None


def _scan(fd: int, prefix: str, found: list[tuple[str, bool]], depth: int) -> None:
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
            if depth >= MAX_DEPTH:
                continue
            try:
                child = os.open(entry.name, _DIR_FLAGS, dir_fd=fd)
            except OSError:  # replaced by a link or removed since it was listed
                continue
            try:
                _scan(child, path + "/", found, depth + 1)
            finally:
                os.close(child)

