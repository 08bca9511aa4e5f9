"""Deleting a thread: its runs and events, checkpoints, workspace and sandbox kernel."""

from __future__ import annotations

import asyncio
import shutil

from shokunin.errors import ErrorCode
from shokunin.runs.errors import RunStateError
from shokunin.runs.ids import check_thread_id
from shokunin.runs.runner import Runner
from shokunin.store import RunStatus


async def delete_thread(runner: Runner, thread_id: str) -> bool:
    """Delete everything the server keeps of a thread; False if there is no such thread.

    Raises ``InvalidThreadId`` for a bad id and ``RunStateError`` while a run on the thread
    is live (cancel it first). The store rows go first, in one transaction: they are the
    record, so a failure later leaves no thread behind that points at deleted state.
    """
    check_thread_id(thread_id)
    for run in await runner.store.thread_runs(thread_id):
        if run.status == RunStatus.RUNNING or runner.is_live(run.id):
            raise RunStateError(f"run {run.id} on thread {thread_id} is still running; "
                                "cancel it first", code=ErrorCode.RUN_LIVE)
    if not await runner.store.delete_thread(thread_id):
        return False
    runner.forget_thread(thread_id)
    checkpointer = runner.services.checkpointer
    if checkpointer is not None:
        await checkpointer.adelete_thread(thread_id)
    sandbox = runner.services.sandbox
    if sandbox is not None:
        await sandbox.close_thread(thread_id)
    await asyncio.to_thread(shutil.rmtree, runner.workspace(thread_id), ignore_errors=True)
    return True
