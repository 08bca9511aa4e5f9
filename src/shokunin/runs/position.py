"""ThreadPosition: how far a client has seen a thread's events, to replay what it missed.

A thread has two kinds of events: its runs' (numbered per run) and its own (numbered per
thread: a Studio project's status changed by a person, a checkpoint resolved). Runs on a
thread go one at a time, so a position is the thread's own last seq and the last run event
seen (run id and seq); its text form, ``"<thread seq>"`` or ``"<thread seq>:<run id>:<run
seq>"``, is what a client keeps and sends back (``Runner.follow_thread(after=...)``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from shokunin.events import BaseEvent
from shokunin.runs.errors import InvalidRunInput

_TEXT = re.compile(r"^(\d{1,12})(?::([A-Za-z0-9_.-]{1,64}):(\d{1,12}))?$")


@dataclass(frozen=True)
class ThreadPosition:
    thread_seq: int = 0  # the thread's own events seen, 1..thread_seq
    run_id: str | None = None  # the last run whose events were seen
    run_seq: int = 0  # that run's events seen, 1..run_seq

    def after(self, event: BaseEvent) -> ThreadPosition:
        """The position once ``event`` (of this thread) is seen too."""
        if not event.run_id:
            return replace(self, thread_seq=max(self.thread_seq, event.seq))
        if event.run_id == self.run_id:
            return replace(self, run_seq=max(self.run_seq, event.seq))
        return replace(self, run_id=event.run_id, run_seq=event.seq)

    def __str__(self) -> str:
        if self.run_id is None:
            return str(self.thread_seq)
        return f"{self.thread_seq}:{self.run_id}:{self.run_seq}"

    @classmethod
    def parse(cls, text: str) -> ThreadPosition:
        """Read a position's text form; ``InvalidRunInput`` if it is not one."""
        match = _TEXT.match(text) if isinstance(text, str) else None
        if match is None:
            raise InvalidRunInput(f"{str(text)[:80]!r} is not a thread position: send back "
                                  "the position of the last event you saw")
        thread_seq, run_id, run_seq = match.groups()
        return cls(int(thread_seq), run_id, int(run_seq or 0))
