"""Sandbox: exec_python for the agents. A policy check, then a walled kernel per thread.

Errors are results, never exceptions (except cancellation): a refused cell is
``PolicyViolation``, a cell past its deadline ``Timeout``, a kernel that died under it
``KernelDied`` (the thread gets a fresh kernel), an abort ``Interrupted``, no kernel free
within the caps ``SandboxBusy`` (see ``quota.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import resource
import socket
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shokunin import events
from shokunin.config import default_max_kernels
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.sandbox import (
    font_list,
    landlock_rules,
    saved_images,
    syscall_filter,
    walls_report,
)
from shokunin.sandbox.contracts import ExecPythonInput, ExecResult
from shokunin.sandbox.exposure import (
    HERE,
    KERNEL_MODULES,
    diagnose,
    readable_paths,
    secrets_beneath,
)
from shokunin.sandbox.kernel import (
    CellStopped,
    Kernel,
    KernelDied,
    Walls,
    common_env,
    is_root,
)
from shokunin.sandbox.memory import memory_of
from shokunin.sandbox.parser_walls import ParserWalls
from shokunin.sandbox.policy import PolicyViolation, check_policy
from shokunin.sandbox.pool import KernelPool
from shokunin.sandbox.quota import KernelQuota, SandboxBusy, mem_available_mb, owner_key
from shokunin.sandbox.runtime import UID_BASE, UID_SPAN, Runtime, claim_uid
from shokunin.sandbox.template import KernelTemplate, TemplateUnavailable

if TYPE_CHECKING:
    from shokunin.store import KernelHomes

log = logging.getLogger(__name__)

# Run as a kernel would be, behind its walls: can the interpreter start and read what a
# kernel imports?
PROBE = """
import importlib.util, sys
for name in {modules!r}:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.origin:
        sys.exit(f"cannot import {{name}}: not found or not readable")
    open(spec.origin, "rb").close()
open({startup!r}, "rb").close()
"""


def _allow_open_files() -> None:
    """Raise the server's open-files limit to its hard limit: each live kernel holds about
    a dozen descriptors in the server (its sockets, its pidfd), and many shells and service
    managers start processes at a soft limit of 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = 1 << 16 if hard == resource.RLIM_INFINITY else hard
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))


def _log_missing_walls() -> None:
    """Say once, at start, which of the kernel's walls this system cannot give."""
    if not syscall_filter.kernel_supports_seccomp():
        log.warning("this kernel has no seccomp: sandbox kernels run without their system "
                    "call filter (namespaces, mounts, ptrace, sockets stay open to them)")
    if landlock_rules.abi_version() < 1:
        log.warning("this kernel has no Landlock (or it is disabled): sandbox kernels may "
                    "read what their uid may read; the other walls hold")


class SandboxUnavailable(ShokuninError, RuntimeError):
    """Kernels cannot start on this machine; the message says why and what to do."""
    status = 503
    code = ErrorCode.UNAVAILABLE


