"""``context["runtime"]``: what a tool reaches of the host besides its arguments.

The surface of the origin project's ``AgentRuntime`` (seed 003 lists ``runtime`` under
将来拡張) that concerns files:

* ``runtime.workspace()`` is the thread's workspace folder, the one the sandbox and the
  other tools of the thread see;
* ``runtime.shared_storage`` is the tool's own folder that outlives threads and runs (the
  origin's ``userdata/shared``, kept per tool here so one tool cannot read another's);
* ``runtime.get_current_chat_id()`` and ``runtime.log(message, level)``.

Both folders are a ``Workspace`` with the origin's file methods. Names are relative paths
inside the folder (``"a.txt"``, ``"out/b.csv"``, ``"d1/../e.txt"``); an absolute path, a
``..`` that climbs out of the folder or a link on the way is refused. The sandbox can
write a workspace as another uid, so every name is opened through ``store/safe_files.py``
(beneath the folder's descriptor, no link followed, plain single-link files only). The
origin's agent methods (``create_agent``, ``send_message``, ``get_history`` ...) are not
offered: a tool that calls one gets an AttributeError.

Standard library only: a venv tool's child process imports this file by path, and
``safe_files.py`` beside the package the same way.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from types import ModuleType


def _safe_files() -> ModuleType:
    try:
        from shokunin.store import safe_files
    except ImportError:  # a venv tool's child process: shokunin is not importable there
        name = "shokunin_safe_files"
        if name in sys.modules:
            return sys.modules[name]
        path = Path(__file__).resolve().parent.parent / "store" / "safe_files.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
        return module
    return safe_files


_files = _safe_files()
WorkspacePathError = _files.UnsafePath
MAX_ENTRIES = _files.MAX_ENTRIES  # what list_files / list_dirs return at most
LOG_PREFIX = {"info": "[AgentRuntime INFO]", "warning": "[AgentRuntime WARNING]",
              "error": "[AgentRuntime ERROR]"}


def _lexical(name: str) -> str:
    """``d1/../e.txt`` is ``e.txt``, as in the origin; a name that climbs out stays as it
    is, for ``parts`` to refuse."""
    if not isinstance(name, str) or ".." not in name.split("/"):
        return name  # anything else is for ``parts`` to judge
    kept: list[str] = []
    for part in name.split("/"):
        if part == "..":
            if not kept:
                return name
            kept.pop()
        elif part not in ("", "."):
            kept.append(part)
    return "/".join(kept) or "."


class Workspace:
    """The files of one folder (a thread's workspace, or a tool's shared storage), with the
    origin's ``FileSystemInterface`` methods. The folder exists from the start, as in the
    origin, so a tool may also open ``get_full_path(name)`` itself."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._tree = _files.SafeTree(root)
        os.makedirs(self._tree.root, exist_ok=True)

    @property
    def base_path(self) -> Path:
        """The folder (the origin's attribute)."""
        return self._tree.root

    def get_path(self) -> str:
        """The folder's absolute path."""
        return str(self._tree.root)

    def get_full_path(self, name: str) -> str:
        """The absolute path ``name`` has in the folder (checked like every name)."""
        name = _lexical(name)
        return str(self._tree.root.joinpath(*_files.parts(name)))

    def write(self, name: str, text: str | bytes, encoding: str = "utf-8") -> str:
        """Write ``text`` (str encoded with ``encoding``, or bytes) to ``name``, creating
        folders on the way; returns the file's absolute path (usable in a result's
        ``files``)."""
        name = _lexical(name)
        data = text.encode(encoding) if isinstance(text, str) else bytes(text)
        found = _files.parts(name)
        self._tree.write_bytes("/".join(found), data)
        return str(self._tree.root.joinpath(*found))

    def write_bytes(self, name: str, data: bytes) -> str:
        """Write ``data`` to ``name``; returns the file's absolute path."""
        return self.write(name, bytes(data))

    def append(self, name: str, text: str, encoding: str = "utf-8") -> str:
        """Add ``text`` at the end of ``name`` (made when absent); returns its path."""
        name = _lexical(name)
        found = _files.parts(name)
        fd = self._tree.open("/".join(found), os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                             make_folders=True)
        with os.fdopen(fd, "ab") as f:
            f.write(text.encode(encoding))
        return str(self._tree.root.joinpath(*found))

    def read(self, name: str, encoding: str = "utf-8") -> str:
        """The text of ``name``. FileNotFoundError when it does not exist."""
        name = _lexical(name)
        return self._tree.read_bytes(name).decode(encoding)

    def read_bytes(self, name: str) -> bytes:
        """The bytes of ``name``. FileNotFoundError when it does not exist."""
        name = _lexical(name)
        return bytes(self._tree.read_bytes(name))

    def exists(self, name: str) -> bool:
        """True when ``name`` is a file or folder reachable without crossing a link (False
        for a name outside the folder, as in the origin)."""
        return self.is_file(name) or self.is_dir(name)

    def is_file(self, name: str) -> bool:
        """True when ``name`` is a plain file of the folder (False outside it)."""
        name = _lexical(name)
        try:
            _files.parts(name)
        except WorkspacePathError:
            return False
        return bool(self._tree.is_file(name))

    def is_dir(self, name: str) -> bool:
        """True when ``name`` is a folder reachable without crossing a link (False outside
        the folder)."""
        name = _lexical(name)
        try:
            _files.parts(name)
            os.close(self._tree.open_folder(name))
        except (OSError, WorkspacePathError):
            return False
        return True

    def list_files(self, subdir: str = "", recursive: bool = False) -> list[str]:
        """The regular files directly in ``subdir`` ("" is the folder itself), or every one
        below it with ``recursive``, as sorted paths relative to the folder (links are
        skipped, not followed)."""
        return [path for path, is_dir in self._entries(subdir, recursive) if not is_dir]

    def list_dirs(self, subdir: str = "", recursive: bool = False) -> list[str]:
        """The folders directly in ``subdir`` (every one below it with ``recursive``), as
        sorted paths relative to the folder."""
        return [path for path, is_dir in self._entries(subdir, recursive) if is_dir]

    def delete(self, name: str) -> bool:
        """Remove the file ``name``; False when there is no such file (a folder stays)."""
        name = _lexical(name)
        if not self.is_file(name):
            return False
        self._tree.unlink(name)
        return True

    def mkdir(self, name: str) -> str:
        """Make the folder ``name`` (and its parents); returns its absolute path."""
        name = _lexical(name)
        found = _files.parts(name)
        os.close(self._tree.open_folder("/".join(found), create=True))
        return str(self._tree.root.joinpath(*found))

    def _entries(self, subdir: str, recursive: bool) -> list[tuple[str, bool]]:
        subdir = _lexical(subdir)
        if subdir and self.is_file(subdir):
            raise ValueError(f"{subdir!r} is a file, not a folder")
        prefix = "/".join(_files.parts(subdir)) + "/" if subdir else ""
        found = sorted(self._tree.entries(subdir))
        if recursive:
            return found
        return [(path, is_dir) for path, is_dir in found if "/" not in path[len(prefix):]]


