"""Following a run for a caller that waits on it (runs/follow.py), the one copy MCP, the tools'
streams and the CLI use: to its end, cancelled when the caller leaves, past a resumed wait;
and the answer a run has written so far."""

from __future__ import annotations

import asyncio
import contextlib

from shokunin import events as ev
from shokunin.runs import AnswerSoFar, Runner, answer_of, follow, follow_to_end
from tests.waiting import eventually


async def test_follow_to_end_gives_every_event_to_the_terminal_one(runner: Runner) -> None:
    run_id = await runner.start("counter", None, {"n": 3})
    said: list[str] = []
    events = await follow_to_end(runner, run_id, lambda e: said.append(e.kind))
    assert [e.kind for e in events] == ["run_started", "text", "text", "text", "run_completed"]
    assert said == [e.kind for e in events]


async def test_a_caller_that_leaves_cancels_the_run(runner: Runner) -> None:
    run_id = await runner.start("counter", None, {"n": 1000, "delay": 0.01})
    async with contextlib.aclosing(follow(runner, run_id)) as events:
        async for event in events:
            if event.kind == "text":
                break  # the caller is gone
    await asyncio.wait_for(runner.wait(run_id), 10)
    assert (await runner.store.get_run(run_id)).status == "cancelled"


async def test_a_caller_cancelled_while_waiting_cancels_the_run(runner: Runner) -> None:
    run_id = await runner.start("counter", None, {"n": 1000, "delay": 0.01})
    said: list[str] = []
    task = asyncio.create_task(follow_to_end(runner, run_id, lambda e: said.append(e.kind)))
    await eventually(lambda: "text" in said, what="the caller following the run")
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await asyncio.wait_for(runner.wait(run_id), 10)
    assert (await runner.store.get_run(run_id)).status == "cancelled"


async def test_a_watcher_that_may_leave_leaves_the_run_alone(runner: Runner) -> None:
    run_id = await runner.start("counter", None, {"n": 30, "delay": 0.01})
    async with contextlib.aclosing(follow(runner, run_id, cancel_on_exit=False)) as events:
        async for _ in events:
            break
    await asyncio.wait_for(runner.wait(run_id), 10)
    assert (await runner.store.get_run(run_id)).status == "completed"


async def test_a_resumed_run_is_followed_past_its_wait(runner: Runner) -> None:
    """A run that waited for a human and was resumed is one run: replayed from its start,
    it goes on past run_interrupted to its real end (the SSE route failed this)."""
    run_id = await runner.start("asker", None, {})
    first = await follow_to_end(runner, run_id)
    assert first[-1].kind == "run_interrupted"
    await runner.resume(run_id, "yes")
    await asyncio.wait_for(runner.wait(run_id), 10)
    replay = await follow_to_end(runner, run_id)
    kinds = [e.kind for e in replay]
    assert "run_interrupted" in kinds and kinds[-1] == "run_completed"
    assert answer_of(replay) == "answer: yes"


def test_the_answer_so_far_is_the_streamed_tokens_until_a_whole_text_replaces_them() -> None:
    answer = AnswerSoFar()
    base = {"run_id": "r", "thread_id": "t", "seq": 1}
    assert answer.see(ev.TextDelta(delta="Hel", **base))
    assert answer.see(ev.TextDelta(delta="lo", **base)) and answer.text == "Hello"
    assert not answer.see(ev.Progress(message="...", **base)) and answer.text == "Hello"
    assert answer.see(ev.Text(text="Hello, world", **base)) and answer.text == "Hello, world"
