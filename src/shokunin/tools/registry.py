"""ToolRegistry: the one object the server, the CLI and agents use to reach tools."""

from __future__ import annotations

import asyncio
import builtins
import logging
import math
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from shokunin.errors import ErrorCode
from shokunin.events import BaseEvent
from shokunin.tools import leak_guard, venv
from shokunin.tools.discovery import Source, discover, fingerprint
from shokunin.tools.errors import InvalidArguments, ToolError, ToolNotFound, ToolUnavailable
from shokunin.tools.executor import Call, Executor
from shokunin.tools.info import ToolInfo
from shokunin.tools.loader import LoadedTool, load
from shokunin.tools.masking import mask_deep, mask_text
from shokunin.tools.remote import CONNECT_WAIT_SEC, MAX_NAME, RemoteTools
from shokunin.tools.results import failure
from shokunin.tools.settings_schema import unset_required
from shokunin.tools.settings_store import (
    MAX_TIMEOUT_SEC,
    TIMEOUT_KEY,
    SettingsStore,
    with_reserved,
)
from shokunin.tools.tool_ui import ToolUi
from shokunin.tools.ui_port import free_port
from shokunin.tools.worker import progress_text

if TYPE_CHECKING:
    from shokunin.config import Settings

log = logging.getLogger(__name__)

Progress = Callable[[str], None]


