"""The Analyst's datasets, the use cases every face calls (REST, MCP's ``ask_analyst``,
``shokunin analyze``): upload a table into a thread, find a dataset the caller may see,
ask a question about it, preview it, delete it, and download a run's report or the whole
session's (an Analyst thread: every question in order).

An upload that is refused (a file that is not a table, too large, or a caller that left)
leaves nothing behind: a thread the upload made for it is deleted again.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from shokunin import events as ev
from shokunin.agents.analyst import report_files
from shokunin.agents.analyst.agent import MAX_QUESTION_CHARS, NAME, UnknownDataset
from shokunin.agents.analyst.dataset import ReadOptions
from shokunin.agents.analyst.errors import DatasetError
from shokunin.agents.analyst.isolated import ParseLimits, Walls
from shokunin.agents.analyst.storage import DatasetRecord, DatasetStorage, Preview
from shokunin.config import Settings
from shokunin.errors import ErrorCode
from shokunin.runs import InvalidRunInput, Runner, RunNotFound, access, delete_thread


class Datasets:
    """The datasets of one engine, as a caller (``who``, a principal) may use them."""

    def __init__(self, runner: Runner, settings: Settings,
                 walls: Callable[[], Walls] | None = None) -> None:
        """``walls``: what walls each upload's parse child in (the sandbox's)."""
        self.runner = runner
        self.max_upload_bytes = int(settings.analyst_max_upload_mb * 1024 * 1024)
        self.storage = DatasetStorage(runner, int(settings.analyst_pandas_max_mb * 1024 * 1024),
                                      ParseLimits.from_settings(settings, walls))

    async def upload(self, who: str | None, thread_id: str | None, name: str,
                     upload: BinaryIO, options: ReadOptions | None = None) -> DatasetRecord:
        """Keep the table in the Analyst thread ``thread_id`` (which ``who`` must see), or in
        a new thread titled ``name``. ``DatasetError`` for a file that is not a usable table."""
        thread_id, created = await access.thread_for(self.runner.store, who, thread_id,
                                                     agent=NAME, title=name)
        try:
            return await self.storage.add(thread_id, name, upload, options or ReadOptions())
        except BaseException:
            if created:  # shielded: a caller that left must still leave no empty thread
                await asyncio.shield(delete_thread(self.runner, thread_id))
            raise

    async def upload_file(self, who: str | None, path: Path) -> DatasetRecord:
        """``upload`` of a local file (the CLI, MCP over stdio) into a new thread, within the
        same size limit as an upload over HTTP. Its errors do not repeat the file's name: a
        face says it first."""
        if not path.is_file():
            raise DatasetError("no such file", code=ErrorCode.NOT_FOUND, status=404)
        if path.stat().st_size > self.max_upload_bytes:
            raise DatasetError(f"larger than {self.max_upload_bytes} bytes "
                               "(SHOKUNIN_ANALYST_MAX_UPLOAD_MB)", code=ErrorCode.TOO_LARGE,
                               status=413)
        with path.open("rb") as upload:
            return await self.upload(who, None, path.name, upload)

    async def visible(self, who: str | None, dataset_id: str) -> DatasetRecord:
        """The dataset if ``who`` may see its thread; ``UnknownDataset`` otherwise."""
        record = await self.storage.get(dataset_id)
        if record is not None and await access.sees(self.runner.store, who, record.thread_id):
            return record
        raise UnknownDataset(f"no dataset {dataset_id[:100]!r}")

    async def ask(self, who: str | None, dataset_id: str, question: str
                  ) -> tuple[DatasetRecord, str]:
        """Start the Analyst on ``question`` about the dataset; the dataset and the run id.
        ``InvalidRunInput`` (400) for an empty question or one past ``MAX_QUESTION_CHARS``."""
        if not question.strip():
            raise InvalidRunInput("the question is empty: say what to find out")
        if len(question) > MAX_QUESTION_CHARS:
            raise InvalidRunInput(f"the question is {len(question)} characters long; ask in "
                                  f"at most {MAX_QUESTION_CHARS}")
        record = await self.visible(who, dataset_id)
        run_id = await self.runner.start(NAME, record.thread_id,
                                         {"dataset_id": record.id, "question": question},
                                         owner=who)
        return record, run_id

    async def report(self, who: str | None, run_id: str, fmt: str) -> str:
        """The Analyst run's report as the file ``fmt`` (``report_files.BUILDERS``: md, html,
        ipynb), built from its stored events: the same file for every face (the web's
        download, ``shokunin analyze --out``). ``RunNotFound`` when ``who`` may not see the
        run or it is no Analyst run; ``NoReport`` when it has written none."""
        run = await access.visible_run(self.runner.store, who, run_id)
        if run is None or run.agent != NAME:
            raise RunNotFound(f"no Analyst run {run_id[:100]!r}")
        _row, events = await self.runner.store.run_with_events(run.id)
        try:
            if fmt == "ipynb":
                record = await self.storage.get(str(run.input.get("dataset_id", "")))
                return report_files.notebook(events, record)
            return report_files.BUILDERS[fmt](events)
        except report_files.NoReport as exc:
            raise report_files.NoReport(f"{exc} (the run is {run.status})") from None

    async def of_session(self, who: str | None, thread_id: str) -> list[DatasetRecord]:
        """The datasets of the Analyst thread ``thread_id``, oldest first: what a face shows
        again when it reopens the session. ``ThreadNotFound`` when ``who`` may not see it or
        it is not the Analyst's."""
        thread = await access.visible_thread(self.runner.store, who, thread_id, agent=NAME,
                                             noun="Analyst session")
        return await self.storage.for_thread(thread.id)

    async def session_report(self, who: str | None, thread_id: str, fmt: str,
                             lang: str = "ja") -> tuple[str, str]:
        """The whole Analyst thread's report as the file ``fmt`` (md, html, ipynb), with
        the session's title (its first dataset's name): every question in order with its
        report, plots and cells, built from the stored events. ``ThreadNotFound`` as
        ``of_session``; ``NoReport`` when no question has a report yet."""
        thread = await access.visible_thread(self.runner.store, who, thread_id, agent=NAME,
                                             noun="Analyst session")
        store = self.runner.store
        runs, events = await store.thread_runs(thread.id), await store.thread_events(thread.id)
        by_run: dict[str, list[ev.BaseEvent]] = {}
        for event in events:
            by_run.setdefault(event.run_id or "", []).append(event)
        answers = [report_files.Answer(by_run.get(run.id, []), str(run.status),
                                       str(run.input.get("dataset_id", ""))) for run in runs]
        records: dict[str, DatasetRecord] = {}
        if fmt == "ipynb":
            for record in await self.storage.for_thread(thread.id):
                records[record.id] = record
        title = thread.title or "Analyst"
        return title, report_files.SESSION_BUILDERS[fmt](title, answers, records, lang)

    async def listed(self, who: str | None, threads: int) -> list[DatasetRecord]:
        """The datasets of the newest ``threads`` Analyst threads ``who`` may see."""
        rows = await access.listed_threads(self.runner.store, who, agent=NAME, limit=threads)
        return [record for row in rows for record in await self.storage.for_thread(row.id)]

    async def preview(self, who: str | None, dataset_id: str, rows: int) -> Preview:
        return await self.storage.preview(await self.visible(who, dataset_id), rows)

    async def delete(self, who: str | None, dataset_id: str) -> None:
        record = await self.visible(who, dataset_id)
        if not await self.storage.delete(record):
            raise UnknownDataset(f"no dataset {dataset_id[:100]!r}")
