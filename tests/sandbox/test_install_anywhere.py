"""Kernels start wherever shokunin is installed, and a server whose kernels cannot start
says so at start-up.

Each test installs the project into a fresh 0700 folder (as ``mktemp -d`` makes, or a clone
under /root): a venv of the same base interpreter, the packages of the running venv linked
in (hard links: same files, same modes, in seconds instead of a download), and a copy of
``src`` installed editable (the ``.pth`` file pip writes for ``pip install -e``). A server
process started from that venv then runs a real cell.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
SERVER = """
import asyncio, json, sys
from shokunin.config import Settings
from shokunin.sandbox import ExecPythonInput, Sandbox, SandboxUnavailable

async def main():
    sandbox = Sandbox(Settings(data_dir=sys.argv[1], sandbox_pool_size=0))
    try:
        await sandbox.start()
    except SandboxUnavailable as exc:
        print(json.dumps({"unavailable": str(exc)}))
        return
    try:
        code = "import matplotlib\\nprint(matplotlib.get_data_path())"
        result = await sandbox.execute("t", ExecPythonInput(code=code, timeout_sec=60))
        print(json.dumps({"result": result.model_dump()}))
    finally:
        await sandbox.shutdown()

asyncio.run(main())
"""


@pytest.fixture
def install() -> Iterator[Path]:
    """A 0700 folder holding venv/ (packages and the project) and data/."""
    folder = Path(tempfile.mkdtemp(prefix="shokunin-install-"))
    assert folder.stat().st_mode & 0o777 == 0o700
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    relative = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    subprocess.run(["cp", "-al", f"{sys.prefix}/{relative}/.", str(venv / relative)],
                   check=True)
    for pth in (venv / relative).glob("*shokunin*.pth"):
        pth.unlink()  # a hard link to the running venv's file: replace, never write through
    shutil.copytree(REPO / "src", folder / "src")
    (venv / relative / "_editable_impl_shokunin.pth").write_text(f"{folder / 'src'}\n")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def serve_one_cell(folder: Path) -> dict:
    proc = subprocess.run(
        [str(folder / "venv" / "bin" / "python"), "-c", SERVER, str(folder / "data")],
        cwd=folder, capture_output=True, text=True, timeout=300,
        env={"PATH": os.environ["PATH"], "LANG": "C.UTF-8"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_kernel_runs_from_a_0700_install(install: Path) -> None:
    answer = serve_one_cell(install)
    result = answer.get("result")
    assert result is not None, answer
    assert result["ok"], result
    # The kernel imported matplotlib from the install inside the 0700 folder.
    assert result["stdout"].startswith(str(install / "venv")), result


@pytest.mark.skipif(os.geteuid() != 0, reason="unprivileged kernels share the server's uid")
def test_unreadable_install_fails_at_start_saying_why(install: Path) -> None:
    packages = Path(sysconfig.get_path("purelib")).relative_to(sys.prefix)
    site = install / "venv" / packages
    site.chmod(0o700)  # a folder, not a hard-linked file: the running venv is untouched
    answer = serve_one_cell(install)
    message = answer.get("unavailable")
    assert message is not None, answer
    assert message.startswith("the Python sandbox cannot start a kernel: ")
    assert f"other users cannot enter {site} (mode 0700, uid 0)" in message
    assert "chmod -R a+rX" in message
