"""The Runner: starts, resumes, cancels and streams runs of agents on threads."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from shokunin import events as ev
from shokunin.errors import ErrorCode
from shokunin.models import Usage
from shokunin.runs.bus import EventBus
from shokunin.runs.context import RunContext, RunServices
from shokunin.runs.errors import (
    InvalidRunInput,
    RunNotFound,
    RunStateError,
    ThreadOfAnotherFace,
    UnknownAgent,
)
from shokunin.runs.failure import run_failed
from shokunin.runs.holds import Holds
from shokunin.runs.ids import check_thread_id, new_thread_id
from shokunin.runs.position import ThreadPosition
from shokunin.runs.queue import QueuedRun, QueueUnavailable
from shokunin.runs.thread_feed import ThreadFeed
from shokunin.store import RunRow, RunStatus, Store, ThreadRow, Write
from shokunin.store.leases import Held, Orphan, queued_in

if TYPE_CHECKING:
    from shokunin.runs.queue import RunQueue

log = logging.getLogger(__name__)


class Interrupted(Exception):  # noqa: N818 - a control signal, like asyncio.CancelledError
    """Raised by an agent that waits for a human answer; ``Runner.resume`` continues it."""

    def __init__(self, payload: dict[str, Any]) -> None:
        super().__init__("run interrupted")
        self.payload = payload


# Kinds after which a run never says anything again (run_interrupted may be resumed).
_ENDS = ev.TERMINAL_KINDS - {"run_interrupted"}


def _check_storable(event: ev.BaseEvent, what: str) -> None:
    """Refuse what cannot be stored as JSON text, e.g. a lone surrogate ("\\ud800") that
    JSON escapes allow but UTF-8 cannot encode, before any row is written."""
    try:
        event.model_dump_json()
    except ValueError as exc:  # pydantic's serialization error is a ValueError
        why = ("text must be valid Unicode (no lone surrogate such as \\ud800)"
               if "surrogate" in str(exc) else "it is not JSON")
        raise InvalidRunInput(f"the {what} cannot be stored: {why}") from None


class Agent(Protocol):
    """An agent the Runner runs. One that waits at ``interrupt()`` and cannot take any JSON
    value as the answer also has ``check_resume`` (``ChecksResume``). What else it may
    declare, as Runner policies rather than a lifecycle of its own:

    - pause: a pausable agent awaits ``ctx.gate()`` at its node boundaries; its run waits
      there while its thread is held (``Runner.hold`` / ``Runner.release``).
    - recovery (``Recovers``): at start-up (``Runner.recover``) the unfinished runs of an
      agent without ``recover`` are failed; one with it revives what should go on (from its
      LangGraph checkpoint) and what it leaves is failed after.
    - restart (``restartable = True``): every step of it with a side effect (a tool call,
      code) is stored as an event before it acts, and its graph checkpoints when it stops.
      A run of it that a gone process cut short before any such event starts again from
      the thread's last checkpoint (a model call half done is made again) instead of
      failing; one cut short after one is failed (repeating it could repeat what it did).
    """

    name: str

    async def run(self, ctx: RunContext, input: dict[str, Any]) -> dict[str, Any]:
        """Do the work, emitting events through ``ctx``; return the run's output."""
        ...


@runtime_checkable
class ChecksResume(Protocol):
    async def check_resume(self, value: Any, waiting: dict[str, Any]) -> None:
        """Raise ``InvalidRunInput`` (saying what it takes) when ``value`` cannot answer what
        the run waits for (``waiting``: its ``run_interrupted`` payload, ``{"value",
        "interrupts": [{"id", "value"}]}``). Called before the run is claimed, so a refused
        value leaves it waiting."""
        ...


@runtime_checkable
class Recovers(Protocol):
    async def recover(self, runner: Runner, orphans: Sequence[str], starting: bool) -> int:
        """Make this agent's threads go on that a process which is gone left: ``orphans``
        are its runs that process left 'running', now leased to this one (``runner.revive``
        one to go on as the same run). Called at start-up (``starting``: also hold a paused
        thread, start a new run where one is needed) and whenever the heartbeat finds
        orphans of this agent. Return how many go on; the orphans not live afterwards are
        failed."""
        ...


# Kinds a run says before it does anything with a side effect (see ``Agent``: restart).
UNTOUCHED_KINDS = frozenset({"run_started", "text_delta", "metrics", "debug", "log"})
MAX_RESTARTS = 2  # a run whose every process dies (it kills them?) is failed after that
TURN_WAIT_SEC = 1.0  # how soon a run whose thread is busy elsewhere looks again
RESTARTING = ("the process running this run stopped before the run did anything with side "
              "effects: it starts again from the thread's last checkpoint")