class ToolRegistry:
    """Discovers tools from folders (builtin first), keeps their settings, runs them.

    Discovery is synchronous and happens on construction and ``reload()``, and again on
    the next look (``list``, or a tool asked for by name) after a tool folder changed on
    disk (``refresh``): a tool made or edited while the server runs appears without a
    restart. A broken tool is listed with its reason and never stops the others. Each
    reason is logged as a warning unless ``log_unavailable`` is false (a face that shows
    the reasons itself, like the CLI, would otherwise print each one twice). The tools of
    configured MCP servers (``mcp``) join the list once ``connect()`` has opened their
    sessions, and follow them as they come and go.
    """

    def __init__(self, roots: Sequence[tuple[Path, Source]], settings_file: Path, *,
                 workspace_root: Path, default_timeout: float = 120.0,
                 log_unavailable: bool = True, mcp: RemoteTools | None = None,
                 storage_root: Path | None = None) -> None:
        if not _valid_timeout(default_timeout):
            raise ValueError(f"the default tool timeout must be a number of seconds above 0 and "
                             f"at most {MAX_TIMEOUT_SEC:g}, not {default_timeout!r}")
        self.roots = list(roots)
        self.log_unavailable = log_unavailable
        self.settings = SettingsStore(settings_file)
        self.workspace_root = workspace_root
        # runtime.shared_storage: <storage_root>/<tool>, kept across threads and restarts
        self.storage_root = storage_root or workspace_root.parent / "tool_storage"
        self.default_timeout = default_timeout
        self._executor = Executor()
        self._tools: dict[str, LoadedTool] = {}
        self._by_function: dict[str, LoadedTool] = {}
        self._shadowed: builtins.list[LoadedTool] = []
        self._folders: tuple[dict[str, LoadedTool], dict[str, LoadedTool],
                             builtins.list[LoadedTool]] = ({}, {}, [])
        self.mcp = mcp
        if mcp is not None:
            mcp.on_change = self._merge
        leak_guard.install_log_masking()
        self.reload()

    @classmethod
    def from_settings(cls, settings: Settings, *, log_unavailable: bool = True,
                      mcp: RemoteTools | None = None, folders: bool = True) -> ToolRegistry:
        """The builtin and configured folders' tools (none without ``folders``), and
        ``mcp``'s (the configured MCP servers', once ``connect()`` is awaited)."""
        roots: list[tuple[Path, Source]] = []
        if folders:
            roots += [(settings.builtin_tools_dir, "builtin")]
            roots += [(Path(d), "user") for d in settings.tools_dirs]
        return cls(roots, settings.tool_settings_file,
                   workspace_root=settings.data_dir / "workspaces",
                   default_timeout=settings.tool_timeout_sec, log_unavailable=log_unavailable,
                   mcp=mcp, storage_root=settings.data_dir / "tool_storage")

    @property
    def user_dirs(self) -> builtins.list[Path]:
        return [root for root, source in self.roots if source == "user"]

    def reload(self) -> None:
        """Discover and validate every tool again; running calls finish on the old code."""
        # read before the folders are: a change made while they load is seen next time
        self._seen = fingerprint(self.roots)
        tools: dict[str, LoadedTool] = {}
        by_function: dict[str, LoadedTool] = {}
        shadowed: builtins.list[LoadedTool] = []
        for candidate in discover(self.roots):
            tool = load(candidate)
            if candidate.name in tools:
                tool.info.status = "error"
                tool.info.error = (f"duplicate tool name {candidate.name!r}: already loaded "
                                   f"from {tools[candidate.name].tool_dir}")
                if self.log_unavailable:
                    log.warning("tool %s (%s): %s", candidate.name, candidate.tool_dir,
                                tool.info.error)
                shadowed.append(tool)  # listed with its reason; the first keeps the name
                continue
            function = tool.info.function_name
            if tool.info.ok and function in by_function:
                tool.info.status = "error"
                tool.info.error = (f"duplicate function name {function!r}: already used by "
                                   f"tool {by_function[function].name!r}")
            elif tool.info.ok and function:
                by_function[function] = tool
            if not tool.info.ok and self.log_unavailable:
                log.warning("tool %s is unavailable: %s", candidate.name, tool.info.error)
            tools[candidate.name] = tool
        self._executor.stop_workers()
        self._folders = (tools, by_function, shadowed)
        self._merge()

    async def connect(self, wait: float = CONNECT_WAIT_SEC) -> None:
        """Open the sessions with the configured MCP servers, waiting up to ``wait`` s for
        their first answers; their tools join the list as each answers, later ones too."""
        if self.mcp is not None:
            await self.mcp.start(wait)

    def _merge(self) -> None:
        """The folders' tools, then the MCP servers' (a name already taken stays with the
        first).

        Who holds a name never depends on which servers are connected at the moment: an MCP
        tool whose name a folder tool has, or that an earlier-configured server could also
        produce (server ``a``'s tool ``b__c`` and server ``a__b``'s tool ``c`` are both
        ``a__b__c``), takes the name with a ``_`` in front, whether or not the other is up.
        So a server that reconnects finds its names where it left them.
        """
        folder_tools, folder_functions, folder_shadowed = self._folders
        tools, by_function = dict(folder_tools), dict(folder_functions)
        shadowed = list(folder_shadowed)
        servers = [server.name for server in self.mcp.servers] if self.mcp is not None else []
        for tool in self.mcp.loaded() if self.mcp is not None else []:
            if tool.info.ok and tool.remote is not None and _claimed_elsewhere(
                    tool, servers, folder_tools, folder_functions):
                _rename(tool, f"_{tool.name}"[:MAX_NAME])
            function = tool.info.function_name
            if tool.name in tools or (function and function in by_function):
                taken = f"the name {tool.name!r} is already taken by another tool"
                # A down server's entry keeps why it is down: that is what to fix first.
                tool.info.error = taken if tool.info.ok else f"{tool.info.error} ({taken})"
                tool.info.status = "error"
                tool.remote = None
                shadowed.append(tool)
                continue
            tools[tool.name] = tool
            if tool.info.ok and function:
                by_function[function] = tool
        self._tools, self._by_function, self._shadowed = tools, by_function, shadowed
        for tool in tools.values():
            self._secrets(tool)

    def refresh(self) -> bool:
        """Reload when a tool folder changed since the last look (``discovery.fingerprint``:
        a stat of each folder's files, no reading); True when it did."""
        if fingerprint(self.roots) == self._seen:
            return False
        self.reload()
        return True

    def list(self) -> builtins.list[ToolInfo]:
        self.refresh()
        for tool in self._tools.values():
            self._note_settings(tool)
        return [tool.info for tool in [*self._tools.values(), *self._shadowed]]

    def get(self, name: str) -> ToolInfo:
        """By folder name, or by function name (what a model calls it)."""
        tool = self._tool(name)
        self._note_settings(tool)
        return tool.info

    def get_settings(self, name: str) -> dict[str, Any]:
        """``{"schema", "values", "errors"}`` with secrets masked: safe to send anywhere.

        ``errors`` maps a field whose stored value is unusable (the default is used) to why.
        """
        tool = self._tool(name)
        schema = self._schema(tool)
        return {"schema": self.settings.schema_view(tool.name, schema),
                "values": self.settings.masked(tool.name, schema),
                "errors": self.settings.problems(tool.name, schema)}

    def save_settings(self, name: str, values: Any) -> dict[str, Any]:
        """Validate and store; returns the masked values. Raises SettingsInvalid."""
        return self.update_settings(name, values)[0]

    def update_settings(self, name: str, values: Any) -> tuple[dict[str, Any], builtins.list[str]]:
        """``save_settings``, also returning the secrets the save cleared (a URL setting
        that moved to another host takes no stored secret with it: ``SettingsStore.save``)."""
        tool = self._tool(name)
        schema = self._schema(tool)
        cleared = self.settings.save(tool.name, schema, values)
        self._secrets(tool)
        return self.settings.masked(tool.name, schema), cleared

    def validate_args(self, name: str, args: Any) -> None:
        """Raise InvalidArguments when args do not fit the declaration."""
        tool = self._usable(name)
        assert tool.check_args is not None
        tool.check_args(args)

    def ui_file(self, name: str) -> Path:
        """The tool's UI page; ToolError when it has none."""
        tool = self._tool(name)
        path = tool.ui_file
        if path is None or not path.is_relative_to(tool.tool_dir) or not path.is_file():
            raise ToolError(f"tool {tool.name!r} has no UI", status=404,
                            code=ErrorCode.NOT_FOUND)
        return path

    async def setup(self, name: str, progress: Progress | None = None) -> ToolInfo:
        """Build a venv tool's environment now, then re-read the tool from it."""
        tool = self._tool(name)
        if not tool.info.has_venv:
            return tool.info
        await asyncio.to_thread(self._executor.prepare, tool, progress)
        self.reload()
        return self._tool(tool.name).info

    async def execute(self, name: str, args: dict[str, Any], *, thread_id: str | None = None,
                      workspace: Path | str | None = None, progress: Progress | None = None,
                      abort: threading.Event | None = None, timeout: float | None = None,
                      emit: Callable[[BaseEvent], None] | None = None,
                      execution_id: str | None = None) -> dict[str, Any]:
        """Run a tool; always returns the result dict (seed shape + ``execution_id``).

        Raises only ToolNotFound / ToolUnavailable: everything that goes wrong inside the
        call is a result with ``success: false``.
        """
        tool = self._usable(name)
        execution_id = execution_id or uuid.uuid4().hex
        schema = self._schema(tool)
        values = self.settings.effective(tool.name, schema)
        secrets = self._secrets(tool)
        if timeout is None:
            timeout = float(values.get(TIMEOUT_KEY) or self.default_timeout)
        if not _valid_timeout(timeout):
            return failure(f"timeout must be a number of seconds above 0 and at most "
                           f"{MAX_TIMEOUT_SEC:g}", execution_id)
        try:
            assert tool.check_args is not None
            tool.check_args(args)
        except InvalidArguments as exc:
            return failure(str(exc), execution_id)
        # absolute: a tool in its own process runs in its own folder
        space = (Path(workspace) if workspace
                 else self.workspace_root / (thread_id or "_tools")).resolve()
        space.mkdir(parents=True, exist_ok=True)
        context: dict[str, Any] = {
            "tool_dir": str(tool.tool_dir),
            "settings": {k: v for k, v in values.items() if k in tool.settings_schema},
            "execution_id": execution_id,
            "has_venv": tool.info.has_venv,
            "venv_python": str(venv.venv_python(tool.tool_dir)) if tool.info.has_venv else None,
            "workspace": str(space),
            "chat_path": str(space),  # the origin's name for the conversation's folder
        }
        if thread_id:
            context["chat_id"] = thread_id
        if tool.info.has_ui and tool.remote is None:
            # its own web UI, in a child process the API proxies to (tool_ui.py)
            context["ui_port"] = free_port()
        elif emit is not None and tool.module is not None:  # runs in-process
            context["emit"] = _checked_emit(emit, secrets)
        call = Call(execution_id, args, context, timeout,
                    allowed=[tool.tool_dir, space], secrets=secrets,
                    progress=_safe_progress(progress, secrets), abort=abort,
                    shared=None if tool.remote else (self.storage_root / tool.name).resolve())
        return await self._executor.run(tool, call)

    def live_ui(self, name: str, execution_id: str) -> ToolUi:
        """The live UI that execution of the tool ``name`` started; ToolError (404) when
        there is none (never started, stopped, expired, or another tool's)."""
        tool = self._tool(name)
        ui = self._executor.uis.get(execution_id)
        if ui is None or ui.tool != tool.name:
            raise ToolError(f"no live UI of tool {tool.name!r} for execution "
                            f"{execution_id[:100]!r}", status=404, code=ErrorCode.NOT_FOUND)
        return ui

    def ui_by_key(self, name: str, execution_id: str, key: str) -> ToolUi | None:
        """The live UI of that execution of ``name`` when ``key`` is its secret; None
        otherwise (no such UI, another tool's, or a wrong key)."""
        tool = self._tools.get(name) or self._by_function.get(name)
        ui = self._executor.uis.get(execution_id) if tool is not None else None
        if ui is None or ui.tool != tool.name or not ui.opens(key):
            return None
        return ui

    def stop_ui(self, name: str, execution_id: str) -> None:
        """Stop that execution's UI (its process ends); ToolError (404) when none is live."""
        self.live_ui(name, execution_id)
        self._executor.uis.stop(execution_id)

    async def abort(self, execution_id: str) -> bool:
        """Abort a running call; False when no call has that id (finished or unknown)."""
        return self._executor.abort(execution_id)

    async def close(self) -> None:
        """Abort running calls, stop every warm child process, close the MCP sessions."""
        self._executor.close()
        if self.mcp is not None:
            await self.mcp.close()

    def _tool(self, name: str) -> LoadedTool:
        self.refresh()
        tool = self._tools.get(name) or self._by_function.get(name)
        if tool is None:
            raise ToolNotFound(f"no tool named {name!r}")
        return tool

    def _usable(self, name: str) -> LoadedTool:
        tool = self._tool(name)
        if not tool.info.ok:
            raise ToolUnavailable(f"tool {tool.name!r} is unavailable: {tool.info.error}")
        return tool

    def _schema(self, tool: LoadedTool) -> dict[str, dict[str, Any]]:
        return with_reserved(tool.settings_schema, self.default_timeout)

    def _note_settings(self, tool: LoadedTool) -> None:
        """Set which required settings the tool still lacks, read at each look: the settings
        file may have changed since (``shokunin tools settings``, another process)."""
        if not tool.settings_schema:
            return
        values = self.settings.effective(tool.name, self._schema(tool))
        tool.info.needs_settings = [
            [{"key": key, "label": str(tool.settings_schema[key].get("label") or key)}
             for key in group]
            for group in unset_required(tool.settings_schema, values)]

    def _secrets(self, tool: LoadedTool) -> builtins.list[str]:
        """The tool's secret texts, also handed to the log and stdout guards."""
        secrets = self.settings.secrets(tool.name, self._schema(tool))
        leak_guard.remember(secrets)
        return secrets


