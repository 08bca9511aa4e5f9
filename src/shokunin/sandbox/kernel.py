"""One walled Jupyter kernel: start, run a cell with a deadline, interrupt, kill, restart.

The kernel process is started through ``launcher.py`` (namespaces, limits, own uid,
private /tmp, Landlock, seccomp) and spoken to over jupyter_client's ipc transport: unix
sockets in the kernel's private folder, which work across the network namespace the
kernel lives in.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import itertools
import json
import logging
import os
import queue
import signal
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client import AsyncKernelManager
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

from shokunin.errors import ShokuninError
from shokunin.sandbox.artifacts import OutputCollector
from shokunin.sandbox.contracts import ExecResult
from shokunin.sandbox.folders import KernelFolder, hand_over
from shokunin.sandbox.template import ForkedProvisioner, KernelTemplate, TemplateUnavailable

log = logging.getLogger(__name__)
_SERIALS = itertools.count()  # one per Kernel object of this process
HERE = Path(__file__).resolve().parent
INTERRUPT_GRACE_SEC = 3.0
PRIVATE_TMP = ("/tmp", "/dev/shm")  # a bounded tmpfs each, per kernel
DEVICES = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")
POLL_SEC = 0.1
NOFILE = 1024  # open files per process: also bounds how many memfds hold memory


class KernelDied(ShokuninError, RuntimeError):
    """The kernel process is gone (out of memory, killed, crashed)."""


class CellStopped(Exception):
    """A cell stopped before it finished, on its deadline or an abort; ``partial`` holds
    what it produced until then."""

    def __init__(self, reason: str, partial: ExecResult) -> None:
        super().__init__(reason)
        self.reason = reason
        self.partial = partial


class KernelState(enum.Enum):
    NEW = "new"
    READY = "ready"
    BUSY = "busy"
    DEAD = "dead"
    CLOSED = "closed"


@dataclass(frozen=True)
class Walls:
    """What the launcher applies to a kernel; built once from Settings."""

    memory_mb: int
    cpu_sec: int
    max_procs: int
    file_mb: int
    tmp_mb: int = 256  # each of the kernel's private /tmp and /dev/shm
    # The filesystem view (bound read-only) and Landlock: read and execute beneath these
    readable: tuple[str, ...] = ()
    writable: tuple[str, ...] = ()  # ...and write beneath these, besides its own folder
    cover: tuple[str, ...] = ()  # secrets beneath a readable path, covered in the view
    output_cap: int = 400_000
    mpl_cache: str = ""  # a prebuilt matplotlib font cache, copied so each start is fast
    extra_env: dict[str, str] = field(default_factory=dict)

    def limits(self) -> dict[str, int]:
        return {"as": self.memory_mb << 20, "cpu": self.cpu_sec, "nproc": self.max_procs,
                "fsize": self.file_mb << 20, "nofile": NOFILE}


def common_env(walls: Walls) -> dict[str, str]:
    """What every kernel's environment holds, whichever its folder: built from nothing, so
    no server secret can leak into a kernel (or the template they are forked from)."""
    return {"PATH": f"{Path(sys.executable).parent}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8",
            "MPLBACKEND": "module://matplotlib_inline.backend_inline",
            "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1",
            "MALLOC_ARENA_MAX": "2", "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
            "SHOKUNIN_OUTPUT_CAP": str(walls.output_cap),
            # Arrow's mimalloc keeps freed pages and reserves address space (RLIMIT_AS)
            "ARROW_DEFAULT_MEMORY_POOL": "system",
            # ...and its jemalloc, unused then, would start a thread at import: a template
            # with a thread cannot fork cleanly
            "JE_ARROW_MALLOC_CONF": "background_thread:false",
            # ipykernel's debugger warns at every start that Python's frozen modules may
            # hide breakpoints: nobody sets breakpoints in a sandbox kernel
            "PYDEVD_DISABLE_FILE_VALIDATION": "1",
            # ipykernel's pipe for forks' output binds 127.0.0.1, which the seccomp
            # filter refuses (no TCP): it says so at every start, and goes on without
            "PYTHONWARNINGS": "ignore:Couldn't bind IOPub Pipe:UserWarning",
            **walls.extra_env}


class _OneSpec(KernelSpecManager):
    """Hands jupyter_client the one launch command of this kernel."""

    def __init__(self, spec: KernelSpec) -> None:
        super().__init__()
        self._spec = spec

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        return self._spec


def is_root() -> bool:
    return os.geteuid() == 0


class Kernel:
    """A kernel owned by one thread (or waiting in the pool for one)."""

    def __init__(self, root: Path, uid: int, walls: Walls,
                 template: KernelTemplate | None = None) -> None:
        """``template``: fork the kernel from it (when it runs) rather than start a fresh
        interpreter."""
        self.root = root  # the server's runtime folder
        self.uid = uid
        self.walls = walls
        self.template = template
        self.workspace: Path | None = None
        self.state = KernelState.NEW
        self.generation = 0  # how many times a fresh process replaced the first one
        self.serial = next(_SERIALS)
        self.last_used = time.monotonic()
        self.lock = asyncio.Lock()
        self._km: AsyncKernelManager | None = None
        self._kc: Any = None
        self._settling: asyncio.Future[None] | None = None
        self.folder = KernelFolder(root, uid, self.generation, self.serial)

    # -- lifecycle -------------------------------------------------------------------
    async def start(self) -> None:
        argv = [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}",
                "--HistoryManager.enabled=False", "--IPKernelApp.quiet=True",
                f"--IPKernelApp.exec_files={HERE / 'kernel_startup.py'}"]
        spec = KernelSpec(argv=self._walled(argv), display_name="shokunin", language="python",
                          interrupt_mode="signal")
        folder = self.folder
        self._km = AsyncKernelManager(
            kernel_spec_manager=_OneSpec(spec), transport="ipc", ip=str(folder.home / "ipc"),
            connection_file=str(folder.connection))
        if self.template is not None and self.template.alive():
            self._km.kernel_id = str(uuid.uuid4())
            self._km.provisioner = ForkedProvisioner(
                kernel_id=self._km.kernel_id, kernel_spec=spec, connection_info={},
                parent=self._km, template=self.template)
        try:
            await self._km.start_kernel(env=self._env(), cwd=str(folder.path))
        except TemplateUnavailable as exc:
            log.warning("kernel %s starts cold: %s", self.uid, exc)
            self.template = None
            await self.close()
            return await self.start()
        self._kc = self._km.client()
        self._kc.start_channels()
        try:
            await self._kc.wait_for_ready(timeout=60)
        except RuntimeError as exc:
            await self.close()
            raise KernelDied(f"the kernel did not start: {exc}") from exc
        self.state = KernelState.READY

    @property
    def forked(self) -> bool:
        """Whether this kernel's process was forked from the template."""
        return isinstance(self._km and self._km.provisioner, ForkedProvisioner)

    async def probe(self, code: str) -> tuple[str | None, str]:
        """Run ``code`` with ``python -c`` behind the same walls as a kernel: (None, what
        it printed) when it succeeds, else (what it printed on stderr, ...). Checks, in a
        few milliseconds, that a kernel can start here and what its walls are."""
        argv = self._walled([sys.executable, "-c", code], connection=False)
        proc = await asyncio.create_subprocess_exec(
            *argv, env=self._env(), cwd=str(self.folder.path), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
        error = None if proc.returncode == 0 else err.decode(errors="replace").strip()
        return error, out.decode(errors="replace")

    def _walled(self, argv: list[str], *, connection: bool = True) -> list[str]:
        """The launcher's command line that walls the process in, then execs ``argv``."""
        folder = self.folder = KernelFolder(self.root, self.uid, self.generation, self.serial)
        folder.create()
        config = {"uid": self.uid, "gid": self.uid, "parent": os.getpid(),
                  "limits": self.walls.limits(), "root": str(folder.view),
                  "share": [str(folder.connection)] if connection else [], "cwd": str(folder.work),
                  "seed": [self.walls.mpl_cache, str(folder.home / "mpl")]
                  if self.walls.mpl_cache else None,
                  "tmp": {"folders": list(PRIVATE_TMP), "mb": self.walls.tmp_mb,
                          "fallback": str(folder.home / "tmp")},
                  "readable": [*self.walls.readable, *([self.walls.mpl_cache]
                                                       if self.walls.mpl_cache else [])],
                  "writable": [str(folder.path), *self.walls.writable],
                  "cover": list(self.walls.cover), "devices": list(DEVICES)}
        return [sys.executable, str(HERE / "launcher.py"), json.dumps(config), "--", *argv]

    def _env(self) -> dict[str, str]:
        """Built from nothing, so no server secret can leak into the kernel."""
        home = self.folder.home
        return {**common_env(self.walls), "HOME": str(self.folder.work),
                "MPLCONFIGDIR": str(home / "mpl"), "IPYTHONDIR": str(home / "ipy")}

    @property
    def pid(self) -> int | None:
        provisioner = self._km.provisioner if self._km else None
        return getattr(provisioner, "pid", None)

    async def assign(self, workspace: Path) -> None:
        """Give the kernel its thread's workspace as working folder and HOME."""
        workspace.mkdir(parents=True, exist_ok=True)
        self.workspace = workspace
        inside = str(workspace)
        if is_root():
            try:
                hand_over(workspace, self.uid)
            except OSError as exc:
                raise KernelDied(f"the workspace is not a plain folder: {exc}") from exc
            # The kernel's view holds nothing of the host's tree: the workspace is bound
            # onto its "work" folder from outside (root's, so no link there).
            inside = str(self.folder.work)
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-I", "-S", str(HERE / "mount_into.py"), str(self.pid),
                str(workspace.resolve()), inside, stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
            _, err = await proc.communicate()
            if proc.returncode:
                raise KernelDied(f"cannot mount the workspace: {err.decode().strip()}")
        await self.run_internal(f"_shokunin_enter({inside!r})")

    async def inject(self, context: dict[str, Any]) -> None:
        """Set variables in the kernel: JSON values as they are, DataFrames as table JSON."""
        if not context:
            return
        values, frames = {}, {}
        for name, value in context.items():
            if not name.isidentifier() or name.startswith("_"):
                raise ValueError(f"context name {name!r} is not a public identifier")
            if hasattr(value, "to_json") and hasattr(value, "columns"):
                frames[name] = value.to_json(orient="table", date_format="iso")
            else:
                values[name] = value
        path = self.folder.write_context(json.dumps({"values": values, "frames": frames}))
        try:
            await self.run_internal(f"_shokunin_context({str(path)!r})")
        finally:
            with contextlib.suppress(FileNotFoundError):
                path.unlink()

    async def run_internal(self, code: str) -> None:
        try:
            result = await self.execute(code, timeout=30, max_output_chars=4000, silent=True)
        except CellStopped as stop:
            raise KernelDied(f"sandbox setup did not finish ({stop.reason})") from None
        if not result.ok:
            raise KernelDied(f"sandbox setup failed: {result.error_type}: "
                             f"{result.error_message}")

    async def restart(self) -> None:
        """A fresh process in place of this one: state is lost, the workspace kept."""
        await self.close()
        self.generation += 1
        await self.start()
        if self.workspace is not None:
            await self.assign(self.workspace)

    async def close(self) -> None:
        settling, self._settling = self._settling, None
        if settling is not None and settling is not asyncio.current_task():
            settling.cancel()
            with contextlib.suppress(BaseException):
                await settling
        group = self.pid
        provisioner = self._km.provisioner if self._km is not None else None
        if self._kc is not None:
            self._kc.stop_channels()
        if self._km is not None:
            with contextlib.suppress(Exception):
                await self._km.shutdown_kernel(now=True)
            await self._km.cleanup_resources()
        self._kill_uid(group)
        if isinstance(provisioner, ForkedProvisioner):  # its pid is not ours to use any more
            await provisioner.release()
        self.folder.remove()
        self._kc = self._km = None
        self.state = KernelState.CLOSED

    def _kill_uid(self, group: int | None, keep: int | None = None) -> list[int]:
        """Kill whatever the kernel left behind (forked children): all run as its uid, in
        its process ``group``. ``keep``: a pid to spare (the kernel itself). Returns the
        pids killed."""
        killed: list[int] = []
        for _ in range(5):
            victims = [pid for pid in self._strays(group)
                       if pid not in (keep, os.getpid()) and pid not in killed]
            if not victims:
                break
            for pid in victims:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
            time.sleep(0.02)
        return killed

    def _strays(self, group: int | None) -> list[int]:
        if is_root():
            return _pids_of(self.uid)
        # Same uid as the server: only the kernel's own process group (it started a new
        # session; its forks stay in it unless they start their own).
        return [] if group is None else _pids_in_group(group)

    def processes(self) -> list[int]:
        """The kernel's processes: its own and what it started."""
        return sorted(set(self._strays(self.pid)) | ({self.pid} if self.pid else set()))

    def is_alive(self) -> bool:
        provisioner = self._km.provisioner if self._km else None
        process = getattr(provisioner, "process", None)
        return process is not None and process.poll() is None

    # -- execution -------------------------------------------------------------------
    async def execute(self, code: str, *, timeout: float, max_output_chars: int,
                      abort: threading.Event | None = None, silent: bool = False) -> ExecResult:
        """Run one cell. Raises KernelDied, or CellStopped (deadline or abort) with the
        output collected until then."""
        await self._settled()
        if self._kc is None or not self.is_alive():
            self.state = KernelState.DEAD
            raise KernelDied("the kernel is not running")
        self.state = KernelState.BUSY
        collector = OutputCollector(max_output_chars)
        msg_id = self._kc.execute(code, silent=silent, store_history=not silent)
        try:
            await self._collect(msg_id, collector, time.monotonic() + timeout, abort)
        except asyncio.CancelledError:
            # The next cell waits for this (_settled), even if the caller is cancelled
            # again and leaves before the kernel is back: two readers of one channel
            # would take each other's messages.
            self._settling = asyncio.ensure_future(self._stop_cell(msg_id))
            await asyncio.shield(self._settling)
            raise
        except (TimeoutError, InterruptedError) as exc:
            await self._stop_cell(msg_id, collector)
            reason = "timeout" if isinstance(exc, TimeoutError) else "aborted"
            raise CellStopped(reason, collector.result()) from None
        finally:
            self.last_used = time.monotonic()
        self.state = KernelState.READY
        return collector.result()

    async def _settled(self) -> None:
        settling = self._settling
        if settling is None or settling is asyncio.current_task():
            return  # (the stop itself runs internal cells)
        self._settling = None
        with contextlib.suppress(Exception):  # a failed stop leaves the kernel dead
            await settling

    async def _collect(self, msg_id: str, collector: OutputCollector, deadline: float,
                       abort: threading.Event | None) -> None:
        while True:
            if abort is not None and abort.is_set():
                raise InterruptedError("aborted")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            try:
                msg = await self._kc.get_iopub_msg(timeout=min(POLL_SEC, remaining))
            except queue.Empty:
                if not self.is_alive():
                    self.state = KernelState.DEAD
                    raise KernelDied("the kernel died during execution") from None
                continue
            except ValueError as exc:  # a frame that is not a signed message: skip it
                log.warning("kernel %s: dropped an iopub message: %s", self.uid, exc)
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["header"]["msg_type"] == "status" \
                    and msg["content"]["execution_state"] == "idle":
                await self._drain_reply(msg_id)
                return
            collector.handle(msg)

    async def _drain_reply(self, msg_id: str) -> None:
        with contextlib.suppress(queue.Empty):
            while True:
                try:
                    reply = await self._kc.get_shell_msg(timeout=1)
                except ValueError:
                    continue
                if reply["parent_header"].get("msg_id") == msg_id:
                    return

    async def _stop_cell(self, msg_id: str, collector: OutputCollector | None = None) -> None:
        """Interrupt the kernel, and kill what the cell started; a kernel that does not
        come back to idle soon is replaced. What the cell printed before it stopped, still
        on its way, goes to ``collector``."""
        try:
            pid = self.pid
            if pid is None or not self.is_alive():
                raise KernelDied("the kernel is gone")
            # The kernel alone: jupyter_client would signal its process group, and a
            # fork of the kernel that gets SIGINT runs the kernel's own message loop on
            # copies of its sockets, garbling what the kernel sends.
            os.kill(pid, signal.SIGINT)
            # What the cell started goes with it: left running, or as zombies, its forks
            # hold the kernel's process slots, and a kernel that cannot start a thread
            # loses its output (pyzmq and ipykernel start threads lazily).
            killed = self._kill_uid(pid, keep=pid)
            sink = collector or OutputCollector(1000)
            try:
                await self._collect(msg_id, sink, time.monotonic() + INTERRUPT_GRACE_SEC,
                                    None)
            finally:
                sink.error = None  # the KeyboardInterrupt this stop raised
            if killed:  # the kernel is their parent (or subreaper): only it can reap them
                await self.run_internal(f"_shokunin_reap({killed!r})")
            self.state = KernelState.READY
        except (TimeoutError, KernelDied, ProcessLookupError):
            await self.restart()


def _pids_in_group(pgid: int) -> list[int]:
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError, ValueError):
                if os.getpgid(int(entry.name)) == pgid:
                    pids.append(int(entry.name))
    return pids


def _pids_of(uid: int) -> list[int]:
    pids = []
    for entry in os.scandir("/proc"):
        if entry.name.isdigit():
            with contextlib.suppress(OSError):
                if entry.stat().st_uid == uid:
                    pids.append(int(entry.name))
    return pids
