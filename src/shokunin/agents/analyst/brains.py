"""The Analyst's brains: OfflineBrain plans with a grammar (``offline``); LLMBrain
asks a chat model for a structured ReasonDecision, the code, and the report."""

from __future__ import annotations

import re

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.constants import TAG_NOSTREAM

from shokunin.agents.analyst import answer, kernel_code
from shokunin.agents.analyst import offline as planner
from shokunin.agents.analyst.contracts import Cell, ReasonDecision
from shokunin.agents.analyst.storage import DatasetRecord
from shokunin.agents.outcomes import cell_failure
from shokunin.models import ask_structured

_OUTPUT_CHARS = 1500  # of a cell's output shown to the model or in a report


def _failure(cell: Cell) -> str:
    r = cell.result
    said = f"{r.error_type}: {r.error_message}" if r.error_type else (r.stderr or "failed")[-300:]
    if r.error_type in ("MemoryError", "ArrowMemoryError"):
        said += (" (the table does not fit in the sandbox kernel's memory, "
                 "SHOKUNIN_SANDBOX_MEMORY_MB)")
    return said


class OfflineBrain:
    """No model: the planner's code, run once; a failure is reported, not guessed at."""

    name = "offline"

    async def decide(self, question: str, record: DatasetRecord, cells: list[Cell],
                     max_attempts: int) -> ReasonDecision:
        if cells:  # the planner's code ran: a second try would run the same code
            return ReasonDecision(action="report")
        task = planner.plan(question, record.profile, record.original_name)
        if isinstance(task, planner.Clarify):
            return ReasonDecision(action="ask_clarification", clarification_question=task.question)
        if isinstance(task, planner.NotUnderstood):
            return ReasonDecision(action="report")  # summarize() says what and why
        return ReasonDecision(action="run_code", analysis_instruction=task.instruction)

    async def write_code(self, question: str, instruction: str, record: DatasetRecord,
                         cells: list[Cell]) -> str:
        task = planner.plan(question, record.profile, record.original_name)
        assert isinstance(task, planner.Task)  # decide() chose run_code for this question
        if record.parquet_path is not None and task.columns is not None:
            return kernel_code.table_reader(task.columns) + task.code
        return task.code

    async def summarize(self, question: str, record: DatasetRecord, cells: list[Cell]) -> str:
        ja = planner.is_ja(question)
        if not cells:
            task = planner.plan(question, record.profile, record.original_name)
            if isinstance(task, planner.Clarify):  # still unclear after the questions asked
                task = planner.NotUnderstood(
                    f"まだ決まっていないこと: {task.question}" if ja else
                    f"still open: {task.question}")
            assert isinstance(task, planner.NotUnderstood)  # decide() chose to report
            return planner.explain(question, task, [c.name for c in record.profile.columns])
        cell = cells[-1]
        if not cell.result.ok:
            said = cell_failure(cell.result.error_type, cell.result.error_message, ja)
            if cell.result.error_type == "CannotAnswer":  # the table cannot answer it: why
                return said
            return (f"分析は失敗しました（{cell.instruction}）。{said}" if ja else
                    f"The analysis failed ({cell.instruction}). {said}")
        kept = answer.find(cell.result.json)  # what the cell computed, with what was asked
        if kept is not None and (said := answer.write(
                kept, ja, {c.name: c for c in record.profile.columns})):
            return said
        body = "\n\n".join([*cell.result.table_markdown,
                            *([] if cell.result.table_markdown else
                              [f"```\n{cell.result.stdout[:_OUTPUT_CHARS].strip()}\n```"])])
        return f"{cell.instruction}\n\n{body}"