RESTARTED = ("the run stopped unfinished: the server running it stopped or restarted, or "
             "lost its database, while the run was in progress")


@dataclass(frozen=True)
class Recovery:
    """What ``Runner.recover`` did: runs failed (they can never finish), threads that go on."""

    failed: int
    revived: int


class Runner:
    def __init__(
        self, store: Store, bus: EventBus, workspace_root: Path,
        services: RunServices | None = None,
    ) -> None:
        self.store = store
        self.bus = bus
        self.workspace_root = workspace_root
        self.services = services if services is not None else RunServices()
        self.agents: dict[str, Agent] = {}
        self._tasks: dict[str, asyncio.Task[None]] = {}
        self._contexts: dict[str, RunContext] = {}
        self._known_threads: dict[str, str] = {}  # thread id -> the agent that made it
        self._thread_locks: dict[str, tuple[asyncio.Lock, int]] = {}
        self.holds = Holds()  # threads paused in this process (see ``hold``)
        self._thread_seqs: dict[str, int] = {}  # thread id -> its own events' last seq
        self._thread_event_locks: dict[str, asyncio.Lock] = {}
        self._cancelling: dict[str, asyncio.Task[bool]] = {}  # asked by another process
        self._leaving: set[str] = set()  # runs left to another process (``leave``)
        # The job queue (``use_queue``): runs are sent to workers instead of run here.
        self.queue: RunQueue | None = None
        # Other processes run runs on this database too (set by the engine): a thread's
        # runs still run one at a time, in the order they started.
        self.shares_threads = False
        self._sends = False

    def use_queue(self, queue: RunQueue, *, send: bool) -> None:
        """Share the job queue: ``send`` (a web process) sends every run this process
        starts, resumes or revives to a worker; a worker runs what it takes (``take``) and
        revives here. Both look at the queue to tell a lost job from a waiting one."""
        self.queue, self._sends = queue, send
        self.shares_threads = True

    def register(self, agent: Agent) -> None:
        self.agents[agent.name] = agent

    def forget_thread(self, thread_id: str) -> None:
        """The thread was deleted: a new run with its id must create it again, and its own
        events start again from seq 1."""
        self._known_threads.pop(thread_id, None)
        self._thread_seqs.pop(thread_id, None)
        self._thread_event_locks.pop(thread_id, None)
        self.holds.release(thread_id)

    def workspace(self, thread_id: str) -> Path:
        """The thread's working folder (created): derived here only, from a valid id."""
        path = self.workspace_root / check_thread_id(thread_id)
        if not path.is_dir():  # a stat costs less than a mkdir that fails, once per run
            path.mkdir(parents=True, exist_ok=True)
        return path

    async def start(
        self, agent: str, thread_id: str | None, input: dict[str, Any],
        run_id: str | None = None, owner: str | None = None,
    ) -> str:
        """Start a run of ``agent`` on the thread (a new one when None); return its id.
        ``owner`` (the caller's principal) is recorded on a thread this run creates, and is
        the run's ``ctx.owner``: whose sandbox kernel cap the run counts against."""
        if agent not in self.agents:
            raise UnknownAgent(f"no agent named {agent!r}; known: {sorted(self.agents)}")
        thread_id = new_thread_id() if thread_id is None else check_thread_id(thread_id)
        started = ev.RunStarted(agent=agent, input=input)
        _check_storable(started, "input")
        run_id = run_id or uuid.uuid4().hex
        # Shielded: a caller cancelled half-way must not leave a run row that never runs.
        await asyncio.shield(self._begin(started, thread_id, run_id, owner))
        return run_id

    async def _begin(
        self, started: ev.RunStarted, thread_id: str, run_id: str, owner: str | None
    ) -> None:
        agent, input = started.agent, started.input
        if (maker := self._known_threads.get(thread_id)) is None:
            maker = await self._thread_agent(thread_id, agent, input, owner)
        if maker != agent:
            raise ThreadOfAnotherFace(
                f"thread {thread_id!r} belongs to the {maker} agent, not to {agent}: use a "
                f"thread of this face, or a new one")
        ctx = self._context(run_id, thread_id, agent, owner=owner)
        try:
            await ctx.open(started, input)
        except BaseException:
            self._forget(ctx)  # no run row: nothing to finish
            raise
        await self._dispatch(ctx, input)

    async def _thread_agent(self, thread_id: str, agent: str, input: dict[str, Any],
                            owner: str | None) -> str:
        """The agent that made the thread (creating it for ``agent`` when it is new); known
        from then on, so later runs on the thread cost no query."""
        # Made unless it exists (another face may have made it, even a moment before),
        # then read back: one write, as before the check, and one read.
        await self.store.ensure_thread(thread_id, agent, title=str(input.get("message", "")),
                                       owner=owner)
        thread = await self.store.get_thread(thread_id)
        maker = thread.agent if thread is not None else agent
        self._known_threads[thread_id] = maker
        return maker

    async def resume(self, run_id: str, value: Any) -> None:
        """Continue an interrupted run with the human's answer ``value`` (any JSON value but
        null): same run id, seq going on from its ``run_interrupted`` event."""
        if value is None:
            raise InvalidRunInput("a resume value is required: null cannot answer a question")
        _check_storable(ev.CheckpointResolved(checkpoint_id="", value=value), "resume value")
        run = await self.store.get_run(run_id)
        if run is None:
            raise RunNotFound(run_id)
        if run.status != RunStatus.INTERRUPTED:
            raise RunStateError(f"run {run_id} is {run.status}, not waiting for an answer",
                                code=ErrorCode.NOT_WAITING)
        agent = self.agents.get(run.agent)
        if isinstance(agent, ChecksResume):
            await agent.check_resume(value, await self.waiting_for(run_id))
        if not await self.store.claim_interrupted(run_id):  # atomic: one resume wins
            raise RunStateError(f"run {run_id} is no longer waiting for an answer",
                                code=ErrorCode.NOT_WAITING)
        thread = await self.store.get_thread(run.thread_id)
        if thread is not None and thread.held:  # held from another process meanwhile
            self.holds.hold(run.thread_id)
        await self._dispatch(await self._again(run, thread, value), run.input, waiting=True)

    async def waiting_for(self, run_id: str) -> dict[str, Any]:
        """What a waiting run waits for: the payload of its last event when that is
        ``run_interrupted`` (a waiting run says nothing after it), else ``{}``."""
        events = await self.store.events_after(run_id, await self.store.last_seq(run_id) - 1)
        last = events[-1] if events else None
        return last.payload if last is not None and last.kind == "run_interrupted" else {}  # type: ignore[attr-defined]

    async def cancel(self, run_id: str) -> bool:
        """Stop a live run, or close a run waiting for an answer (it can then no longer be
        resumed); return False if it was neither."""
        task = self._tasks.get(run_id)
        if task is None or task.done():
            run = await self.store.get_run(run_id)
            if run is None:
                raise RunNotFound(run_id)
            if run.status == RunStatus.RUNNING:
                return (await self._cancel_queued(run)
                        or await self._cancel_elsewhere(run_id))
            return await self._cancel_waiting(run)
        ctx = self._contexts[run_id]
        ctx.abort.set()
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
        if ctx.closing is not None:
            await ctx.closing
        return True

    async def _cancel_elsewhere(self, run_id: str) -> bool:
        """A run another process runs: ask it (its next heartbeat cancels it) and wait, for
        at most two leases, until it has ended."""
        leases = self.store.leases
        if not await leases.request_cancel(run_id):
            return False  # it ended meanwhile
        loop = asyncio.get_running_loop()
        deadline = loop.time() + 2 * leases.seconds
        while loop.time() < deadline and await self._running(run_id):
            await asyncio.sleep(0.2)
        return True

    async def _cancel_queued(self, run: RunRow) -> bool:
        """A run waiting in the job queue: take its lease back before a worker does (one
        wins), end it here and drop its job; False when no job holds it (any more)."""
        mark = queued_in(run.lease_holder)
        leases = self.store.leases
        if mark is None or not await leases.pass_on(run.id, run.lease_holder or "",
                                                    leases.holder):
            return False
        await self._cancelled_here(run, "cancelled before a worker took it")
        if self.queue is not None:
            with contextlib.suppress(Exception):  # a worker that takes it finds no lease
                await self.queue.drop(mark)
        return True

    async def _cancel_waiting(self, run: RunRow) -> bool:
        if run.status != RunStatus.INTERRUPTED or not await self.store.claim_interrupted(run.id):
            return False
        await self._cancelled_here(run, "cancelled while waiting for an answer")
        return True

    async def _cancelled_here(self, run: RunRow, reason: str) -> None:
        """Record the end of a run no task runs, whose lease this process has taken."""
        ctx = self._context(run.id, run.thread_id, run.agent)
        ctx._seq = await self.store.last_seq(run.id)
        try:
            await self._finish(ctx, RunStatus.CANCELLED, ev.RunCancelled(reason=reason))
        finally:
            self._forget(ctx)

    async def wait(self, run_id: str) -> None:
        """Until the run stops: it ends, or waits for an answer. A run another process (a
        worker) is running is followed until then (``stream``)."""
        task = self._tasks.get(run_id)
        if task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await task
            return
        if await self._running(run_id):
            async for _ in self.stream(run_id, await self.store.last_seq(run_id)):
                pass

    def is_live(self, run_id: str) -> bool:
        """Running here, or still recording its end here."""
        task, ctx = self._tasks.get(run_id), self._contexts.get(run_id)
        return (task is not None and not task.done()) or (
            ctx is not None and ctx.closing is not None and not ctx.closing.done())

    async def stream(self, run_id: str, after_seq: int = 0) -> AsyncIterator[ev.BaseEvent]:
        """Yield the run's events after ``after_seq``: stored ones first, then live ones,
        until the run ends or waits for an answer. A run that was resumed is one run: its
        replay goes on past ``run_interrupted``. A finished run with nothing after
        ``after_seq`` yields nothing. Subscribing before reading the store closes the gap."""
        sub = self.bus.subscribe(run_id)
        try:
            stored = self._local_history(run_id, after_seq)
            if stored is None:
                run, stored = await self.store.run_with_events(run_id, after_seq)
                if run is None:
                    raise RunNotFound(run_id)
            last = after_seq
            while stored:
                for event in stored:
                    last = event.seq
                    yield event
                    if event.kind in _ENDS:
                        return
                if stored[-1].kind != "run_interrupted":
                    break
                # Waiting for an answer, or resumed since: the store says which.
                run, stored = await self.store.run_with_events(run_id, last)
                if not stored and run is not None and run.status == RunStatus.INTERRUPTED:
                    return
            if not self.is_live(run_id) and not await self._running(run_id):
                # It ended after the read above: its last events are in the store now.
                for event in await self.store.events_after(run_id, last):
                    yield event
                    if ev.is_terminal(event):
                        break
                return
            while True:
                live_here = self.is_live(run_id)
                try:
                    # asyncio.timeout, not wait_for: no task per event (Python 3.11)
                    async with asyncio.timeout(5.0 if live_here else 1.0):
                        event = await sub.get()
                except TimeoutError:
                    if live_here:
                        continue
                    # Not running in this process: follow it through the store until it
                    # ends. Its status first: a run that had ended by then has its last
                    # event stored, so the read after it has the end.
                    running = await self._running(run_id)
                    for event in await self.store.events_after(run_id, last):
                        last = event.seq
                        yield event
                        if ev.is_terminal(event):
                            return
                    if not running:
                        return
                    continue
                if event.seq <= last:
                    continue
                if event.seq > last + 1:  # missed some (slow subscriber): fill from the store
                    for missed in await self.store.events_after(run_id, last):
                        if missed.seq >= event.seq:
                            break
                        yield missed
                last = event.seq
                yield event
                if ev.is_terminal(event):  # ended, or now waits for an answer
                    return
        finally:
            sub.close()

    # the thread's own events
    async def publish_thread_event(self, thread_id: str, event: ev.BaseEvent,
                                   *writes: Write) -> ev.BaseEvent:
        """Number an event of the thread itself (not of a run: ``run_id`` stays empty, ``seq``
        goes on gap-free per thread), store it (with ``writes``, in one transaction), then
        publish it; return it as sent. Nothing is published that is not stored."""
        thread_id = check_thread_id(thread_id)
        _check_storable(event, "event")
        lock = self._thread_event_locks.setdefault(thread_id, asyncio.Lock())
        async with lock:
            for attempt in range(3):
                seq = self._thread_seqs.get(thread_id)
                if seq is None or attempt:  # first here, or another process wrote meanwhile
                    seq = await self.store.last_thread_seq(thread_id)
                numbered = event.model_copy(update={
                    "run_id": "", "thread_id": thread_id, "seq": seq + 1})
                try:
                    await self.store.append_thread_event(numbered, *writes)
                except Exception:  # noqa: BLE001 - a seq taken by another process: again
                    self._thread_seqs.pop(thread_id, None)
                    if attempt == 2 or await self.store.last_thread_seq(thread_id) == seq:
                        raise  # not a race: the write itself failed
                    continue
                self._thread_seqs[thread_id] = numbered.seq
                break
        await self.bus.publish(numbered)
        return numbered

    def follow_thread(self, thread_id: str, after: ThreadPosition | str | None = None
                      ) -> ThreadFeed:
        """Every event of the thread, its runs' and its own: with ``after`` (a position a
        client saw, or its text form) the stored ones after it first, then live ones,
        missing none; without, live ones from now. Subscribed when called (before any read
        of the store); iterate it (``async for``), ``close()`` when done; its ``position``
        is where it is. ``InvalidRunInput`` for a position that is not one."""
        thread_id = check_thread_id(thread_id)
        if isinstance(after, str):
            after = ThreadPosition.parse(after)
        return ThreadFeed(self.store, self.bus, thread_id, after)

    # pause, a policy of pausable agents (they await ``ctx.gate()`` at node boundaries)
    async def hold(self, thread_id: str) -> None:
        """Runs on the thread wait at their next gate until ``release``: here at once, in
        another process that runs one at its next heartbeat (the hold is recorded on the
        thread)."""
        self.holds.hold(thread_id)
        await self.store.set_held(thread_id, True)

    async def release(self, thread_id: str) -> None:
        self.holds.release(thread_id)
        await self.store.set_held(thread_id, False)

    # start-up
    async def recover(self, *, starting: bool = True, own: Sequence[str] = ()) -> Recovery:
        """The one recovery sequence: at start-up, once the agents are registered and before
        any face serves, and on each heartbeat that finds orphans (``keep_leases``). Runs a
        gone process left 'running' (their lease ran out, or their process is known dead)
        are claimed, one process winning each: those of agents without ``recover`` are
        failed (each closed with a ``run_failed`` event); each agent that declares
        ``recover`` (``Recovers``) makes its threads go on; what those leave unfinished is
        failed too. Runs another live process holds are left alone, and runs waiting for
        an answer are left to be resumed anywhere. ``own``: runs this process holds whose
        task is gone (the heartbeat's), recovered the same way."""
        leases = self.store.leases
        orphans = [o for o in await leases.orphans()
                   if not await self._still_queued(o) and await leases.claim(o)]
        orphans += await leases.mine(own)  # this process's own, no longer run by a task
        recovering = {name: agent for name, agent in self.agents.items()
                      if isinstance(agent, Recovers)}
        revived = 0
        plain = []  # orphans of agents without ``recover``: started again, or failed
        for orphan in orphans:
            if orphan.agent in recovering:
                continue
            if await self._restart(orphan):
                revived += 1
            else:
                plain.append(orphan.id)
        failed = await self.store.fail_runs(plain, RESTARTED)
        for name, agent in recovering.items():
            mine = [o.id for o in orphans if o.agent == name]
            if not (starting or mine):
                continue
            try:
                revived += await agent.recover(self, mine, starting)
            except Exception:  # one agent that cannot recover must not stop the others
                log.exception("the %s agent could not recover its runs", name)
        failed += await self.store.fail_runs(
            [o.id for o in orphans if o.agent in recovering and not self.is_live(o.id)],
            RESTARTED)
        if failed:
            log.warning("failed %d runs a stopped process left unfinished", failed)
        return Recovery(failed=failed, revived=revived)

    async def _restart(self, orphan: Orphan) -> bool:
        """Start a claimed orphan again from its thread's last checkpoint when its agent is
        ``restartable`` and the run did nothing with side effects yet (see ``Agent``)."""
        if not getattr(self.agents.get(orphan.agent), "restartable", False):
            return False
        events = await self.store.events_after(orphan.id)
        restarts = sum(e.kind == "log" and e.message == RESTARTING  # type: ignore[attr-defined]
                       for e in events)
        if (restarts >= MAX_RESTARTS or not events or events[0].kind != "run_started"
                or any(e.kind not in UNTOUCHED_KINDS for e in events)):
            return False
        run = await self.store.get_run(orphan.id)
        if run is None or run.status != RunStatus.RUNNING:
            return False
        ctx = await self._again(run, await self.store.get_thread(run.thread_id))
        try:
            await ctx.emit(ev.Log(level="warning", message=RESTARTING,
                                  data={"restart": restarts + 1}))
        except BaseException:
            self._forget(ctx)
            raise
        await self._dispatch(ctx, run.input)
        return True

    async def _still_queued(self, orphan: Orphan) -> bool:
        """A run whose lease a job holds is no orphan while the job waits: its lease is
        extended (in the shared queue), or the job moved to the shared queue (in a worker's
        own: that worker may be gone). A lost or finished job leaves an orphan."""
        mark = queued_in(orphan.holder)
        if mark is None or self.queue is None or orphan.holder is None:
            return False
        try:
            waiting = await self.queue.waiting(mark)
        except Exception:  # noqa: BLE001 - cannot tell: leave it for the next beat
            log.warning("the job queue could not say whether run %s waits", orphan.id,
                        exc_info=True)
            return True
        if not waiting:
            return False
        leases = self.store.leases
        if mark[0] == self.queue.shared:
            await leases.pass_on(orphan.id, orphan.holder, orphan.holder)
            return True
        run = await self.store.get_run(orphan.id)
        moved = self.queue.mark(orphan.id)
        if run is not None and await leases.pass_on(orphan.id, orphan.holder, moved):
            with contextlib.suppress(Exception):
                await self.queue.drop(mark)
            await self._send_job(orphan.id, moved, run.input, None)
        return True

    async def keep_leases(self, *, recover: bool) -> None:
        """The heartbeat, until cancelled: renew this process's leases on its runs, cancel
        those another process asked to cancel, recover its own runs that no task runs any
        more (their end could not be recorded, e.g. the database was down), and (``recover``:
        this process takes over what others leave) recover orphans. A failing database is
        logged and tried again at the next beat; the runs it holds meanwhile keep running."""
        leases = self.store.leases
        stranded: set[str] = set()
        while True:
            await asyncio.sleep(leases.seconds / 5)
            try:
                mine = await leases.renew()
                await self.store.kernel_homes.renew()
                for run in mine:
                    self._asked(run)
                # Not live here on two beats running (one could fall between a run's row
                # and its task): nobody will ever finish it.
                gone = {run.run_id for run in mine if not self._busy(run.run_id)}
                if (gone & stranded) or recover:
                    await self.recover(starting=False, own=sorted(gone & stranded))
                stranded = gone
            except Exception:  # noqa: BLE001 - the next beat tries again
                log.warning("run leases could not be renewed; retrying", exc_info=True)

    def _asked(self, run: Held) -> None:
        """Do what another process asked of a run of this one: cancel it, hold or release
        its thread."""
        if run.cancel and self.is_live(run.run_id) and run.run_id not in self._cancelling:
            task = asyncio.create_task(self.cancel(run.run_id), name=f"cancel-{run.run_id}")
            self._cancelling[run.run_id] = task
            task.add_done_callback(lambda _t, r=run.run_id: self._cancelling.pop(r, None))
        if run.thread_held and not self.holds.is_held(run.thread_id):
            self.holds.hold(run.thread_id)
        elif not run.thread_held and self.holds.is_held(run.thread_id):
            self.holds.release(run.thread_id)

    def _busy(self, run_id: str) -> bool:
        """A task or a context of the run exists here (starting, running or recording)."""
        return self.is_live(run_id) or run_id in self._contexts

    async def revive(self, run_id: str, input: dict[str, Any]) -> None:
        """Run again a run a gone process left 'running' and this one has claimed (an
        agent's ``recover`` calls it): the same run, its seq and usage going on, the agent
        given ``input`` (e.g. go on from the thread's LangGraph checkpoint)."""
        run = await self.store.get_run(run_id)
        if run is None:
            raise RunNotFound(run_id)
        if (run.status != RunStatus.RUNNING or self.is_live(run_id)
                or run.lease_holder != self.store.leases.holder):
            where = (" here" if self.is_live(run_id)
                     else "" if run.status != RunStatus.RUNNING else " in another process")
            raise RunStateError(f"run {run_id} is {run.status}{where}: only a run a gone "
                                f"process left, claimed here, can be revived")
        thread = await self.store.get_thread(run.thread_id)
        await self._dispatch(await self._again(run, thread), input)

    async def take(self, job: QueuedRun, mark: str) -> None:
        """(a worker) Run what a job of the queue brought, to its end or its first wait:
        take the run's lease from the job's ``mark`` first (nothing to do when a cancel
        or another copy of the job took it), then go on as the run it is (started,
        resumed or revived), its seq and usage going on."""
        leases = self.store.leases
        if not await leases.pass_on(job.run_id, mark, leases.holder):
            return
        run = await self.store.get_run(job.run_id)
        if run is None:
            return
        if await self.store.running_before(run.thread_id, run.id):
            # An earlier run of the thread runs (or waits) elsewhere: this one's turn comes
            # after it. Sent again for later, so that it holds no slot meanwhile.
            where = queued_in(mark)
            assert where is not None and self.queue is not None
            later = self.queue.mark(run.id, where[0])
            if await leases.pass_on(run.id, leases.holder, later):
                await self._send_job(run.id, later, job.input, job.resume_value,
                                     after=TURN_WAIT_SEC)
            return
        if run.agent not in self.agents:  # a worker started with other faces than the web
            await self.store.fail_runs([run.id], f"the worker that took this run has no "
                                       f"{run.agent} agent (is that face off there?)")
            return
        thread = await self.store.get_thread(run.thread_id)
        ctx = await self._again(run, thread, job.resume_value)
        self._launch(ctx, job.input)
        await asyncio.shield(self.wait(job.run_id))

    async def _again(self, run: RunRow, thread: ThreadRow | None,
                     resume_value: Any = None) -> RunContext:
        """The context of a run going on in this process: held if its thread is held,
        its seq and usage going on from what the store has."""
        if thread is not None and thread.held:  # held from another process meanwhile
            self.holds.hold(run.thread_id)
        ctx = self._context(run.id, run.thread_id, run.agent, resume_value=resume_value,
                            owner=thread.owner if thread else None)
        ctx._seq = await self.store.last_seq(run.id)
        before = run.usage or {}  # one run: its usage goes on adding up
        ctx.usage = Usage(**{k: int(before.get(k, 0)) for k in (
            "input_tokens", "output_tokens", "total_tokens", "calls")})
        return ctx

    async def _dispatch(self, ctx: RunContext, input: dict[str, Any], *,
                        waiting: bool = False) -> None:
        """Run it here, or (a web process with a queue) send it to a worker: the one that
        holds its thread's kernel, else any. A run that can be neither is failed (its row
        exists: never leave it 'running' with nobody to finish it), except a resumed one
        (``waiting``) the queue did not take: it waits for its answer again, which can be
        sent again."""
        try:
            if self.queue is None or not self._sends:
                self._launch(ctx, input)
                return
            self._forget(ctx)  # a worker runs it: nothing of it lives here
            queue = await self.store.kernel_homes.queue_of(ctx.thread_id)
            mark = self.queue.mark(ctx.run_id, queue)
            leases = self.store.leases
            if not await leases.pass_on(ctx.run_id, leases.holder, mark):
                raise RunStateError(f"run {ctx.run_id} is no longer this process's to send")
            try:
                await self._send_job(ctx.run_id, mark, input, ctx.resume_value)
            except BaseException:
                await leases.pass_on(ctx.run_id, mark, leases.holder)
                raise
        except BaseException as exc:
            self._forget(ctx)
            if waiting and isinstance(exc, QueueUnavailable) and await self.store.wait_again(
                    ctx.run_id, self.store.leases.holder):
                raise
            failed = run_failed(exc, log, f"run {ctx.run_id} failed to start")
            with contextlib.suppress(Exception):
                await ctx.emit(failed, status={
                    "status": RunStatus.FAILED, "error": failed.error,
                    "usage": ctx.usage.as_dict()})
            raise

    async def _send_job(self, run_id: str, mark: str, input: dict[str, Any],
                        resume_value: Any, after: float = 0) -> None:
        where = queued_in(mark)
        assert self.queue is not None and where is not None
        await self.queue.send(where, QueuedRun(run_id, input, resume_value), after)

    async def subscribe_thread(
        self, thread_id: str, after_run: str | None = None
    ) -> AsyncIterator[ev.BaseEvent]:
        """Yield the events of every run on the thread from now on, new runs included, and
        the thread's own (``publish_thread_event``), until the caller stops iterating.
        With ``after_run``, first replay from the store every run of the thread started
        after that one, so a client that had seen up to ``after_run`` misses nothing. Runs
        of other processes are not followed live (``follow_thread`` replays from any
        position, the thread's own events too)."""
        thread_id = check_thread_id(thread_id)
        sub = self.bus.subscribe_thread(thread_id)
        try:
            last: dict[str, int] = {}  # run id -> last seq yielded
            if after_run is not None:
                for run_id in await self.store.runs_after(thread_id, after_run):
                    for event in await self.store.events_after(run_id):
                        last[run_id] = event.seq
                        yield event
            while True:
                event = await sub.get()
                seen = last.get(event.run_id)
                if seen is not None and event.seq <= seen:
                    continue
                if seen is not None and event.seq > seen + 1:  # fill from the store
                    for missed in await (
                            self.store.events_after(event.run_id, seen) if event.run_id
                            else self.store.thread_events_after(thread_id, seen)):
                        if missed.seq >= event.seq:
                            break
                        yield missed
                last[event.run_id] = event.seq
                yield event
        finally:
            sub.close()

    @contextlib.asynccontextmanager
    async def _thread_lock(self, thread_id: str) -> AsyncIterator[None]:
        lock, users = self._thread_locks.get(thread_id, (asyncio.Lock(), 0))
        self._thread_locks[thread_id] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._thread_locks[thread_id]
            if users == 1:
                del self._thread_locks[thread_id]
            else:
                self._thread_locks[thread_id] = (lock, users - 1)

    def _local_history(self, run_id: str, after_seq: int) -> list[ev.BaseEvent] | None:
        """A run live in this process, from its start here: its events, without a query."""
        ctx = self._contexts.get(run_id)
        if ctx is None or not ctx.history or ctx.history[0].seq != 1:
            return None  # not here, or resumed here: the store has the earlier part
        return [e for e in ctx.history if e.seq > after_seq]

    async def _running(self, run_id: str) -> bool:
        run = await self.store.get_run(run_id)
        return run is not None and run.status == RunStatus.RUNNING

    async def drain(self) -> None:
        """Wait until no run runs here any more (a stopping worker lets them end)."""
        while tasks := [t for t in self._tasks.values() if not t.done()]:
            await asyncio.wait(tasks)

    async def shutdown(self) -> None:
        for run_id in list(self._tasks):
            with contextlib.suppress(RunNotFound):
                await self.cancel(run_id)

    async def leave(self) -> list[str]:
        """Stop running the runs here without ending them (a worker that stops): their
        leases are given up at once, so another process takes each over as it would a
        crashed one's (it goes on, starts again or ends failed, see ``recover``). Return
        their ids."""
        left = [run_id for run_id, task in self._tasks.items() if not task.done()]
        for run_id in left:
            self._leaving.add(run_id)
            self._contexts[run_id].abort.set()  # a tool or a cell in flight stops too
            self._tasks[run_id].cancel()
        await asyncio.gather(*(self._tasks[r] for r in left if r in self._tasks),
                             return_exceptions=True)
        await self.store.leases.give_up(left)
        return left

    def _context(
        self, run_id: str, thread_id: str, agent: str, resume_value: Any = None,
        owner: str | None = None,
    ) -> RunContext:
        ctx = RunContext(
            run_id=run_id, thread_id=thread_id, agent=agent, store=self.store, bus=self.bus,
            workspace=self.workspace(thread_id), services=self.services,
            resume_value=resume_value, owner=owner, holds=self.holds,
        )
        self._contexts[run_id] = ctx
        return ctx

    def _launch(self, ctx: RunContext, input: dict[str, Any]) -> None:
        task = asyncio.create_task(self._drive(ctx, input), name=f"run-{ctx.run_id}")
        self._tasks[ctx.run_id] = task

        def done(task: asyncio.Task[None]) -> None:
            if task.cancelled() and ctx.closing is None and ctx.run_id not in self._leaving:
                # Cancelled before its first step, so _drive never ran: record it here.
                self._close(ctx, RunStatus.CANCELLED, ev.RunCancelled())
            if ctx.closing is not None and not ctx.closing.done():
                ctx.closing.add_done_callback(lambda _f: self._forget(ctx))
            else:
                self._forget(ctx)

        task.add_done_callback(done)

    def _forget(self, ctx: RunContext) -> None:
        """Drop the run's task and context, unless a resume has replaced them since."""
        if self._contexts.get(ctx.run_id) is ctx:
            self._tasks.pop(ctx.run_id, None)
            del self._contexts[ctx.run_id]

    async def _drive(self, ctx: RunContext, input: dict[str, Any]) -> None:
        ctx.bind_loop()
        agent = self.agents[ctx.agent]
        try:
            # One run at a time per thread: two would race on its checkpoint and kernel.
            async with self._thread_lock(ctx.thread_id):
                if self.shares_threads and self.queue is None:  # web processes that run runs
                    while await self.store.running_before(ctx.thread_id, ctx.run_id):
                        await asyncio.sleep(TURN_WAIT_SEC)
                output = await agent.run(ctx, input)
        except asyncio.CancelledError:
            if ctx.run_id not in self._leaving:
                await self._finish(ctx, RunStatus.CANCELLED, ev.RunCancelled())
            raise
        except Interrupted as stop:
            await ctx.emit(ev.RunInterrupted(payload=stop.payload), status={
                "status": RunStatus.INTERRUPTED, "usage": ctx.usage.as_dict()})
        except Exception as exc:  # noqa: BLE001 - a failed run is recorded, never raised
            failed = run_failed(exc, log, f"run {ctx.run_id} failed")
            await self._finish(ctx, RunStatus.FAILED, failed, error=failed.error)
        else:
            await self._finish(ctx, RunStatus.COMPLETED, ev.RunCompleted(output=output or {}))

    async def _finish(
        self, ctx: RunContext, status: RunStatus, final: ev.BaseEvent, error: str | None = None
    ) -> None:
        await asyncio.shield(self._close(ctx, status, final, error))

    def _close(
        self, ctx: RunContext, status: RunStatus, final: ev.BaseEvent, error: str | None = None
    ) -> asyncio.Future[None]:
        """Record the run's end once, however many paths ask for it: the final status and
        the terminal event in one transaction, in a task of its own so that a cancelled run
        is still recorded."""
        if ctx.closing is not None:
            return ctx.closing

        async def record() -> None:
            if ctx.usage.calls:
                await ctx.emit(ev.Metrics(**{k: v for k, v in ctx.usage.as_dict().items()
                                             if k != "calls"}))
            await ctx.emit(final, status={"status": status, "error": error,
                                          "usage": ctx.usage.as_dict()})

        ctx.closing = asyncio.ensure_future(record())
        return ctx.closing
