"""shokunin.untrusted: a parse runs in another process, within its memory, CPU and wall
time, and hands back its result, its own exception, or a clear bound exceeded."""

from __future__ import annotations

import os
import sys
import threading
import time
import types
from pathlib import Path

import pytest

from shokunin import untrusted
from shokunin.untrusted import (
    Bounds,
    Cancelled,
    Descriptor,
    OutOfMemory,
    OutOfTime,
    ResultTooLarge,
)

SMALL = Bounds(memory_bytes=128 * 2**20, cpu_seconds=2, wall_seconds=5)


def _pid() -> int:
    return os.getpid()


def _allocate(size: int) -> int:
    return len(bytearray(size))


def _sleep() -> None:
    time.sleep(60)


def _say_then_sleep() -> None:
    untrusted.report("running")
    time.sleep(60)


def _spin() -> None:
    while True:
        pass


def _refuse() -> None:
    raise ValueError("not a table: row 3")


class _Odd(Exception):
    def __init__(self, a: int, b: int) -> None:
        super().__init__(a)  # unpickles with one argument: fails in the parent


def _odd() -> None:
    raise _Odd(1, 2)


def _read(file: Descriptor) -> bytes:
    with open(file.path, "rb") as f:
        return f.read()


def _text(size: int) -> str:
    return "x" * size


def _overlap(log: str) -> None:
    """Writes when it starts and ends (one line each, appended), holding its slot a while."""
    with open(log, "a") as f:
        f.write(f"start {time.time()}\n")
    time.sleep(0.4)
    with open(log, "a") as f:
        f.write(f"end {time.time()}\n")


def _progress() -> str:
    for step in range(3):
        untrusted.report(("load", step, 3))
    return "done"


def test_the_parse_runs_in_another_process() -> None:
    assert untrusted.run(_pid, bounds=SMALL) != os.getpid()


def test_memory_past_the_bound_is_out_of_memory_and_within_it_is_fine() -> None:
    assert untrusted.run(_allocate, 32 * 2**20, bounds=SMALL) == 32 * 2**20
    with pytest.raises(OutOfMemory, match="128 MiB"):
        untrusted.run(_allocate, 512 * 2**20, bounds=SMALL)


def test_a_parse_past_its_wall_time_is_killed() -> None:
    started = time.monotonic()
    with pytest.raises(OutOfTime, match="longer than 1 s"):
        untrusted.run(_sleep, bounds=Bounds(wall_seconds=1))
    assert time.monotonic() - started < 5


def test_a_parse_past_its_cpu_time_is_stopped() -> None:
    with pytest.raises(OutOfTime, match="CPU"):
        untrusted.run(_spin, bounds=Bounds(cpu_seconds=1, wall_seconds=30))


def test_the_parsers_own_exception_comes_back() -> None:
    with pytest.raises(ValueError, match="row 3"):
        untrusted.run(_refuse, bounds=SMALL)
    with pytest.raises(RuntimeError, match="_Odd"):
        untrusted.run(_odd, bounds=SMALL)


def test_a_descriptor_is_read_in_the_child(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_bytes(b"a,b\n1,2\n")
    fd = os.open(path, os.O_RDONLY)
    path.unlink()  # the child cannot be reading it by name
    try:
        assert untrusted.run(_read, Descriptor(fd), bounds=SMALL) == b"a,b\n1,2\n"
    finally:
        os.close(fd)


def test_reports_reach_the_parent_in_order() -> None:
    seen: list[object] = []
    assert untrusted.run(_progress, bounds=SMALL, on_message=seen.append) == "done"
    assert seen == [("load", 0, 3), ("load", 1, 3), ("load", 2, 3)]


def test_a_child_does_not_run_the_main_script_again(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    # ``shokunin serve``'s main is a script: run again per child, it cost seconds per parse
    marker = tmp_path / "ran"
    script = tmp_path / "server_main.py"
    script.write_text(f"open({str(marker)!r}, 'w').close()\n")
    main = types.ModuleType("__main__")
    main.__file__ = str(script)
    monkeypatch.setitem(sys.modules, "__main__", main)
    assert untrusted.run(_pid, bounds=SMALL) != os.getpid()
    assert not marker.exists()


def test_an_answer_past_its_bound_is_refused_without_being_read() -> None:
    bounds = Bounds(memory_bytes=128 * 2**20, wall_seconds=10, result_bytes=2**20)
    assert len(untrusted.run(_text, 2**19, bounds=bounds)) == 2**19
    with pytest.raises(ResultTooLarge, match="more than 1 MiB"):
        untrusted.run(_text, 8 * 2**20, bounds=bounds)


def test_no_more_children_than_the_bound_run_at_once(tmp_path: Path) -> None:
    log = tmp_path / "log"
    bounds = Bounds(memory_bytes=128 * 2**20, wall_seconds=30, children=2)
    waited: list[int] = []
    runs = [threading.Thread(target=untrusted.run, args=(_overlap, str(log)),
                             kwargs={"bounds": bounds, "on_wait": lambda: waited.append(1)})
            for _ in range(5)]
    for run in runs:
        run.start()
    for run in runs:
        run.join()
    events = sorted((float(t), kind) for kind, t in
                    (line.split() for line in log.read_text().splitlines()))
    running, most = 0, 0
    for _, kind in events:  # at equal times "end" sorts before "start"
        running += 1 if kind == "start" else -1
        most = max(most, running)
    assert len(events) == 10 and most == 2
    assert len(waited) >= 3  # the other three were told they wait


def test_a_parse_waiting_for_a_slot_or_running_is_cancelled() -> None:
    bounds = Bounds(memory_bytes=128 * 2**20, wall_seconds=60, children=1)
    first, second = threading.Event(), threading.Event()
    running, waiting = threading.Event(), threading.Event()  # the first, the second
    errors: list[BaseException] = []

    def run(cancel: threading.Event) -> None:
        try:
            untrusted.run(_say_then_sleep, bounds=bounds, cancel=cancel,
                          on_message=lambda _: running.set(), on_wait=waiting.set)
        except BaseException as exc:
            errors.append(exc)
    runs = [threading.Thread(target=run, args=(event,)) for event in (first, second)]
    started = time.monotonic()
    runs[0].start()
    assert running.wait(10), "the first parse never ran"
    runs[1].start()
    assert waiting.wait(10), "the second parse never waited for a slot"
    second.set()
    runs[1].join(5)
    assert [str(e) for e in errors] == ["the parse was cancelled while it waited for a slot"]
    first.set()
    runs[0].join(5)
    assert isinstance(errors[-1], Cancelled) and time.monotonic() - started < 5
