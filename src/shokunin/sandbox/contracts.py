"""The exec_python contract of seed 004 (T-002): field names and bounds are the spec's."""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import BaseModel, Field


class ExecPythonInput(BaseModel):
    code: str = Field(..., description="Python code to run.")
    timeout_sec: int = Field(default=180, ge=1, le=300, description="Timeout in seconds.")
    max_output_chars: int = Field(
        default=20000, ge=1000, le=200000, description="Limit of stdout and stderr together.")
    context: dict = Field(
        default_factory=dict,
        description="Variables set before the code runs (JSON values or pandas DataFrames).")


# The seed names a field `json`, which shadows the deprecated BaseModel.json(); pydantic
# warns about that once, at class creation, and the spec's name wins.
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "json"', category=UserWarning)

    class ExecResult(BaseModel):
        """What one execution produced. Artifacts are carried inline, not as references."""

        ok: bool
        stdout: str = ""
        stderr: str = ""
        plot_png_base64: list[str] = Field(default_factory=list)
        table_markdown: list[str] = Field(default_factory=list)
        json: list[Any] = Field(default_factory=list)
        error_type: str | None = None
        error_message: str | None = None
        # Beyond the seed: the HTML form of each table in table_markdown, same order.
        table_html: list[str] = Field(default_factory=list)


class ExecPythonOutput(BaseModel):
    """Seed 004 T-002's output wrapper, for callers that speak the seed's tool contract."""

    result: ExecResult
