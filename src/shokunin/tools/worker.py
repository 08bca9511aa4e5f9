"""The child process of a venv tool, and the export reader shared with the server.

Run as ``<tool>/.venv/bin/python worker.py serve|describe <entry>``. It runs under the tool's
own interpreter, where shokunin is not installed, so it uses the standard library only (and
``runtime.py`` beside it, loaded by path); the server imports ``load_module``,
``read_exports`` and ``progress_text`` from here for in-process tools, so both paths treat a
tool the same way. The wire protocol is described in ``child.py``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import socket
import sys
import threading
from types import ModuleType
from typing import Any

HERE = os.path.dirname(os.path.abspath(__file__))
TEXT_EXPORTS = ("TOOL_NAME", "TOOL_DESCRIPTION", "TOOL_ICON")
CALLED_EXPORTS = ("get_function_declaration", "get_settings_schema", "get_ui_info")
RUNTIME_KEY = "_runtime"  # the context entry the server fills for context["runtime"]


class ExportError(Exception):
    """A tool's module could not be imported or one of its export functions raised."""


def load_module(entry: str, module_name: str) -> ModuleType:
    """Import a tool's entry file; its folder is importable while it loads (helper modules)."""
    tool_dir = os.path.dirname(entry)
    spec = importlib.util.spec_from_file_location(module_name, entry)
    if spec is None or spec.loader is None:
        raise ExportError(f"cannot import {entry}")
    module = importlib.util.module_from_spec(spec)
    # A tool loaded again (its folder changed) imports its helper modules afresh, not the
    # copies an earlier load left in sys.modules.
    for name, loaded in list(sys.modules.items()):
        where = getattr(loaded, "__file__", None)
        if isinstance(where, str) and os.path.dirname(where) == tool_dir:
            del sys.modules[name]
    sys.modules[module_name] = module
    sys.path.insert(0, tool_dir)
    try:
        spec.loader.exec_module(module)
    except SyntaxError as exc:
        sys.modules.pop(module_name, None)
        raise ExportError(f"syntax error: {exc}") from None
    except BaseException as exc:  # a tool's SystemExit must not stop us either
        sys.modules.pop(module_name, None)
        raise ExportError(f"import failed: {describe_exception(exc)}") from None
    finally:
        if tool_dir in sys.path:
            sys.path.remove(tool_dir)
    return module


def read_exports(module: ModuleType) -> dict[str, Any]:
    """The contract's exports: text constants, the values the get_* functions return, and
    ``execute: True`` when execute is callable. Absent exports are absent keys."""
    exports: dict[str, Any] = {n: getattr(module, n) for n in TEXT_EXPORTS if hasattr(module, n)}
    for name in CALLED_EXPORTS:
        function = getattr(module, name, None)
        if function is None:
            continue
        if not callable(function):
            raise ExportError(f"{name} must be a function")
        try:
            exports[name] = function()
        except BaseException as exc:
            raise ExportError(f"{name}() raised {describe_exception(exc)}") from None
    if callable(getattr(module, "execute", None)):
        exports["execute"] = True
    return exports


def describe_exception(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def progress_text(message: Any = "", *more: Any, **fields: Any) -> str:
    """What a tool's ``message_callback(...)`` call says, however it was called: tools
    written for other hosts pass a string, several values, or a dict with a message."""
    if isinstance(message, dict):
        for key in ("message", "content", "text", "status"):
            if isinstance(message.get(key), str):
                return message[key]
        return json.dumps(message, ensure_ascii=False, default=str)
    parts = [str(message), *(str(m) for m in more)]
    for key in ("message", "content", "text"):
        if isinstance(fields.get(key), str):
            parts.append(fields[key])
    return " ".join(part for part in parts if part)


def _load_runtime() -> ModuleType:
    """``runtime.py`` from beside this file, without putting this folder on sys.path (its
    modules would shadow the tool's own and the standard library's, e.g. ``venv``)."""
    spec = importlib.util.spec_from_file_location("shokunin_tool_runtime",
                                                  os.path.join(HERE, "runtime.py"))
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _loopback_only() -> None:
    """A TCP socket bound to any address but loopback (``""``, ``0.0.0.0``, ``::``, a LAN
    address) is bound to loopback instead: a tool's own web UI (``context["ui_port"]``) is
    reached through the server's proxy only, never from the network. A courtesy for Python
    code, not a wall: native code calling bind(2) itself is not seen."""
    bind = socket.socket.bind

    def loopback_bind(self: socket.socket, address: Any) -> None:
        if (self.type == socket.SOCK_STREAM and isinstance(address, tuple) and address
                and self.family in (socket.AF_INET, socket.AF_INET6)
                and not _is_loopback(address[0])):
            host = "::1" if self.family == socket.AF_INET6 else "127.0.0.1"
            address = (host, *address[1:])
        bind(self, address)

    socket.socket.bind = loopback_bind  # type: ignore[method-assign]


def _is_loopback(host: Any) -> bool:
    return isinstance(host, str) and (host == "localhost" or host == "::1"
                                      or host.startswith("127."))


def main(argv: list[str]) -> int:
    mode, entry = argv[1], argv[2]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != HERE]
    runtime = _load_runtime()
    # The protocol owns the real stdout; a tool's print() (even from C code) goes to stderr.
    proto = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    lock = threading.Lock()

    def send_line(line: str) -> None:
        with lock:
            proto.write(line + "\n")
            proto.flush()

    def send(message: dict[str, Any]) -> None:
        send_line(json.dumps(message, ensure_ascii=False, default=repr))

    try:
        module = load_module(entry, "shokunin_venv_tool")
        exports = read_exports(module) if mode == "describe" else {}
    except ExportError as exc:
        send({"type": "load_error", "error": str(exc)})
        return 1
    if mode == "describe":
        send({"type": "described", "exports": exports})
        return 0
    _loopback_only()
    send({"type": "ready", "pid": os.getpid()})
    aborts: dict[str, threading.Event] = {}

    def run(request: dict[str, Any], abort_event: threading.Event) -> None:
        rid = request["id"]
        context = dict(request.get("context") or {})

        def message_callback(*args: Any, **kwargs: Any) -> None:
            send({"type": "progress", "id": rid, "message": progress_text(*args, **kwargs)})

        context["message_callback"] = message_callback
        context["abort_event"] = abort_event
        own = context.pop(RUNTIME_KEY, None) or {}
        context["runtime"] = runtime.Runtime(context.get("workspace") or os.getcwd(),
                                             shared=own.get("shared"),
                                             chat_id=context.get("chat_id"))
        try:
            result = module.execute(request.get("args") or {}, context)
        except BaseException as exc:
            send({"type": "result", "id": rid, "raised": describe_exception(exc)})
            return
        finally:
            aborts.pop(rid, None)
        try:
            line = json.dumps({"type": "result", "id": rid, "result": result},
                              ensure_ascii=False, allow_nan=False)
        except (TypeError, ValueError) as exc:
            send({"type": "result", "id": rid,
                  "malformed": f"result is not JSON-serialisable: {exc}"})
        else:
            send_line(line)

    for raw in sys.stdin.buffer:
        request = json.loads(raw.decode("utf-8"))
        if request.get("type") == "execute":
            event = aborts[request["id"]] = threading.Event()
            threading.Thread(target=run, args=(request, event), daemon=True).start()
        elif request.get("type") == "abort" and request.get("id") in aborts:
            aborts[request["id"]].set()
    return 0


if __name__ == "__main__":
    code = main(sys.argv)
    sys.stderr.flush()
    os._exit(code)  # do not wait for a hung tool thread
