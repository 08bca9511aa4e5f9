"""Seed 004's contracts between the Analyst graph's nodes, with the seed's names.

The seed keeps the DataFrame in the graph state; here the data lives in the thread's
sandbox kernel (a DataFrame cannot be checkpointed), so the state holds the dataset's id,
where its file is and its profile, and every cell that ran.
"""

from __future__ import annotations

import warnings
from typing import Any, Literal

from pydantic import BaseModel, Field

from shokunin.sandbox import ExecResult

ReasonAction = Literal["ask_clarification", "run_code", "report"]
RouteAfterReasonOutput = Literal["run_code", "report", "__end__"]


class ReasonDecision(BaseModel):
    action: ReasonAction
    # required when action == "ask_clarification"
    clarification_question: str | None = None
    # required when action == "run_code": the task for run_code, in words (purpose, output,
    # columns, steps; after a failure, what to change)
    analysis_instruction: str | None = Field(default=None)


class ReasonNodeInput(BaseModel):
    messages: list[Any]
    dataset_id: str
    profile: dict[str, Any]
    last_exec: ExecResult | None = None
    last_code: str | None = None


class ReasonNodeOutput(BaseModel):
    decision: ReasonDecision


class RunCodeNodeInput(BaseModel):
    dataset_id: str
    analysis_instruction: str


class RunCodeNodeOutput(BaseModel):
    last_code: str
    last_exec: ExecResult


class ReportNodeInput(BaseModel):
    decision: ReasonDecision
    last_exec: ExecResult | None = None


# The seed names a field `json` (see sandbox/contracts.py): its name wins over pydantic's
# warning about the deprecated BaseModel.json().
with warnings.catch_warnings():
    warnings.filterwarnings("ignore", message='Field name "json"', category=UserWarning)

    class ReportOutput(BaseModel):
        summary: str
        plot_png_base64: list[str] = Field(default_factory=list)
        table_markdown: list[str] = Field(default_factory=list)
        json: list[Any] = Field(default_factory=list)


class ReportNodeOutput(BaseModel):
    report: ReportOutput


class RouteAfterReasonInput(BaseModel):
    decision: ReasonDecision


class Cell(BaseModel):
    """One execution of the run: its instruction, code and result (the seed's last_code /
    last_exec are the last of these)."""

    instruction: str
    code: str
    result: ExecResult
