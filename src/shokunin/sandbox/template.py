"""The server's end of the template kernel process (``zygote.py``): start it, ask it for
kernels, and give jupyter_client a provisioner whose kernels it forks.

A forked kernel is not the server's child: the server knows it by a pidfd the template
sends along (a handle that names that process and no later one with its pid), signals it
through it, and sees it end when the pidfd turns readable. The template reaps it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
import os
import select
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from jupyter_client.connect import KernelConnectionInfo
from jupyter_client.provisioning import LocalProvisioner
from traitlets import Instance

from shokunin.errors import ShokuninError

log = logging.getLogger(__name__)
HERE = Path(__file__).resolve().parent
READY_SEC = 120.0  # importing pandas and matplotlib on a cold disk
FORK_SEC = 30.0
MAX_MESSAGE = 1 << 20


class TemplateUnavailable(ShokuninError, RuntimeError):
    """The template process cannot fork a kernel now; kernels start cold instead."""


class ForkedProcess:
    """A kernel forked by the template, shaped like the ``Popen`` jupyter_client expects.

    Its exit status stays with the template (its parent): ``poll`` reports -SIGKILL for any
    end, which is all the server needs (gone, or not).
    """

    stdin = stdout = stderr = None

    def __init__(self, pid: int, pidfd: int, template: KernelTemplate | None = None) -> None:
        self.pid = pid
        self._pidfd = pidfd
        self._template = template
        self._generation = template.generation if template is not None else 0
        self.returncode: int | None = None

    def poll(self) -> int | None:
        if self.returncode is None and self._ends_within(0):
            self._ended()
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        if self.returncode is None:
            if not self._ends_within(None if timeout is None else int(timeout * 1000)):
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout or 0)
            self._ended()
        assert self.returncode is not None
        return self.returncode

    def _ends_within(self, ms: int | None) -> bool:
        """Whether the process ends within ``ms`` (None: waits for it); poll(2), not
        select(2), which stops at descriptor 1024 (a server with many kernels passes it)."""
        watch = select.poll()
        watch.register(self._pidfd, select.POLLIN)
        return bool(watch.poll(ms))

    def send_signal(self, signum: int) -> None:
        if self.returncode is None:
            signal.pidfd_send_signal(self._pidfd, signum)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def release(self) -> None:
        """Tell the template the server is done with this pid: once the kernel has exited,
        it is reaped and its pid may be reused. Blocking (see ``KernelTemplate.release``)."""
        template, self._template = self._template, None
        if template is not None:
            template.release(self.pid, self._generation)

    def discard(self) -> None:
        """Kill a kernel nobody took (its start was cancelled) and release it."""
        with contextlib.suppress(ProcessLookupError):
            self.kill()
        self.release()

    def _ended(self) -> None:
        self.returncode = -signal.SIGKILL
        os.close(self._pidfd)
        self._pidfd = -1

    def __del__(self) -> None:
        if self._pidfd >= 0:
            os.close(self._pidfd)


class KernelTemplate:
    """One template process; a kernel request forks a child of it (``fork``).

    ``env`` is what every kernel's environment holds in common (variables read when the
    interpreter or a library starts must be the template's already). ``root`` is the
    server's runtime folder, named on the template's command line.
    """

    def __init__(self, root: Path, env: dict[str, str]) -> None:
        self.root = root
        self.env = env
        self._proc: subprocess.Popen[bytes] | None = None
        self._control: socket.socket | None = None
        self._lock = threading.Lock()  # one request at a time on the control socket
        self._ready = threading.Event()  # it has imported everything and said so
        self._ids = itertools.count(1)
        self.generation = 0  # how many times it was started: a pid names a child of one

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def alive(self) -> bool:
        proc = self._proc  # (close() may clear it from a worker thread)
        return proc is not None and proc.poll() is None

    async def start(self) -> None:
        """Start the template and wait until it has imported everything; raises
        TemplateUnavailable when it cannot. Call it on the event loop's thread: the
        template dies with the thread that started it (PR_SET_PDEATHSIG), and that one
        lives as long as the server."""
        with self._lock:
            self._stop()
            self.generation += 1
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, str(HERE / "zygote.py"), str(theirs.fileno()),
                     str(os.getpid()), str(self.root)],
                    pass_fds=[theirs.fileno()], env=self.env, cwd=str(self.root),
                    stdin=subprocess.DEVNULL)
            finally:
                theirs.close()
            self._control = ours
        await asyncio.to_thread(self._wait_ready)

    def _wait_ready(self) -> None:
        with self._lock:
            assert self._control is not None
            self._control.settimeout(READY_SEC)
            try:
                answer = json.loads(self._control.recv(MAX_MESSAGE) or b"{}")
            except (OSError, ValueError) as exc:
                self._stop()
                raise TemplateUnavailable(f"the template did not start: {exc}") from None
            if not answer.get("ready"):
                self._stop()
                raise TemplateUnavailable("the template did not start: "
                                          f"{answer.get('error') or 'it exited'}")
            self._ready.set()

    def fork(self, argv: list[str], env: dict[str, str], cwd: str) -> ForkedProcess:
        """Fork a kernel that runs ``argv`` (the launcher's command line) behind its walls.
        Blocking (a few milliseconds): call it from a worker thread. An answer to an
        earlier request that timed out is told apart by its id: its kernel, which nobody
        owns, is killed. Waits while a template started again is still importing."""
        if not self.alive() or not self._ready.wait(READY_SEC):
            raise TemplateUnavailable("the template is not running")
        with self._lock:
            if not self.alive():
                raise TemplateUnavailable("the template is not running")
            assert self._control is not None
            ident = next(self._ids)
            self._control.settimeout(FORK_SEC)
            try:
                self._control.send(json.dumps({"id": ident, "argv": argv, "env": env,
                                               "cwd": cwd}).encode())
                while True:
                    message, fds, _, _ = socket.recv_fds(self._control, MAX_MESSAGE, 1)
                    answer = json.loads(message or b"{}")
                    if not message or answer.get("id") == ident:
                        break
                    for fd in fds:  # a late answer to a request that timed out
                        self._discard(ForkedProcess(int(answer["pid"]), fd))
            except OSError as exc:
                raise TemplateUnavailable(f"the template did not answer: {exc}") from None
        if not fds:
            raise TemplateUnavailable(f"the template could not fork: "
                                      f"{answer.get('error', 'it exited')}")
        os.set_inheritable(fds[0], False)
        return ForkedProcess(int(answer["pid"]), fds[0], self)

    def release(self, pid: int, generation: int) -> None:
        """Let the template reap ``pid`` once it has exited (see ``zygote.reap``), if it is
        still the one that forked it: a later one may have a child of that number."""
        with self._lock:
            if generation == self.generation:
                self._release(pid)

    def _release(self, pid: int) -> None:
        if self._control is not None and self.alive():
            with contextlib.suppress(OSError):
                self._control.send(json.dumps({"release": pid}).encode())

    def _discard(self, process: ForkedProcess) -> None:
        with contextlib.suppress(ProcessLookupError):
            process.kill()
        self._release(process.pid)  # under the lock already

    async def close(self) -> None:
        await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._lock:
            self._stop()

    def _stop(self) -> None:
        """Close the control socket (the template exits on it) and make sure it is gone;
        its kernels die with it."""
        self._ready.clear()
        if self._control is not None:
            self._control.close()
            self._control = None
        proc, self._proc = self._proc, None
        if proc is not None:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class ForkedProvisioner(LocalProvisioner):  # type: ignore[misc]
    """jupyter_client's local provisioner, with the process forked by ``template``."""

    template = Instance(KernelTemplate, allow_none=True)
    forked: ForkedProcess | None = None  # kept past jupyter_client's wait(), for release()

    async def release(self) -> None:
        """The server is done with the kernel's pid (signals, process-group lookups): the
        template may reap it."""
        forked, self.forked = self.forked, None
        if forked is not None:
            await asyncio.to_thread(forked.release)

    async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> KernelConnectionInfo:
        assert self.template is not None
        env = kwargs.get("env") or {}
        cwd = str(kwargs.get("cwd") or os.getcwd())
        forking = asyncio.ensure_future(asyncio.to_thread(self.template.fork, cmd, env, cwd))
        try:
            process = await asyncio.shield(forking)
        except asyncio.CancelledError:
            # The fork goes on in its thread: the kernel it makes has no owner, so it goes.
            forking.add_done_callback(_discard_unowned)
            raise
        self.process = self.forked = process
        self.pid = self.pgid = process.pid  # the kernel starts a session of its own
        self.cwd = cwd
        return self.connection_info


def _discard_unowned(forking: asyncio.Future[ForkedProcess]) -> None:
    if not forking.cancelled() and forking.exception() is None:
        asyncio.get_running_loop().run_in_executor(None, forking.result().discard)
