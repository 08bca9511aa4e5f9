"""Image files a cell wrote in its workspace (``fig.savefig("chart.png")``), found by
comparing the workspace before and after the cell.

Bounded: the scan looks at most at ``MAX_SCANNED`` entries, and a cell yields at most
``MAX_IMAGES`` images of ``MAX_BYTES`` together. Symbolic links are skipped and files are
opened through ``SafeTree`` (no link on the way followed, no hard link read), so a cell
cannot make the server read a file outside its workspace.
"""

from __future__ import annotations

import base64
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from shokunin.store import SafeTree, UnsafePath

FORMATS = {".png": "png", ".jpg": "jpg", ".jpeg": "jpeg", ".gif": "gif", ".bmp": "bmp",
           ".svg": "svg"}
MAX_SCANNED = 5000
MAX_IMAGES = 20
MAX_BYTES = 10 * 1024 * 1024

Snapshot = dict[str, tuple[int, int]]  # relative path -> (mtime_ns, size)


@dataclass(frozen=True)
class SavedImage:
    path: str  # relative to the workspace, with "/"
    format: str
    data_base64: str


def snapshot(workspace: Path | None) -> Snapshot:
    """The image files under ``workspace`` with their mtime and size."""
    found: Snapshot = {}
    if workspace is None or not workspace.is_dir():
        return found
    scanned = 0
    for root, dirs, files in os.walk(workspace):  # os.walk does not follow links to dirs
        dirs[:] = [d for d in dirs if not d.startswith(".")]  # .ipython, caches
        for name in files:
            scanned += 1
            if scanned > MAX_SCANNED:
                return found
            if Path(name).suffix.lower() not in FORMATS:
                continue
            full = Path(root, name)
            try:
                info = full.lstat()
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode):
                found[full.relative_to(workspace).as_posix()] = (info.st_mtime_ns, info.st_size)
    return found


def _read(workspace: Path, rel: str, limit: int) -> bytes | None:
    try:
        return SafeTree(workspace).read_bytes(rel, limit)
    except (OSError, UnsafePath):  # a link, a hard link, gone, or grown past the budget
        return None


def written_images(workspace: Path | None, before: Snapshot) -> list[SavedImage]:
    """The image files new or changed since ``before``, oldest write first."""
    if workspace is None:
        return []
    after = snapshot(workspace)
    changed = sorted((k for k, v in after.items() if before.get(k) != v),
                     key=lambda k: (after[k][0], k))
    images: list[SavedImage] = []
    budget = MAX_BYTES
    for rel in changed[:MAX_IMAGES]:
        if after[rel][1] > budget:
            continue
        data = _read(workspace, rel, budget)
        if not data:
            continue
        budget -= len(data)
        images.append(SavedImage(rel, FORMATS[Path(rel).suffix.lower()],
                                 base64.b64encode(data).decode("ascii")))
    return images
