"""A real shokunin server in a child process, for tests of streams, sockets and browsers.

Streams need a real server (STYLE.md): TestClient buffers whole bodies, and a restart test
needs a process to kill.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class LiveServer:
    def __init__(self, data_dir: Path, env: dict[str, str] | None = None,
                 port: int | None = None, log_level: str = "warning",
                 log_path: Path | None = None) -> None:
        self.data_dir = data_dir
        self.log_level = log_level
        self.port = port or free_port()
        self.extra_env = env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = log_path or data_dir / "server.log"

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 60.0) -> LiveServer:
        env = {k: v for k, v in os.environ.items() if not k.startswith("SHOKUNIN_")}
        env.update({
            "SHOKUNIN_DATA_DIR": str(self.data_dir),
            "SHOKUNIN_TOOLS_DIRS": f'["{self.data_dir / "tool"}"]',
            "SHOKUNIN_TOOL_SETTINGS_FILE": str(self.data_dir / "userdata" / "settings.json"),
            "SHOKUNIN_MCP_CONFIG": str(self.data_dir / "userdata" / "mcp.json"),
            "SHOKUNIN_SANDBOX_POOL_SIZE": "0",
        })
        env.update(self.extra_env)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        log = open(self.log_path, "ab")  # noqa: SIM115 - closed with the process
        self._logged = self.log_path.stat().st_size if self.log_path.exists() else 0
        self.proc = subprocess.Popen(self.argv(), env=env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"server exited early:\n{self.log_path.read_text()[-4000:]}")
            if self.ready():
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"server did not start:\n{self.log_path.read_text()[-4000:]}")

    def argv(self) -> list[str]:
        return [sys.executable, "-m", "shokunin", "serve", "--port", str(self.port),
                "--log-level", self.log_level]

    def ready(self) -> bool:
        try:
            return httpx.get(f"{self.url}/health", timeout=1.0).status_code == 200
        except httpx.HTTPError:
            return False

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None

    def restart(self) -> LiveServer:
        self.stop()
        return self.start()


class LiveWorker(LiveServer):
    """A `shokunin worker` in a child process (no HTTP): ready once it says it takes runs."""

    def argv(self) -> list[str]:
        return [sys.executable, "-m", "shokunin", "worker", "--log-level", "info",
                "--grace", "2"]

    def ready(self) -> bool:
        with open(self.log_path, "rb") as log:
            log.seek(self._logged)
            return b"takes runs from queues" in log.read()