class Sandbox:
    """Runs model-written Python per thread; docs/threat-model.md says what its walls stop."""

    def __init__(self, settings: Any, homes: KernelHomes | None = None) -> None:
        """``homes``: where the engine records which process holds each thread's kernel
        (a worker's runs follow their kernel; a kernel started elsewhere says the
        variables are gone)."""
        self.settings = settings
        self.homes = homes
        self.allowed_imports = list(settings.sandbox_allowed_imports)
        self.idle_sec = float(settings.sandbox_idle_sec)
        self._kernels: dict[str, Kernel] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._uids: dict[int, socket.socket] = {}  # uid -> its host-wide claim
        self._runtime: Runtime | None = None
        self._root: Path | None = None
        self._walls: Walls | None = None
        self._template: KernelTemplate | None = None
        self._cold = not settings.sandbox_template  # kernels start cold from now on
        self._template_lock = asyncio.Lock()  # one start at a time
        self._pool = KernelPool(int(settings.sandbox_pool_size), self._new_kernel)
        self._reaper: asyncio.Task[None] | None = None
        self._warming: asyncio.Task[KernelTemplate | None] | None = None
        self._quota = KernelQuota(int(settings.sandbox_max_kernels),
                                  int(settings.sandbox_max_kernels_per_owner),
                                  float(settings.sandbox_queue_sec))
        self.min_free_mb = int(settings.sandbox_min_free_mb)
        # thread -> why the variables its next kernel starts without are gone
        self._shut_early: dict[str, str] = {}
        self.walls: walls_report.WallsReport | None = None  # measured at start
        self._parser_walls: ParserWalls | None = None

    @property
    def refused(self) -> str | None:
        """Why Python does not run on this machine (its walls cannot be built); None
        when it does."""
        return None if self.walls is None or self.walls.python else self.walls.reason

    # -- lifecycle -------------------------------------------------------------------
    async def start(self) -> None:
        """Prepare the runtime folder, check that a kernel can start here, and fill the
        warm pool (in the background).

        Raises SandboxUnavailable, saying why and what to do, when kernels cannot start
        (e.g. a root server whose Python installation other users cannot read): a server
        that would fail at every cell does not start.
        """
        # matplotlib's font list is built by a child process (half a second): not on the loop
        await asyncio.to_thread(self._ensure_runtime)
        _allow_open_files()
        _log_missing_walls()
        if self._pool.size > 0:  # the template imports pandas and matplotlib while the probe runs
            self._warming = asyncio.create_task(self._template_for_kernel(), name="template")
        try:
            await self._check_kernels_start()
        except BaseException:
            await self.shutdown()
            raise
        if self.refused:  # no kernel will run here: the template started alongside goes
            await self._close_template()
        else:
            self._pool.fill()
        self._reaper = asyncio.create_task(self._reap_idle())

    async def _check_kernels_start(self) -> None:
        assert self._root is not None and self._walls is not None
        uid = self._allocate_uid()
        probe = Kernel(self._root, uid, self._walls)
        try:
            error, out = await probe.probe(
                PROBE.format(modules=KERNEL_MODULES, startup=str(HERE / "kernel_startup.py"))
                + walls_report.PROBE)
        finally:
            await self._discard(probe)
        if error is None:
            self.walls = walls_report.measure(
                out, server_uid=os.getuid(), is_root=is_root(),
                landlock_abi=landlock_rules.abi_version(),
                weak_walls_accepted=bool(self.settings.sandbox_weak_walls))
            (log.info if self.walls.python and not self.walls.missing
             else log.warning)("%s", self.walls.summary())
            return
        reason = error.splitlines()[-1] if error else "the probe failed"
        fault = diagnose(list(self._walls.readable)) if is_root() else None
        if fault is None:
            raise SandboxUnavailable(f"the Python sandbox cannot start a kernel: {reason}")
        raise SandboxUnavailable(
            f"the Python sandbox cannot start a kernel: {reason}. Kernels of a root server "
            f"run as their own unprivileged uid, and {fault}. Make the installation "
            f"readable by other users (chmod -R a+rX {sys.prefix}; parent folders may stay "
            "0700), or install shokunin with umask 022, or run the server as a non-root "
            "user (fewer walls: see README, The Python sandbox).")

    async def _template_for_kernel(self) -> KernelTemplate | None:
        """The template to fork the next kernel from (``sandbox_template``), started on the
        first kernel this sandbox needs (at once when the warm pool fills: a server that
        never runs Python never pays for it) and again if it exited; None where it cannot
        start: kernels start cold, as they did before it."""
        if self._cold:
            return None
        async with self._template_lock:  # a second caller waits for the same start
            template = self._template
            if template is not None and template.alive():
                return template
            if template is None:
                template = self._template = self._new_template()
            else:
                log.warning("the kernel template exited: starting it again")
            try:
                await template.start()
            except TemplateUnavailable as exc:
                self._gone_cold(exc)
                return None
            return template

    def _new_template(self) -> KernelTemplate:
        assert self._root is not None and self._walls is not None
        own = self._root / "template"
        own.mkdir(mode=0o700, exist_ok=True)
        env = {**common_env(self._walls), "HOME": str(own), "IPYTHONDIR": str(own / "ipy"),
               "MPLCONFIGDIR": self._walls.mpl_cache or str(own / "mpl")}
        return KernelTemplate(own, env)

    def _gone_cold(self, why: Exception) -> None:
        """Kernels start cold from now on: the default cap becomes the one for what cold
        kernels cost (a cap set by hand stays)."""
        log.warning("kernels start cold, one interpreter each: %s", why)
        self._template, self._cold = None, True
        if "sandbox_max_kernels" not in getattr(self.settings, "model_fields_set", ()):
            self._quota.max_kernels = default_max_kernels(template=False)

    def parser_walls(self) -> ParserWalls:
        """The walls of the upload parser's children (``parser_walls.py``): the kernels'
        view and limits, and a uid of their own on a root server; the same for every
        parse of this server."""
        if self._parser_walls is None:
            self._ensure_runtime()
            assert self._root is not None and self._walls is not None
            view = self._root / "parser-view"
            view.mkdir(mode=0o700, exist_ok=True)
            env = {"PATH": common_env(self._walls)["PATH"], "LANG": "C.UTF-8",
                   "LC_ALL": "C.UTF-8", "HOME": "/tmp", "ARROW_DEFAULT_MEMORY_POOL": "system"}
            self._parser_walls = ParserWalls(
                uid=self._allocate_uid(), readable=self._walls.readable,
                cover=self._walls.cover, root=str(view),
                fallback_tmp=str(self._root / "parser-tmp"), tmp_mb=self._walls.tmp_mb,
                env=tuple(sorted(env.items())))
        return self._parser_walls

    @property
    def starting(self) -> list[str]:
        """The parts still starting in the background (``/health`` says them): the template
        process kernels fork from, the warm kernels. Cells run meanwhile; the first waits."""
        parts = []
        if self._warming is not None and not self._warming.done():
            parts.append("kernel template")
        if self._pool.filling:
            parts.append("warm kernels")
        return parts

    @property
    def template(self) -> KernelTemplate | None:
        """The template process kernels are forked from; None before the first kernel,
        and when they start cold."""
        return self._template

    def _ensure_runtime(self) -> None:
        if self._root is not None:
            return
        # Claiming it first removes what dead servers of this data folder left behind.
        self._runtime = Runtime.claim(Path(self.settings.data_dir))
        self._root = self._runtime.root
        mpl = self._root / "mpl-cache"
        font_list.copy_into(mpl)  # matplotlib's: each kernel starts from a copy of it
        for base, _, files in os.walk(mpl):  # kernels copy it as their own uid
            os.chmod(base, 0o755)
            for name in files:
                os.chmod(os.path.join(base, name), 0o644)
        self._walls = self._build_walls(mpl)

    def _build_walls(self, mpl: Path) -> Walls:
        s = self.settings
        readable = readable_paths(Path.cwd(), Path(s.data_dir))
        writable: list[str] = []
        if not is_root():
            # Kernels share the server's uid and find their workspace by its real path
            # (nothing of root's binds it in from outside): every thread's workspace is
            # there and writable to every kernel, as the uid already allows. The rest of
            # the data folder is not.
            workspaces = Path(s.data_dir).resolve() / "workspaces"
            workspaces.mkdir(parents=True, exist_ok=True)
            writable.append(str(workspaces))
        return Walls(memory_mb=int(s.sandbox_memory_mb), cpu_sec=int(s.sandbox_cpu_sec),
                     max_procs=int(s.sandbox_max_procs), file_mb=int(s.sandbox_file_mb),
                     mpl_cache=str(mpl) if mpl.is_dir() else "",
                     tmp_mb=int(s.sandbox_tmp_mb), readable=tuple(readable),
                     writable=tuple(writable),
                     cover=tuple(secrets_beneath(readable, self._secrets())))

    def _secrets(self) -> list[str]:
        """What no walled process may see even where it lies beneath a folder the view
        binds (a data folder under /usr, a checkout's .env beside its src/)."""
        s = self.settings
        return [str(Path(p).resolve()) for p in (
            s.data_dir, Path.home(), Path.cwd(), Path(".env"),
            Path(getattr(s, "tool_settings_file", ".env")).parent)]

    async def _new_kernel(self) -> Kernel:
        self._ensure_runtime()
        template = await self._template_for_kernel()
        uid = self._allocate_uid()
        kernel = Kernel(self._root, uid, self._walls, template)
        try:
            await kernel.start()
        except BaseException:
            await self._discard(kernel)
            raise
        return kernel

    def _allocate_uid(self) -> int:
        if not is_root():
            return os.getuid()
        while True:
            uid = UID_BASE + random.randrange(UID_SPAN)
            if uid not in self._uids and (claim := claim_uid(uid)) is not None:
                self._uids[uid] = claim
                return uid

    async def _discard(self, kernel: Kernel) -> None:
        await kernel.close()
        claim = self._uids.pop(kernel.uid, None)
        if claim is not None:
            claim.close()

    async def close_thread(self, thread_id: str, *, home: bool = True) -> None:
        """Shut the thread's kernel down; its workspace stays. ``home``: and say it has no
        kernel in this process any more."""
        kernel = self._kernels.pop(thread_id, None)
        self._quota.release(thread_id)
        if kernel is not None:
            await self._discard(kernel)
            if home and self.homes is not None:
                try:
                    await self.homes.left(thread_id)
                except Exception:  # noqa: BLE001 - it runs out with this process's leases
                    log.warning("could not record that %s's kernel closed", thread_id,
                                exc_info=True)

    async def _shut_down_early(self, thread_id: str, why: str) -> None:
        note = f"this thread's earlier kernel was shut down because {why}"
        self._shut_early[thread_id] = note
        await self.close_thread(thread_id, home=False)
        if self.homes is not None:  # the next kernel may start in another process
            try:
                await self.homes.lost(thread_id, note)
            except Exception:  # noqa: BLE001 - this process still tells its own next kernel
                log.warning("could not record why %s's kernel closed", thread_id,
                            exc_info=True)

    def _idle_threads(self) -> list[str]:
        """Threads whose kernel runs nothing and waits for nothing, least recently used first."""
        idle = [(k.last_used, t) for t, k in self._kernels.items() if not k.lock.locked()
                and not (t in self._locks and self._locks[t].locked())]
        return [t for _, t in sorted(idle)]

    async def shutdown(self) -> None:
        if self._reaper is not None:
            self._reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reaper
        await self._pool.close()
        # Their homes stay recorded: a run on another process is told the variables went.
        await asyncio.gather(*(self.close_thread(t, home=False) for t in list(self._kernels)),
                             return_exceptions=True)
        await self._close_template()
        if self._runtime is not None:
            self._runtime.release()
            self._runtime = self._root = None
        self._parser_walls = None
        for claim in self._uids.values():  # the parsers' uid
            claim.close()
        self._uids.clear()

    async def _close_template(self) -> None:
        """Close the template (its kernels die with it), once a start under way has ended."""
        if self._warming is not None:
            with contextlib.suppress(Exception):
                await self._warming
            self._warming = None
        if self._template is not None:
            await self._template.close()
            self._template = None

    async def _reap_idle(self) -> None:
        while True:
            # Often enough to notice memory pressure within seconds.
            await asyncio.sleep(max(0.05, min(self.idle_sec / 4, 5.0)))
            await self.reap_idle()

    async def reap_idle(self) -> list[str]:
        """Close kernels unused for ``idle_sec``, and idle ones least recently used first
        while available memory is below ``min_free_mb``; returns the threads closed."""
        now = time.monotonic()
        idle = [t for t, k in self._kernels.items()
                if not k.lock.locked() and now - k.last_used > self.idle_sec]
        for thread_id in idle:
            await self.close_thread(thread_id)
        for thread_id in self._idle_threads():
            available = mem_available_mb()
            if available is None or available >= self.min_free_mb:
                break
            log.warning("memory low (%s MiB available): closing the idle kernel of %s",
                        available, thread_id)
            await self._shut_down_early(thread_id, f"memory was low ({available} MiB free)")
            idle.append(thread_id)
        return idle

    async def memory(self) -> dict[str, Any]:
        """What the kernels cost (``memory.py``): the template's PSS and USS, and each
        thread's kernel's (with what it started), in KiB; a forked kernel's USS is what
        it added to the template."""
        held = sorted(self._kernels.items())  # here, on the loop that changes it
        template = self._template.pid if self._template is not None else None
        now = time.monotonic()

        def measure() -> dict[str, Any]:  # /proc reads: off the event loop
            kernels = []
            for thread_id, kernel in held:
                used = memory_of(kernel.processes())
                kernels.append({"thread_id": thread_id, "pid": kernel.pid,
                                "forked": kernel.forked, "pss_kb": used.pss_kb,
                                "uss_kb": used.uss_kb,
                                "idle_sec": round(now - kernel.last_used, 1)})
            shared = memory_of([template]) if template else None
            return {"template": None if shared is None else {
                        "pid": template, "pss_kb": shared.pss_kb, "uss_kb": shared.uss_kb},
                    "kernels": kernels}

        measured = await asyncio.to_thread(measure)
        return {**measured, "pooled": self._pool.ready, "max_kernels": self._quota.max_kernels}

    @property
    def pool(self) -> KernelPool:
        return self._pool

    def threads(self) -> list[str]:
        return list(self._kernels)

    # -- execution -------------------------------------------------------------------
    def check(self, code: str) -> list[PolicyViolation]:
        """Policy only, nothing runs. A syntax error is reported as one violation."""
        try:
            return check_policy(code, self.allowed_imports)
        except SyntaxError as exc:
            return [PolicyViolation(exc.lineno or 0, f"syntax error: {exc.msg}")]

    async def execute(self, thread_id: str, inp: ExecPythonInput, *,
                      workspace: Path | None = None,
                      abort: threading.Event | None = None,
                      owner: str | None = None) -> ExecResult:
        """Run ``inp.code`` in the thread's kernel (started or taken from the pool).

        ``owner`` (a client identity) is whose kernel cap the thread's kernel counts
        against; None gives the thread a bucket of its own (only the global cap applies).
        """
        if self.refused:
            return ExecResult(ok=False, stderr=f"SandboxUnavailable: {self.refused}\n",
                              error_type="SandboxUnavailable", error_message=self.refused)
        refused = self._refusal(inp.code)
        if refused is not None:
            return refused
        lock = self._locks.setdefault(thread_id, asyncio.Lock())
        try:
            async with lock:
                held = self._kernels.get(thread_id)
                try:
                    kernel = await self._kernel_for(thread_id, workspace, owner, abort)
                except KernelDied as exc:
                    return ExecResult(ok=False, error_type="KernelDied", error_message=str(exc))
                except SandboxBusy as exc:
                    return ExecResult(ok=False, stderr=f"SandboxBusy: {exc}\n",
                                      error_type="SandboxBusy", error_message=str(exc))
                except InterruptedError:
                    return ExecResult(ok=False, error_type="Interrupted",
                                      error_message="execution was aborted")
                why = self._shut_early.pop(thread_id, None) if kernel is not held else None
                async with kernel.lock:
                    result = await self._run(kernel, inp, abort)
                if why:
                    result.stderr = (f"Note: {why}; variables from before are gone.\n"
                                     + result.stderr)
                return result
        finally:
            self._quota.notify()  # the kernel is idle now: a waiting thread may take it
            self._pool.fill()

    def _refusal(self, code: str) -> ExecResult | None:
        try:
            violations = check_policy(code, self.allowed_imports)
        except SyntaxError as exc:
            where = f"line {exc.lineno}" + (f": {exc.text.rstrip()}" if exc.text else "")
            return ExecResult(ok=False, stderr=f"SyntaxError: {exc.msg} ({where})\n",
                              error_type="SyntaxError", error_message=f"{exc.msg} ({where})")
        if not violations:
            return None
        message = "\n".join(str(v) for v in violations)
        return ExecResult(ok=False, stderr=f"PolicyViolation: {message}\n",
                          error_type="PolicyViolation", error_message=message)

    async def _kernel_for(self, thread_id: str, workspace: Path | None,
                          owner: str | None = None,
                          abort: threading.Event | None = None) -> Kernel:
        kernel = self._kernels.get(thread_id)
        if kernel is not None and not await self._still_its(thread_id):
            await self.close_thread(thread_id, home=False)  # stale: not the thread's now
            kernel = None
        if kernel is not None:
            return kernel
        try:  # from admission on, a failure or a cancellation gives the slot back
            await self._quota.admit(thread_id, owner_key(thread_id, owner), self._idle_threads,
                                    self._make_room, abort.is_set if abort else lambda: False)
            kernel = await self._pool.take()
            try:
                await kernel.assign(workspace or self._default_workspace(thread_id))
            except BaseException:
                await self._discard(kernel)
                raise
        except BaseException:
            self._quota.release(thread_id)
            raise
        self._kernels[thread_id] = kernel
        await self._arrived(thread_id)
        return kernel

    async def _still_its(self, thread_id: str) -> bool:
        """With other processes holding kernels, this one's kernel of the thread is still
        the thread's: not deleted with it, not replaced by one another process started
        (whose variables this one lacks) since."""
        if self.homes is None or not self.homes.shared:
            return True
        try:
            return await self.homes.is_mine(thread_id)
        except Exception:  # noqa: BLE001 - the database away: keep using it
            log.warning("could not check where %s's kernel is", thread_id, exc_info=True)
            return True

    async def _arrived(self, thread_id: str) -> None:
        """Record that this process holds the thread's kernel now; a kernel another
        process held (gone, or not the one running this step) took its variables along."""
        if self.homes is None:
            return
        try:
            lost = await self.homes.arrived(thread_id)
        except Exception:  # noqa: BLE001 - the cell runs; only the note and affinity miss
            log.warning("could not record where %s's kernel is", thread_id, exc_info=True)
            return
        if lost is not None:
            self._shut_early.setdefault(thread_id, lost)

    async def _make_room(self, thread_id: str) -> None:
        await self._shut_down_early(thread_id, "another conversation needed a kernel "
                                    f"(limit {self._quota.max_kernels} kernels, "
                                    f"{self._quota.max_per_owner} per client)")

    def _default_workspace(self, thread_id: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in thread_id)
        return Path(self.settings.data_dir).resolve() / "workspaces" / safe

    async def _run(self, kernel: Kernel, inp: ExecPythonInput,
                   abort: threading.Event | None) -> ExecResult:
        generation = kernel.generation
        try:
            try:
                await kernel.inject(inp.context)
            except (TypeError, ValueError) as exc:
                return ExecResult(ok=False, error_type="ContextError",
                                  error_message=f"context cannot be sent to the kernel: {exc}")
            return await kernel.execute(inp.code, timeout=inp.timeout_sec,
                                        max_output_chars=inp.max_output_chars, abort=abort)
        except CellStopped as stop:
            if stop.reason == "aborted":
                error_type, message = "Interrupted", "execution was aborted"
            else:
                error_type = "Timeout"
                message = f"execution exceeded {inp.timeout_sec} s and was stopped"
            if kernel.generation != generation:
                message += "; the kernel did not stop and was restarted (variables lost)"
            return stop.partial.model_copy(update={
                "ok": False, "error_type": error_type, "error_message": message})
        except KernelDied as exc:
            try:
                await kernel.restart()
            except KernelDied as again:
                return ExecResult(ok=False, error_type="KernelDied", error_message=(
                    f"{exc}; no fresh kernel could start: {again}"))
            return ExecResult(ok=False, error_type="KernelDied", error_message=(
                f"{exc} (out of memory or killed); a fresh kernel replaced it, "
                "variables are lost"))

    async def run_in(self, ctx: Any, inp: ExecPythonInput, step: str | None = None,
                     shown: str | None = None) -> ExecResult:
        """Execute for a run: emit the code (``shown``, when the caller wraps what the user
        wrote in code of its own), the result, then each plot, each image file the code
        wrote in the workspace, and each table."""
        await ctx.emit(events.Code(code=inp.code if shown is None else shown,
                                   language="python", step=step))
        before = await asyncio.to_thread(saved_images.snapshot, ctx.workspace)
        result = await self.execute(ctx.thread_id, inp, workspace=ctx.workspace,
                                    abort=ctx.abort, owner=ctx.owner)
        await ctx.emit(events.CodeResult(
            ok=result.ok, stdout=result.stdout, stderr=result.stderr,
            error_type=result.error_type, error_message=result.error_message, step=step))
        for png in result.plot_png_base64:
            await ctx.emit(events.Image(data_base64=png, format="png"))
        saved_files = await asyncio.to_thread(saved_images.written_images, ctx.workspace, before)
        for saved in saved_files:
            await ctx.emit(events.Image(data_base64=saved.data_base64, format=saved.format,
                                        path=saved.path))
        for i, markdown in enumerate(result.table_markdown):
            html = result.table_html[i] if i < len(result.table_html) else None
            await ctx.emit(events.Table(markdown=markdown, html=html or None))
        return result