class Runtime:
    """What ``context["runtime"]`` is: ``workspace()``, ``shared_storage``,
    ``get_current_chat_id()`` and ``log()``."""

    def __init__(self, workspace: str | os.PathLike[str], *,
                 shared: str | os.PathLike[str] | None = None,
                 chat_id: str | None = None) -> None:
        self._workspace = Workspace(workspace)
        self._shared_root = shared
        self._shared: Workspace | None = None  # made when first used
        self._chat_id = chat_id

    def workspace(self, chat_id: str | None = None) -> Workspace:
        """The current thread's workspace. Another thread's is not reachable from a tool:
        PermissionError."""
        if chat_id is not None and chat_id != self._chat_id:
            raise PermissionError(f"ツールが使えるのは実行中のスレッドのワークスペースだけです "
                                  f"/ a tool may only use its own thread's workspace, not "
                                  f"{chat_id!r}")
        return self._workspace

    @property
    def shared_storage(self) -> Workspace:
        """The tool's own folder that persists across threads, runs and restarts."""
        if self._shared_root is None:
            raise PermissionError("このツールには共有ストレージがありません / this tool has no "
                                  "shared storage")
        if self._shared is None:
            self._shared = Workspace(self._shared_root)
        return self._shared

    def get_current_chat_id(self) -> str | None:
        """The thread the tool runs on (None for a run outside a thread)."""
        return self._chat_id

    def log(self, message: str, level: str = "info") -> None:
        """A line in the server's tool output log (``shokunin.tools.output``)."""
        print(f"{LOG_PREFIX.get(level, '[AgentRuntime]')} {message}", file=sys.stderr,
              flush=True)
