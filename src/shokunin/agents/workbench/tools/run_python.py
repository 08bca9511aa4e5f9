"""run_python: model-written code through the sandbox, which emits code and image events.

Images are held back until the turn's answer is out, because the seed orders a reply as
code, text, then images.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException

from shokunin import events as ev
from shokunin.agents.workbench.tools.run_of_call import run_deps
from shokunin.agents.workbench.tools.schemas import RunPythonArgs
from shokunin.runs import RunContext

TIMEOUT_SEC = 60.0
_SUMMARY_CHARS = 4000


class ImageHold:
    """A RunContext stand-in that keeps Image events back until ``release``."""

    def __init__(self, ctx: RunContext) -> None:
        self._ctx = ctx
        self.held: list[ev.BaseEvent] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self._ctx, name)

    async def emit(self, event: ev.BaseEvent) -> ev.BaseEvent:
        if isinstance(event, ev.Image):
            self.held.append(event)
            return event
        return await self._ctx.emit(event)

    def emit_threadsafe(self, event: ev.BaseEvent) -> None:
        loop = self._ctx._loop
        if loop is not None and not loop.is_closed():
            asyncio.run_coroutine_threadsafe(self.emit(event), loop)

    async def release(self) -> None:
        held, self.held = self.held, []
        for event in held:
            await self._ctx.emit(event)


def _summary(result: Any) -> str:
    """What the model needs of an ExecResult: outcome and text, not image bytes."""
    data = result.model_dump(mode="json") if hasattr(result, "model_dump") else dict(result)
    brief = {k: v for k, v in data.items() if isinstance(v, str | int | float | bool) or v is None}
    brief.update({k: f"{len(v)} items" for k, v in data.items() if isinstance(v, list)})
    return json.dumps(brief, ensure_ascii=False)[:_SUMMARY_CHARS]


class CellFailed(ToolException):
    """A cell that did not run to its end. The model reads the summary (stdout, stderr, the
    error); the step is recorded as failed, with its kind (``failure``) for the reply."""

    def __init__(self, summary: str, error_type: str | None, error_message: str | None
                 ) -> None:
        super().__init__(summary)
        self.failure = {"error_type": error_type, "error_message": error_message}


def run_python_tool() -> BaseTool:
    async def run_python(code: str) -> str:
        deps = run_deps()
        sandbox = deps.ctx.services.sandbox
        if not hasattr(sandbox, "run_in"):
            raise ToolException("the Python sandbox is not available on this server")
        from shokunin.sandbox import ExecPythonInput

        result = await sandbox.run_in(
            deps.hold, ExecPythonInput(code=code, timeout_sec=TIMEOUT_SEC), step=deps.step)
        if not result.ok:
            raise CellFailed(_summary(result), result.error_type, result.error_message)
        return _summary(result)

    return StructuredTool.from_function(
        coroutine=run_python, name="run_python", args_schema=RunPythonArgs,
        description="Runs Python code in a sandboxed Jupyter kernel (state persists across "
                    "calls in this conversation; numpy, pandas, matplotlib available; plots "
                    "are shown to the user). Returns stdout, errors and a summary.\n\nArgs:\n"
                    "    code: the Python code to run")
