"""Kernels die with their server, even one killed with SIGKILL, and the next server on the
same data folder removes what the dead one left; a live server's kernels are never touched."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from shokunin.config import Settings
from shokunin.sandbox import Sandbox
from tests.waiting import wait_until

pytestmark = pytest.mark.kernel

REPO = Path(__file__).resolve().parents[2]
# A server with a warm pool kernel and a thread kernel whose cell forked a child (past the
# policy, as if it had a hole); it reports what it started, then waits to be killed.
SERVER = """
import asyncio, dataclasses, json, sys
from shokunin.config import Settings
from shokunin.sandbox import ExecPythonInput, Sandbox

FORK = "import os, time\\npid = os.fork()\\nif pid == 0:\\n    time.sleep(600)\\n" \\
       "    os._exit(0)\\nprint(pid)"

async def main():
    sandbox = Sandbox(Settings(data_dir=sys.argv[1], sandbox_pool_size=1))
    sandbox._ensure_runtime()  # the audit hook off: the fork stands for a hole in it
    sandbox._walls = dataclasses.replace(
        sandbox._walls, extra_env={"SHOKUNIN_SANDBOX_AUDIT": "off"})
    await sandbox.start()
    kernel = await sandbox._kernel_for("t", None)
    result = await sandbox._run(kernel, ExecPythonInput(code=FORK), None)
    sandbox.pool.fill()  # (execute would have; the pool refills after a first cell)
    await sandbox.pool.wait_filled()
    pooled = sandbox.pool._ready[0]
    print(json.dumps({"root": str(sandbox._root), "kernels": [kernel.pid, pooled.pid],
                      "fork": int(result.stdout)}), flush=True)
    await asyncio.sleep(3600)

asyncio.run(main())
"""


class Server:
    def __init__(self, data_dir: Path) -> None:
        self.proc = subprocess.Popen([sys.executable, "-c", SERVER, str(data_dir)], cwd=REPO,
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert line, "the server did not start"
        info = json.loads(line)
        self.root, self.kernels, self.fork = Path(info["root"]), info["kernels"], info["fork"]

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait()


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] != b"Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def data_dirs() -> Iterator[tuple[Path, Path]]:
    dirs = tuple(Path(tempfile.mkdtemp(prefix="shokunin-death-")) for _ in range(2))
    for d in dirs:
        d.chmod(0o755)
    yield dirs
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="kernels of their own uid need a root server")
def test_kernels_die_with_a_killed_server_and_its_leftovers_go_at_next_start(
        data_dirs: tuple[Path, Path]) -> None:
    mine, other = data_dirs
    servers: list[Server] = []  # each stopped at the end, even if a later one fails to start
    try:
        servers.append(neighbour := Server(mine))  # live, same data folder: must survive
        servers.append(elsewhere := Server(other))  # live, another data folder
        servers.append(victim := Server(mine))
        victim.stop()  # SIGKILL: no clean-up runs
        wait_until(lambda: not any(alive(pid) for pid in victim.kernels), 60,
                   what="the killed server's kernels gone")
        assert victim.root.is_dir() and alive(victim.fork)  # left for the next start

        asyncio.run(start_and_stop(mine))  # the successor
        assert not victim.root.exists()
        wait_until(lambda: not alive(victim.fork), 60, what="the forked child gone")
        for live in (neighbour, elsewhere):
            assert live.root.is_dir()
            assert all(alive(pid) for pid in [*live.kernels, live.fork])
    finally:
        for server in servers:
            server.stop()
        for data_dir in data_dirs:  # what the servers killed here left behind
            asyncio.run(start_and_stop(data_dir))


async def start_and_stop(data_dir: Path) -> None:
    sandbox = Sandbox(Settings(data_dir=data_dir, sandbox_pool_size=0))
    await sandbox.start()
    await sandbox.shutdown()
