"""Parsers of untrusted input run in a child process that may use only so much memory,
CPU and time, so that a file built to explode (a zip bomb, a billion repeated strings, a
codec that inflates) costs the child, never the server.

Each call forks one child from a ``multiprocessing`` forkserver: the forkserver is a fresh,
single-threaded interpreter that has imported the parsers once (``preload``), so a child
starts in milliseconds without the server's threads, sockets or memory, and descriptors are
handed to it over a Unix socket (``Descriptor``), not by name. The child lowers its own
``RLIMIT_AS`` (its address space at start plus ``Bounds.memory_bytes``) and ``RLIMIT_CPU``
before it runs the parser; the parent waits at most ``Bounds.wall_seconds`` and then kills
it, and reads at most ``Bounds.result_bytes`` of its answer. At most ``Bounds.children``
children run at once (the others wait for a slot), so their memory together is bounded too.
A pool (``ProcessPoolExecutor``) would keep a worker's memory and limits between calls
and cannot kill one call without breaking the pool; a plain subprocess would import the
parsers again on every call (about a second).
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import pickle
import resource
import shlex
import shutil
import signal
import sys
import tempfile
import threading
import time
import types
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from multiprocessing import forkserver, reduction
from multiprocessing.connection import Connection
from typing import Any, TypeVar

from shokunin.errors import ErrorCode, ShokuninError

T = TypeVar("T")
_PRELOAD: list[str] = []
_ENV: dict[str, str] = {}
_context: Any = None
_starting = threading.Lock()
_channel: Connection | None = None  # in a child: the pipe to the parent


class BoundExceeded(ShokuninError):
    """The parser went past one of its bounds and was stopped."""
    status = 400
    code = ErrorCode.BAD_REQUEST


class OutOfMemory(BoundExceeded):
    """The parser needed more memory than it may have (or died trying)."""


class OutOfTime(BoundExceeded):
    """The parser ran longer than it may (CPU or wall-clock time)."""
    code = ErrorCode.TOO_SLOW


class ResultTooLarge(BoundExceeded):
    """The parser's answer (or exception) is larger than the parent takes."""
    code = ErrorCode.TOO_LARGE


class Cancelled(Exception):
    """The caller gave up (``cancel`` was set) while the parse waited or ran."""


@dataclass(frozen=True)
class Bounds:
    """What one parse may use: memory on top of what the child starts with, CPU seconds,
    wall-clock seconds after which it is killed, and bytes of its pickled answer; and how
    many children with the same ``children`` may run at once."""

    memory_bytes: int = 1024 * 1024 * 1024
    cpu_seconds: int = 300
    wall_seconds: float = 300.0
    result_bytes: int = 16 * 1024 * 1024
    children: int = 2


_slots: dict[int, threading.BoundedSemaphore] = {}
_WAIT_STEP = 0.1  # seconds between two looks at ``cancel``


