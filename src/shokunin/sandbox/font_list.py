"""matplotlib's font list for the kernels, built once per machine and set of fonts.

matplotlib finds its fonts on first import and writes the list (``fontlist-v*.json``) into
``MPLCONFIGDIR``; every kernel starts from a copy of it. Building it takes a child process
half a second, which every start of a server (and of ``shokunin analyze``, and of each test
that opens an engine) paid. It is kept in the user's cache folder under a name that changes
with matplotlib's version and with the font folders, so a font installed later makes a new
list; a start copies the one that fits.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# where matplotlib looks on Linux (font_manager's X11 and user folders)
FONT_FOLDERS = ("/usr/share/fonts", "/usr/local/share/fonts", "/usr/X11R6/lib/X11/fonts",
                "~/.fonts", "~/.local/share/fonts")
# matplotlib also lists what fontconfig knows (fc-list), which may live in folders of its
# own configuration: its caches change when fc-cache has seen a font added or removed.
FONTCONFIG_CACHES = ("/var/cache/fontconfig", "~/.cache/fontconfig")


def fingerprint() -> str:
    """Changes with matplotlib's version, its Japanese font package, every folder of fonts
    (a font added or removed changes its folder's time) and fontconfig's caches."""
    parts = []
    for package in ("matplotlib", "matplotlib-fontja"):
        try:
            parts.append(f"{package} {importlib.metadata.version(package)}")
        except importlib.metadata.PackageNotFoundError:
            parts.append(f"{package} -")
    for folder in FONT_FOLDERS:
        for base, _, _ in os.walk(os.path.expanduser(folder)):
            parts.append(f"{base} {os.stat(base).st_mtime_ns}")
    for folder in FONTCONFIG_CACHES:
        with contextlib.suppress(OSError):
            parts.append(f"{folder} {os.stat(os.path.expanduser(folder)).st_mtime_ns}")
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:16]


def build(into: Path) -> None:
    """Have matplotlib write its font list into ``into`` (a child process: the server does
    not import matplotlib)."""
    into.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-c", "import matplotlib.font_manager"],
                   env={"MPLCONFIGDIR": str(into), "PATH": os.environ.get("PATH", "")},
                   check=False, capture_output=True, timeout=120)


def copy_into(target: Path) -> None:
    """Put the font list into ``target``: a copy of the cached one, built first (and kept
    for the next start) when none fits. Where the cache cannot be used (no home, a folder
    that cannot be written) it is built in ``target`` alone, as every start once did. Only
    the list is copied: nothing else of the cache folder reaches a kernel."""
    try:
        listed = _kept()
    except (OSError, RuntimeError):  # RuntimeError: no home folder to find the cache in
        listed = []
    if not listed:
        build(target)
        return
    target.mkdir(parents=True, exist_ok=True)
    for path in listed:
        shutil.copyfile(path, target / path.name)


def _kept() -> list[Path]:
    """The cached font list that fits this machine's fonts, built first if there is none;
    empty when matplotlib could not build one."""
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "shokunin"
    kept = cache / f"mpl-fonts-{fingerprint()}"
    if not kept.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        building = Path(tempfile.mkdtemp(prefix="mpl-fonts-", dir=cache))
        build(building)
        if not any(building.glob("fontlist-*.json")):  # matplotlib failed: keep nothing
            shutil.rmtree(building, ignore_errors=True)
            return []
        try:
            building.rename(kept)  # whole or not at all; another process may have won
        except OSError:
            shutil.rmtree(building, ignore_errors=True)
    return sorted(kept.glob("fontlist-*.json"))
