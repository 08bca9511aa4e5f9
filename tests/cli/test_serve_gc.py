"""``shokunin serve``'s collector schedule (cli/serve.py tune_gc), in a process of its own:
it freezes the heap and changes the collector's settings for the whole process."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from shokunin.cli.serve import BURST_OBJECTS
from shokunin.config import Settings


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_timed_collection_frees_cyclic_garbage_that_allocations_no_longer_trigger() -> None:
    out = _python("""
        import gc, time, weakref
        from shokunin.cli.serve import tune_gc
        tune_gc(0.2)
        class Node: pass
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        # New objects far above Python's own threshold, far below ours: no collection yet.
        kept = [[] for _ in range(20_000)]
        print(gone() is not None, gc.get_threshold()[0])
        deadline = time.monotonic() + 10
        while gone() is not None and time.monotonic() < deadline:
            time.sleep(0.05)
        print(gone() is None)
    """)
    assert out.split() == ["True", str(BURST_OBJECTS), "True"]


def test_interval_zero_leaves_pythons_own_schedule() -> None:
    out = _python("""
        import gc, threading
        default = gc.get_threshold()
        from shokunin.cli.serve import tune_gc
        tune_gc(0)
        print(gc.get_threshold() == default, gc.isenabled(),
              any(t.name == "shokunin-gc" for t in threading.enumerate()))
    """)
    assert out.split() == ["True", "True", "False"]


@pytest.mark.parametrize("value", ["nan", "inf", "-1"])
def test_a_gc_interval_that_is_not_a_finite_non_negative_number_is_refused(
        monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SHOKUNIN_GC_INTERVAL_SEC", value)
    with pytest.raises(ValueError, match="gc_interval_sec"):
        Settings()
