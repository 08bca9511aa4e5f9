"""``context["runtime"]``: what a tool reaches of the host besides its arguments.

``context["runtime"].workspace()`` is the thread's workspace folder, the one the sandbox and
the other tools of the thread see. Names are relative paths inside it (``"a.txt"``,
``"out/b.csv"``); an absolute path, a ``..`` or a link on the way is refused. The sandbox can
write this folder as another uid, so every name is opened through ``store/safe_files.py``
(beneath the workspace's descriptor, no link followed, plain single-link files only).

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


class Workspace:
    """The files of one thread's workspace."""

    def __init__(self, root: str | os.PathLike[str]) -> None:
        self._tree = _files.SafeTree(root)

    def get_path(self) -> str:
        """The workspace folder's absolute path."""
        return str(self._tree.root)

    def write(self, name: str, text: str | bytes) -> str:
        """Write ``text`` (str as UTF-8, or bytes) to ``name``, creating folders on the way;
        returns the file's absolute path (usable in a result's ``files``)."""
        data = text.encode("utf-8") if isinstance(text, str) else bytes(text)
        found = _files.parts(name)
        self._tree.write_bytes("/".join(found), data)
        return str(self._tree.root.joinpath(*found))

    def read(self, name: str) -> str:
        """The text of ``name`` (UTF-8). FileNotFoundError when it does not exist."""
        return self._tree.read_bytes(name).decode("utf-8")

    def exists(self, name: str) -> bool:
        """True when ``name`` is a file or folder reachable without crossing a link (a name
        outside the workspace is refused, as everywhere)."""
        _files.parts(name)
        try:
            if self._tree.is_file(name):
                return True
            os.close(self._tree.open_folder(name))
        except (OSError, WorkspacePathError):
            return False
        return True

    def list_files(self) -> list[str]:
        """Every regular file, as sorted relative paths (links are skipped, not followed)."""
        return self._tree.files()

    def list_dirs(self) -> list[str]:
        """Every folder, as sorted relative paths (links are skipped, not followed)."""
        return sorted(path for path, is_dir in self._tree.entries() if is_dir)


class Runtime:
    """What ``context["runtime"]`` is: ``workspace()`` gives the thread's workspace."""

    def __init__(self, workspace: str | os.PathLike[str]) -> None:
        self._workspace = Workspace(workspace)

    def workspace(self) -> Workspace:
        return self._workspace