class Descriptor:
    """An open file descriptor handed to the child (duplicated over the forkserver's socket).
    In the child, ``fd`` is its own number and ``path`` a name that opens the same file for
    a library that only takes paths."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    @property
    def path(self) -> str:
        return f"/proc/self/fd/{self.fd}"

    def __reduce__(self) -> tuple[Any, ...]:
        return _rebuild, (reduction.DupFd(self.fd),)


def _rebuild(dup: Any) -> Descriptor:
    return Descriptor(dup.detach())


def preload(*modules: str, env: dict[str, str] | None = None) -> None:
    """Modules the forkserver imports once, before its first child (the parsers), and
    environment variables it starts with (e.g. an allocator that reserves address space
    up front, which would meet RLIMIT_AS before any real use, told not to)."""
    for module in modules:
        if module not in _PRELOAD:
            _PRELOAD.append(module)
    _ENV.update(env or {})


def _start() -> Any:
    """The forkserver context, its server started with an environment built from nothing
    but ``_ENV`` (no secret of the server's reaches a parser, not even in the memory a
    child inherits), through a script that runs Python with it. The script stays for the
    life of this process: multiprocessing starts its helpers again with it whenever one
    died (this process starts none of its own)."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(_PRELOAD)
    folder = tempfile.mkdtemp(prefix="shokunin-parsers-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    clean = os.path.join(folder, "python")
    env = {"PATH": os.defpath, "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **_ENV}
    with open(clean, "w", encoding="utf-8") as f:
        f.write("#!/bin/sh\nexec /usr/bin/env -i "
                + " ".join(shlex.quote(f"{k}={v}") for k, v in env.items())
                + f" {shlex.quote(sys.executable)} \"$@\"\n")
    os.chmod(clean, 0o700)
    context.set_executable(clean)
    with _main_hidden():
        forkserver.ensure_running()
    return context


def report(message: Any) -> None:
    """From a child's parser: send ``message`` to the parent's ``on_message`` (progress)."""
    if _channel is not None:
        _channel.send(("message", message))


def run(fn: Callable[..., T], *args: Any, bounds: Bounds = Bounds(),
        on_message: Callable[[Any], None] | None = None,
        on_wait: Callable[[], None] | None = None,
        cancel: threading.Event | None = None,
        confine: Callable[[list[int]], None] | None = None) -> T:
    """``fn(*args)`` in a bounded child; its result, or the exception it raised. Raises
    ``OutOfMemory``/``OutOfTime``/``ResultTooLarge`` when it passed a bound, ``Cancelled``
    once ``cancel`` is set (a running child is killed). When all ``bounds.children`` slots
    are taken it waits for one, calling ``on_wait`` first. ``confine`` (picklable) walls
    the child in before ``fn`` runs, given the descriptors among ``args``; the child does
    not run ``fn`` if it fails. Blocks: call it in a thread."""
    with _starting:
        slots = _slots.setdefault(bounds.children, threading.BoundedSemaphore(bounds.children))
    if not slots.acquire(blocking=False):
        if on_wait is not None:
            on_wait()
        while not slots.acquire(timeout=_WAIT_STEP):
            if cancel is not None and cancel.is_set():
                raise Cancelled("the parse was cancelled while it waited for a slot")
    try:
        return _run_child(fn, args, bounds, on_message, cancel, confine)
    finally:
        slots.release()


def _run_child(fn: Callable[..., T], args: tuple[Any, ...], bounds: Bounds,
               on_message: Callable[[Any], None] | None, cancel: threading.Event | None,
               confine: Callable[[list[int]], None] | None) -> T:
    global _context
    with _starting:
        if _context is None:
            _context = _start()
    receive, send = _context.Pipe(duplex=False)
    child = _context.Process(target=_child, args=(send, bounds, fn, args, confine),
                             daemon=True)
    deadline = time.monotonic() + bounds.wall_seconds
    with _starting, _main_hidden():
        child.start()
    send.close()
    try:
        while True:
            if cancel is not None and cancel.is_set():
                raise Cancelled("the parse was cancelled")
            left = deadline - time.monotonic()
            if left <= 0:
                raise OutOfTime(f"took longer than {bounds.wall_seconds:g} s")
            if not receive.poll(min(left, _WAIT_STEP)):
                continue
            try:  # never more than the bound in this process, however much the child sends
                kind, value = reduction.ForkingPickler.loads(
                    receive.recv_bytes(bounds.result_bytes))
            except EOFError:  # the child died without an answer
                child.join()
                raise _death(child.exitcode, bounds) from None
            except OSError:  # "bad message length": longer than result_bytes
                raise ResultTooLarge(f"answered more than {bounds.result_bytes // 2**20} MiB"
                                     ) from None
            if kind == "message":
                if on_message is not None:
                    on_message(value)
            elif kind == "ok":
                return value  # type: ignore[no-any-return]
            else:
                raise value
    finally:
        receive.close()
        if child.is_alive():
            child.kill()
        child.join()


@contextlib.contextmanager
def _main_hidden() -> Iterator[None]:
    """Hide ``__main__`` while a child is launched: multiprocessing tells every child to run
    the main script again (as ``__mp_main__``), which for ``shokunin serve`` imports the
    whole CLI, seconds per parse. The parsers come from the forkserver's preloaded modules;
    a parser defined in ``__main__`` is not supported."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main


def _death(exitcode: int | None, bounds: Bounds) -> BoundExceeded:
    if exitcode == -signal.SIGXCPU:
        return OutOfTime(f"used more than {bounds.cpu_seconds} s of CPU")
    # Past RLIMIT_AS, C and Rust parsers abort (SIGABRT) or crash instead of raising
    return OutOfMemory(f"needed more than {bounds.memory_bytes // 2**20} MiB of memory "
                       f"(the parser stopped with exit code {exitcode})")


def _address_space() -> int:
    """The child's mapped bytes now (VmSize), which its limit is added to."""
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


class Unconfined(ShokuninError, RuntimeError):
    """The child's walls could not be built: it did not parse."""
    status = 503
    code = ErrorCode.UNAVAILABLE


def _child(channel: Connection, bounds: Bounds, fn: Callable[..., Any],
           args: tuple[Any, ...], confine: Callable[[list[int]], None] | None) -> None:
    global _channel
    _channel = channel
    if confine is not None:
        try:
            confine([arg.fd for arg in args if isinstance(arg, Descriptor)])
        except BaseException as exc:  # noqa: BLE001 - whatever it was, no parse without walls
            channel.send(("error", Unconfined(f"the parser's walls could not be built: "
                                              f"{type(exc).__name__}: {exc}")))
            return
    limit = _address_space() + bounds.memory_bytes
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    resource.setrlimit(resource.RLIMIT_CPU, (bounds.cpu_seconds, bounds.cpu_seconds + 5))
    try:
        result = ("ok", fn(*args))
    except MemoryError:
        result = ("error", OutOfMemory(
            f"needed more than {bounds.memory_bytes // 2**20} MiB of memory"))
    except Exception as exc:  # the parser's own error, raised again in the parent
        result = ("error", exc if _travels(exc) else RuntimeError(f"{type(exc).__name__}: {exc}"))
    channel.send(result)


def _travels(exc: Exception) -> bool:
    """Whether the exception survives the pipe (some libraries' do not unpickle)."""
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return False
    return True
