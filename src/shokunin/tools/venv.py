"""Private virtual environments: ``<tool_dir>/.venv`` for a tool with a requirements.txt.

Created once, rebuilt when requirements.txt changes (its hash is stamped inside the venv),
never with ``--system-site-packages``: the tool sees only what it asked for. ``uv`` is
used when it is on PATH, else ``python -m venv`` and pip. Every line of the build is
reported to the progress callback, and setting the abort event stops the build.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from shokunin.tools.errors import VenvError

VENV_DIR = ".venv"
STAMP = ".shokunin-requirements.sha256"
BUILD_TIMEOUT_SEC = 900.0

Progress = Callable[[str], None]


def venv_python(tool_dir: Path) -> Path:
    venv = tool_dir / VENV_DIR
    return venv / "Scripts" / "python.exe" if os.name == "nt" else venv / "bin" / "python"


def requirements_hash(tool_dir: Path) -> str:
    return hashlib.sha256((tool_dir / "requirements.txt").read_bytes()).hexdigest()


def is_ready(tool_dir: Path) -> bool:
    """True when the venv exists and was built from the current requirements.txt."""
    stamp = tool_dir / VENV_DIR / STAMP
    try:
        return venv_python(tool_dir).exists() and stamp.read_text() == requirements_hash(tool_dir)
    except OSError:
        return False


def _has_requirements(tool_dir: Path) -> bool:
    lines = (tool_dir / "requirements.txt").read_text(encoding="utf-8").splitlines()
    return any(line.strip() and not line.strip().startswith("#") for line in lines)


class VenvManager:
    """Builds tool venvs, one build per folder at a time (callers of the same tool wait)."""

    def __init__(self) -> None:
        self._locks: dict[Path, threading.Lock] = {}
        self._guard = threading.Lock()

    def ensure(self, tool_dir: Path, progress: Progress | None = None,
               abort: threading.Event | None = None) -> Path:
        """Return the venv's python, building the venv first when needed (blocking)."""
        if is_ready(tool_dir):
            return venv_python(tool_dir)
        with self._guard:
            lock = self._locks.setdefault(tool_dir, threading.Lock())
        with lock:
            if not is_ready(tool_dir):
                self._build(tool_dir, progress or (lambda _m: None), abort or threading.Event())
        return venv_python(tool_dir)

    def _build(self, tool_dir: Path, progress: Progress, abort: threading.Event) -> None:
        venv = tool_dir / VENV_DIR
        digest = requirements_hash(tool_dir)
        if venv.exists():
            progress("requirements.txt が変更されたため仮想環境を作り直しています... "
                     "(rebuilding the venv)")
            shutil.rmtree(venv)
        progress(f"仮想環境を作成しています: {venv} (creating the venv)")
        install = _has_requirements(tool_dir)
        uv = shutil.which("uv")
        python = venv_python(tool_dir)
        if uv:
            self._run([uv, "venv", "--python", sys.executable, str(venv)], progress, abort)
            if install:
                progress("依存ライブラリをインストールしています... (installing requirements)")
                self._run([uv, "pip", "install", "--python", str(python), "-r",
                           str(tool_dir / "requirements.txt")], progress, abort)
        else:
            # Without requirements there is nothing for pip to do: skip seeding it.
            self._run([sys.executable, "-m", "venv", *([] if install else ["--without-pip"]),
                       str(venv)], progress, abort)
            if install:
                progress("依存ライブラリをインストールしています... (installing requirements)")
                self._run([str(python), "-m", "pip", "install", "--disable-pip-version-check",
                           "--no-input", "-r", str(tool_dir / "requirements.txt")],
                          progress, abort)
        (venv / STAMP).write_text(digest)
        progress("仮想環境の準備ができました (venv ready)")

    def _run(self, command: list[str], progress: Progress, abort: threading.Event) -> None:
        proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, text=True, encoding="utf-8",
                                errors="replace")
        finished = threading.Event()
        deadline = time.monotonic() + BUILD_TIMEOUT_SEC

        def watch() -> None:
            # pip cannot be told to stop, so an abort or the time limit kills it.
            while not finished.is_set():
                if abort.wait(0.2) or time.monotonic() > deadline:
                    proc.kill()
                    return

        threading.Thread(target=watch, daemon=True, name="venv-build-watch").start()
        tail: list[str] = []
        assert proc.stdout is not None
        for line in proc.stdout:
            line = line.rstrip()
            if line:
                tail = [*tail[-9:], line]
                progress(line)
        code = proc.wait()
        finished.set()
        if abort.is_set():
            raise VenvError("venv build aborted")
        if time.monotonic() > deadline:
            raise VenvError(f"venv build took over {BUILD_TIMEOUT_SEC:g} s")
        if code != 0:
            raise VenvError(f"venv build failed ({' '.join(command[:3])}... exit {code}): "
                            + " | ".join(tail[-3:]))
