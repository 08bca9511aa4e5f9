"""The server's collector schedule (cli/collector.py), each in a process of its own: it
freezes the heap and changes the collector for the whole process."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from shokunin.cli.app import app as cli
from shokunin.cli.collector import BURST_OBJECTS
from shokunin.config import Settings

_CYCLE = """
    import gc, time, weakref
    from shokunin.cli.collector import starting, tune_gc
    class Node: pass
    def cycle(payload=None):
        a, b = Node(), Node()
        a.other, b.other, a.payload = b, a, payload
        return a
    def freed(ref, within=15.0):
        deadline = time.monotonic() + within
        while ref() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        return ref() is None
"""


def _python(code: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_CYCLE) + textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_timed_collection_is_a_full_one_and_allocations_no_longer_start_one() -> None:
    out = _python("""
        with starting():
            started = [cycle() for _ in range(1000)]  # a start's modules and objects
        tune_gc(1)
        print(gc.get_freeze_count() > 0, gc.get_threshold()[0])
        node = cycle()
        gc.collect(1)  # survives a young collection: now in the oldest generation
        gone = weakref.ref(node)
        del node
        print(freed(gone))
    """)
    assert out == ["True", str(BURST_OBJECTS), "True"]


def test_memory_growth_starts_a_full_collection_before_its_time() -> None:
    # A cycle of two small objects holding 64 MB: few objects, much memory (a rejected
    # request body held by its error's traceback, say).
    out = _python("""
        tune_gc(3600, growth_bytes=32 * 1024 * 1024)
        node = cycle(b"x" * (64 * 1024 * 1024))
        gc.collect(1)
        gone = weakref.ref(node)
        del node
        print(freed(gone))
    """)
    assert out == ["True"]


def test_a_start_is_collected_once_and_frozen_and_the_collector_is_on_again() -> None:
    out = _python("""
        import gc
        with starting():
            print(gc.isenabled())
            garbage = weakref.ref(cycle())  # a cycle the start left behind
            kept = cycle()
        print(gc.isenabled(), garbage() is None, gc.get_freeze_count() > 0,
              sum(gc.get_count()) < 100)  # far from starting an automatic collection
    """)
    assert out == ["False", "True", "True", "True", "True"]


def test_interval_zero_leaves_pythons_own_schedule() -> None:
    out = _python("""
        import threading
        default = gc.get_threshold()
        tune_gc(0)
        print(gc.get_threshold() == default, gc.isenabled(),
              any(t.name == "shokunin-gc" for t in threading.enumerate()))
    """)
    assert out == ["True", "True", "False"]


def test_serve_hands_the_setting_to_the_schedule(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    intervals: list[float] = []
    monkeypatch.setattr("shokunin.cli.collector.tune_gc", intervals.append)
    monkeypatch.setattr("uvicorn.run", lambda app, **kwargs: None)
    for name in ("SHOKUNIN_AUTH_TOKEN", "SHOKUNIN_HOST", "SHOKUNIN_DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("SHOKUNIN_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("SHOKUNIN_GC_INTERVAL_SEC", "7")
    assert CliRunner().invoke(cli, ["serve"]).exit_code == 0
    assert intervals == [7.0]


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0.5", "1e300"])
def test_a_gc_interval_outside_0_or_1_to_3600_seconds_is_refused(
        monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SHOKUNIN_GC_INTERVAL_SEC", value)
    with pytest.raises(ValueError, match="gc_interval_sec"):
        Settings()
