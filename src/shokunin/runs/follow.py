"""Following one run for a caller that waits on it (an MCP request, a blocking REST call, the
CLI): its events to the end, and the run cancelled when the caller leaves first. Plus the
answer a run has written so far, read the same way by every face.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable

from shokunin import events as ev
from shokunin.runs.runner import Runner

_cancelling: set[asyncio.Task[object]] = set()  # held so they are not collected mid-way


async def follow(runner: Runner, run_id: str, *, after_seq: int = 0,
                 cancel_on_exit: bool = True) -> AsyncIterator[ev.BaseEvent]:
    """Yield the run's events after ``after_seq`` up to and including its terminal one.

    With ``cancel_on_exit``, a caller that stops iterating before the end (it was cancelled,
    its client left, it broke out of the loop) cancels the run, which sets a tool's abort
    event. The cancel runs in a task of its own: the caller's scope is being torn down and
    may not await anything more. A caller that breaks out of the loop closes the generator
    (``contextlib.aclosing``) so that happens at once, not when it is collected."""
    ended = False
    try:
        # The Runner's stream knows where a run ends (a resumed run goes on past its
        # run_interrupted); a caller that leaves right after an end cancels nothing.
        async for event in runner.stream(run_id, after_seq):
            ended = ev.is_terminal(event)
            yield event
        ended = True
    finally:
        if not ended and cancel_on_exit and runner.is_live(run_id):
            task = asyncio.ensure_future(runner.cancel(run_id))
            _cancelling.add(task)
            task.add_done_callback(_cancelling.discard)


OnEvent = Callable[[ev.BaseEvent], Awaitable[None] | None]


async def follow_to_end(runner: Runner, run_id: str, on_event: OnEvent | None = None, *,
                        cancel_on_exit: bool = True) -> list[ev.BaseEvent]:
    """Every event of the run to its end (``follow``), each passed to ``on_event`` (a
    progress report) as it comes; the last is the terminal one."""
    seen: list[ev.BaseEvent] = []
    async with contextlib.aclosing(follow(runner, run_id,
                                          cancel_on_exit=cancel_on_exit)) as events:
        async for event in events:
            seen.append(event)
            if on_event is not None and inspect.isawaitable(said := on_event(event)):
                await said
    return seen


class AnswerSoFar:
    """The answer a run has written so far: its streamed tokens, replaced by a whole text
    when one comes (a brain that does not stream writes only that)."""

    def __init__(self) -> None:
        self.text = ""

    def see(self, event: ev.BaseEvent) -> bool:
        """Take ``event`` in; whether it changed the answer."""
        if isinstance(event, ev.TextDelta):
            self.text += event.delta
            return True
        if isinstance(event, ev.Text):
            self.text = event.text
            return True
        return False


def answer_of(events: Iterable[ev.BaseEvent]) -> str:
    """The answer the events wrote (see ``AnswerSoFar``)."""
    answer = AnswerSoFar()
    for event in events:
        answer.see(event)
    return answer.text