class LLMBrain:
    """A chat model decides (structured output), writes the code from the profile, and
    writes the report from the question and the cells' results."""

    name = "llm"

    def __init__(self, model: BaseChatModel) -> None:
        self.model = model

    def _context(self, question: str, record: DatasetRecord, cells: list[Cell]) -> str:
        done = "\n\n".join(
            f"Cell {i}: {c.instruction}\n```python\n{c.code}\n```\nok={c.result.ok} "
            f"output:\n{c.result.stdout[:_OUTPUT_CHARS]}"
            + (f"\nerror: {_failure(c)}" if not c.result.ok else "")
            for i, c in enumerate(cells, start=1))
        return (f"Question: {question}\n\nThe table `df` (file {record.original_name}):\n"
                f"{record.profile.model_dump_json(exclude={'sample_rows'})}\n\n"
                f"Sample rows: {record.profile.sample_rows}\n\nCells so far:\n{done or '(none)'}")

    async def decide(self, question: str, record: DatasetRecord, cells: list[Cell],
                     max_attempts: int) -> ReasonDecision:
        if len(cells) >= max_attempts and not cells[-1].result.ok:
            return ReasonDecision(action="report")  # the report says what failed
        asked = await ask_structured(self.model, ReasonDecision, [
            SystemMessage("You analyse a table with pandas. Decide the next step: "
                          "run_code (give analysis_instruction: purpose, output tables or "
                          "plots, columns, steps; after a failed cell, what to change), "
                          "report (the cells answer the question), or ask_clarification "
                          "(the question is too vague or names a column that does not exist; "
                          "give clarification_question)."),
            HumanMessage(self._context(question, record, cells))])
        if asked.parsed is not None:
            return asked.parsed
        # No decision could be read: analyse the question itself first, then report.
        if cells:
            return ReasonDecision(action="report")
        return ReasonDecision(action="run_code", analysis_instruction=question)

    async def write_code(self, question: str, instruction: str, record: DatasetRecord,
                         cells: list[Cell]) -> str:
        large = ("The table is large: start the cell with `df = _read_table([...])`, naming "
                 "only the columns it needs, so that only those are read. "
                 if record.parquet_path is not None else "")
        # the cell's code is shown as code, not streamed as the answer's text
        reply = await self.model.with_config(tags=[TAG_NOSTREAM]).ainvoke([
            SystemMessage("Write Python for a Jupyter cell where `df` (pandas) is the table "
                          "and `pd` is pandas. Append result tables as Markdown strings to "
                          "TABLE_MARKDOWN (use _md(frame): it formats the numbers), "
                          "structured results to JSON_OUT; plots are captured with "
                          "plt.show(). A person reads the tables and plots: name their "
                          "columns, axes and titles in the question's language, never with "
                          "code names (index, sum, mean, value); put rates (%) on a second "
                          f"axis (ax.twinx()) beside amounts. {large}"
                          "Reply with the code only."),
            HumanMessage(f"{self._context(question, record, cells)}\n\nTask: {instruction}")])
        text = str(reply.content).strip()
        if text.startswith("```"):
            text = text.split("\n", 1)[1].rsplit("```", 1)[0]
        return text

    async def summarize(self, question: str, record: DatasetRecord, cells: list[Cell]) -> str:
        reply = await self.model.ainvoke([
            SystemMessage(REPORT_PROMPT), HumanMessage(self._context(question, record, cells))])
        return with_table(str(reply.content).strip(), cells)


# What a person reads (DESIGN.md section 4): the answer first, numbers formatted, no code.
REPORT_PROMPT = (
    "Answer the question from the cells' results only, for the person who asked it. Start "
    "with the answer: one sentence that states the number or the finding, in the language "
    "of the question (「売上の合計は 1,001,300 円です。」). Write numbers as a person reads "
    "them: thousands separators (1,234,567), at most two decimals (211.11), rates and "
    "shares with % (-8.2%), the currency where the column is money (円 for yen). Call "
    "columns by their names; never write code, code identifiers or internal names (df, "
    "TABLE_MARKDOWN, JSON_OUT, _md, run_code, index, dtype, NaN, None, variable or function "
    "names). The cell's result table is shown under your answer: do not repeat it; add a "
    "short table only when the answer needs one that is not there. If a cell failed and "
    "nothing answered the question, say so plainly, in words.")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$", re.MULTILINE)


def with_table(report: str, cells: list[Cell]) -> str:
    """A model's report with the last cell's first table under it, unless the report has a
    table of its own: the answer shows one table, once."""
    last = cells[-1].result if cells else None
    if last is None or not last.ok or not last.table_markdown or _TABLE_RULE.search(report):
        return report
    return f"{report}\n\n{last.table_markdown[0]}"
