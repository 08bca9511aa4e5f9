"""Errors of the tool system: one root, converted to each face's wire form at the edge.

::

    ToolError
     ├── ToolNotFound        no tool has that name
     ├── ToolUnavailable     the tool exists but failed validation (its reason is the message)
     ├── InvalidArguments    args do not match the tool's declared parameters
     ├── SettingsInvalid     a settings save was rejected; ``errors`` maps field -> message
     ├── ToolLoadError       a tool folder cannot be used; discovery lists it with this reason
     ├── VenvError           building a tool's virtual environment failed
     └── WorkerDied          a venv tool's child process exited in the middle of a call

A failure *inside* a tool's ``execute()`` is never raised: it becomes a result with
``success: false`` (a tool's failure is a result, not a crash).
"""

from __future__ import annotations

from shokunin.errors import ErrorCode, ShokuninError


class ToolError(ShokuninError):
    """Root of every error the tool system raises."""
    status = 400
    code = ErrorCode.BAD_REQUEST


class ToolNotFound(ToolError):
    """No tool with that name (folder name or function name)."""
    status = 404
    code = ErrorCode.NOT_FOUND


class ToolUnavailable(ToolError):
    """The tool was found but is listed with status "error"."""
    status = 409
    code = ErrorCode.TOOL_UNAVAILABLE


class InvalidArguments(ToolError):
    """The arguments do not satisfy the declaration's JSON Schema."""
    status = 422
    code = ErrorCode.INVALID_ARGS


class SettingsInvalid(ToolError):
    """A settings save was rejected; nothing was written."""
    status = 422
    code = ErrorCode.INVALID_REQUEST

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{k}: {v}" for k, v in errors.items()))
        self.errors = errors


class ToolLoadError(ToolError):
    """A tool folder cannot be used (syntax error, missing export, bad schema...)."""


class VenvError(ToolError):
    """Creating or updating a tool's private virtual environment failed."""
    status = 500
    code = ErrorCode.INTERNAL


class WorkerDied(ToolError):
    """The child process of a venv tool exited while a call was in flight."""
    status = 500
    code = ErrorCode.INTERNAL
