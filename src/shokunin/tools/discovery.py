"""Discovery: which folders of the configured tool roots are tools (``<name>/<name>_tool.py``)."""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from shokunin.tools import venv

Source = Literal["builtin", "user"]
REQUIREMENTS = "requirements.txt"


@dataclass(frozen=True)
class Candidate:
    """A folder that looks like a tool; ``problem`` is set when its layout is wrong."""

    name: str
    tool_dir: Path
    source: Source
    problem: str | None = None

    @property
    def entry(self) -> Path:
        return self.tool_dir / f"{self.name}_tool.py"

    @property
    def requirements(self) -> Path:
        return self.tool_dir / REQUIREMENTS

    @property
    def has_venv(self) -> bool:
        return self.requirements.is_file()


def discover(roots: Iterable[tuple[Path, Source]]) -> Iterator[Candidate]:
    """Yield candidates root by root, in name order; a missing root is simply empty.

    A sub-folder with no ``*_tool.py`` at all (``userdata/``, ``__pycache__``) is not a tool;
    one whose only entry files have another prefix is reported, since that is a typo the
    author wants to hear about.
    """
    for root, source in roots:
        if not root.is_dir():
            continue
        for folder in sorted(root.iterdir()):
            if not folder.is_dir() or folder.name.startswith((".", "_")):
                continue
            candidate = Candidate(folder.name, folder.resolve(), source)
            if candidate.entry.is_file():
                yield candidate
                continue
            others = sorted(p.name for p in folder.glob("*_tool.py"))
            if others:
                yield Candidate(
                    folder.name, folder.resolve(), source,
                    problem=f"entry file must be named {folder.name}_tool.py (folder and file "
                    f"prefix must match); found {', '.join(others)}")


def fingerprint(roots: Iterable[tuple[Path, Source]]) -> Hashable:
    """What discovery and loading read, cheaply: each root's folders, and in each folder the
    name, size and modification time of its files and of its venv's stamp. It changes when a
    tool folder is added, removed or renamed, when a file beside an entry file is written or
    replaced (editors write a new file and rename it), and when a venv is built. A tool's
    sub-folders are not looked into: keep a tool's modules beside its entry file."""
    seen: list[Hashable] = []
    for root, _source in roots:
        try:
            with os.scandir(root) as entries:
                folders = sorted(e.path for e in entries
                                 if not e.name.startswith((".", "_")) and e.is_dir())
        except OSError:
            seen.append((str(root), None))
            continue
        for folder in folders:
            stamp = os.path.join(folder, venv.VENV_DIR, venv.STAMP)
            seen.append((folder, _files(folder), _stat(stamp)))
    return tuple(seen)


def _files(folder: str) -> Hashable:
    try:
        with os.scandir(folder) as entries:
            return tuple(sorted((e.name, *_stat_entry(e)) for e in entries if e.is_file()))
    except OSError:
        return None


def _stat_entry(entry: os.DirEntry[str]) -> tuple[int, int]:
    try:
        st = entry.stat()
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def _stat(path: str) -> tuple[int, int] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns)
