"""shokunin.untrusted: a parse runs in another process, within its memory, CPU and wall
time, and hands back its result, its own exception, or a clear bound exceeded."""

from __future__ import annotations

import os
import sys
import time
import types
from pathlib import Path

import pytest

from shokunin import untrusted
from shokunin.untrusted import Bounds, Descriptor, OutOfMemory, OutOfTime

SMALL = Bounds(memory_bytes=128 * 2**20, cpu_seconds=2, wall_seconds=5)


def _pid() -> int:
    return os.getpid()


def _allocate(size: int) -> int:
    return len(bytearray(size))


def _sleep() -> None:
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