def _claimed_elsewhere(tool: LoadedTool, servers: builtins.list[str],
                       folder_tools: dict[str, LoadedTool],
                       folder_functions: dict[str, LoadedTool]) -> bool:
    """Whether a folder tool, or a server configured before the tool's own, may hold its
    name (by configuration alone, not by who is connected now)."""
    name = tool.name
    if name in folder_tools or name in folder_functions:
        return True
    own = tool.info.server
    earlier = servers[:servers.index(own)] if own in servers else []
    return any(name == server or name.startswith(f"{server}__") for server in earlier)


def _rename(tool: LoadedTool, name: str) -> None:
    """Give an MCP tool another name; its caller still asks the server for the original."""
    info = tool.info
    info.name = info.function_name = name
    if info.declaration is not None:
        info.declaration = {**info.declaration, "name": name}


def _valid_timeout(value: Any) -> bool:
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and 0 < value <= MAX_TIMEOUT_SEC)


def _safe_progress(progress: Progress | None, secrets: builtins.list[str]
                   ) -> Callable[..., None]:
    """The tool's ``message_callback``: always present, however the tool calls it."""
    def report(*args: Any, **kwargs: Any) -> None:
        if progress is None:
            return
        try:
            with leak_guard.uncaptured():
                progress(mask_text(progress_text(*args, **kwargs), secrets))
        except Exception:  # a broken listener must not fail the tool
            log.exception("progress listener failed")

    return report


def _checked_emit(
    emit: Callable[[BaseEvent], None], secrets: builtins.list[str]
) -> Callable[[BaseEvent], None]:
    def checked(event: BaseEvent) -> None:
        if not isinstance(event, BaseEvent):
            raise TypeError("emit() takes a shokunin.events Event, "
                            f"not {type(event).__name__}")
        if secrets:  # a tool's events reach clients: no secret goes with them
            try:
                event = type(event).model_validate(mask_deep(event.model_dump(), secrets))
            except ValidationError:  # a number field held a secret: the mask cannot go there
                raise ValueError("this event carries a secret setting value in a field that "
                                 "cannot be masked; it was not sent") from None
        with leak_guard.uncaptured():
            emit(event)

    return checked
