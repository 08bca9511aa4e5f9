"""A cell stopped on its deadline, an abort or a cancel keeps what it printed (cut at
max_output_chars) and leaves the kernel as it found it: the next cell gets its own output,
every time."""

from __future__ import annotations

import asyncio
import os

import pytest

from shokunin.sandbox import ExecPythonInput, Sandbox
from shokunin.sandbox.artifacts import truncation_marker
from tests.sandbox.conftest import BEGIN, begun

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel]

SPAM = "while True:\n    print('spam' * 1000)"
FORKS = ("import os, time\nfor _ in range(20):\n    if os.fork() == 0:\n"
         "        time.sleep(600)\n        os._exit(0)\n")


async def test_timed_out_noisy_cell_keeps_its_first_output(sandbox: Sandbox) -> None:
    for i in range(3):
        stopped = await sandbox.execute("noisy", ExecPythonInput(
            code=SPAM, timeout_sec=2, max_output_chars=1000))
        assert (stopped.ok, stopped.error_type) == (False, "Timeout")
        assert stopped.error_message.startswith("execution exceeded 2 s")
        assert stopped.stdout == "spam" * 250 + truncation_marker(1000)
        after = await sandbox.execute("noisy", ExecPythonInput(code=f"print('next {i}')"))
        assert (after.ok, after.stdout, after.stderr) == (True, f"next {i}\n", "")


async def test_cell_cancelled_twice_does_not_race_the_next(sandbox: Sandbox) -> None:
    for i in range(3):
        task = asyncio.create_task(sandbox.execute("cancelled", ExecPythonInput(
            code=BEGIN + "import time\nprint('started', flush=True)\ntime.sleep(60)")))
        await begun(sandbox, "cancelled")
        task.cancel()
        await asyncio.sleep(0)
        task.cancel()  # the caller gives up on the clean-up too
        with pytest.raises(asyncio.CancelledError):
            await task
        after = await sandbox.execute("cancelled", ExecPythonInput(code=f"print('next {i}')"))
        assert (after.ok, after.stdout) == (True, f"next {i}\n"), after


@pytest.mark.skipif(os.geteuid() != 0, reason="the kernel's own uid needs a root server")
async def test_forks_of_a_stopped_cell_die_with_it(bare: Sandbox) -> None:
    """Forks left running hold the kernel's process slots, and a kernel that cannot start a
    thread loses its output: they are killed and reaped when their cell is stopped. (The
    audit hook refuses os.fork; this is the OS wall's clean-up behind it.)"""
    sandbox = bare
    kernel = await sandbox._kernel_for("forks", None)  # noqa: SLF001 (bypass the policy)
    for i in range(3):
        stopped = await sandbox._run(kernel, ExecPythonInput(  # noqa: SLF001
            code=FORKS + SPAM, timeout_sec=2, max_output_chars=1000), None)
        assert stopped.error_type == "Timeout", stopped  # (how far it got: the load's call)
        assert _processes_of(kernel.uid) == [kernel.pid]  # no fork, no zombie left
        after = await sandbox.execute("forks", ExecPythonInput(code=f"print('next {i}')"))
        assert (after.ok, after.stdout, after.stderr) == (True, f"next {i}\n", ""), after


def _processes_of(uid: int) -> list[int]:
    pids = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                if os.stat(f"/proc/{name}").st_uid == uid:
                    pids.append(int(name))
            except FileNotFoundError:
                pass
    return pids
