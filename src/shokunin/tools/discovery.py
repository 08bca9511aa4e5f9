"""Discovery: which folders of the configured tool roots are tools (``<name>/<name>_tool.py``)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

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
