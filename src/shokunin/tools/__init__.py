"""Tools (seed 003): discovery, validation, settings, private venvs and execution.

A tool is a folder ``<name>/<name>_tool.py`` exporting TOOL_NAME, TOOL_DESCRIPTION,
TOOL_ICON, get_function_declaration() and execute(args, context); see README "Writing a tool".
"""

from shokunin.tools.errors import (
    InvalidArguments,
    SettingsInvalid,
    ToolError,
    ToolLoadError,
    ToolNotFound,
    ToolUnavailable,
    VenvError,
    WorkerDied,
)
from shokunin.tools.info import ToolInfo
from shokunin.tools.leak_guard import install_log_masking, remember
from shokunin.tools.loader import LoadedTool, RemoteCall
from shokunin.tools.masking import MASK, mask_text
from shokunin.tools.registry import ToolRegistry
from shokunin.tools.remote import CONNECT_WAIT_SEC, MAX_NAME, RemoteTools
from shokunin.tools.runtime import Runtime, Workspace, WorkspacePathError
from shokunin.tools.scaffold import scaffold
from shokunin.tools.settings_store import SettingsStore
from shokunin.tools.tool_ui import ToolUi
from shokunin.tools.validation import ArgsValidator

__all__ = ["ArgsValidator", "CONNECT_WAIT_SEC", "InvalidArguments", "LoadedTool", "MASK",
    "MAX_NAME", "RemoteCall", "RemoteTools", "Runtime", "SettingsInvalid", "SettingsStore",
    "ToolError",
    "ToolInfo", "ToolLoadError", "ToolNotFound", "ToolRegistry", "ToolUi", "ToolUnavailable",
    "VenvError", "WorkerDied", "Workspace", "WorkspacePathError", "install_log_masking",
    "mask_text", "remember", "scaffold"]
