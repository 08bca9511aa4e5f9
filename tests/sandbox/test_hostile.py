"""The hostile corpus: every snippet is refused before it runs, or runs and is contained.

The contained ones are sent past the policy on purpose (as if it had a hole), so that
they test the OS wall alone. After all of them the server's event loop still answers at
once and another thread's kernel still works.
"""

from __future__ import annotations

import asyncio
import os
import time

import pytest

from shokunin.sandbox import ExecPythonInput, Sandbox
from tests.sandbox.conftest import BEGIN, begun
from tests.sandbox.corpus import BLOCKED, CONTAINED, STOPPED_BY_TIMEOUT

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel]


@pytest.mark.parametrize("code", BLOCKED.values(), ids=BLOCKED.keys())
async def test_blocked_never_runs(sandbox: Sandbox, code: str) -> None:
    result = await sandbox.execute("hostile", ExecPythonInput(code=code, timeout_sec=2))
    assert not result.ok
    assert result.error_type in ("PolicyViolation", "SyntaxError"), result
    assert "line " in result.error_message
    assert "hostile" not in sandbox.threads(), "a refused cell must not even start a kernel"


async def test_policy_violation_reports_line_and_reason(sandbox: Sandbox) -> None:
    result = await sandbox.execute("hostile", ExecPythonInput(code="x = 1\nimport os"))
    assert result.error_type == "PolicyViolation"
    assert result.error_message == "line 2: import of 'os' is not allowed (system access)"


@pytest.mark.skipif(os.geteuid() != 0, reason="the full OS wall needs root (README: sandbox)")
@pytest.mark.parametrize("name", CONTAINED.keys())
async def test_contained(sandbox: Sandbox, name: str) -> None:
    code, check = CONTAINED[name]
    code = code.replace("{data_dir}", str(sandbox.settings.data_dir.resolve())).replace(
        "{server_pid}", str(os.getpid()))
    (sandbox.settings.data_dir / "workspaces" / "victim").mkdir(parents=True, exist_ok=True)
    kernel = await sandbox._kernel_for("contained", None)  # noqa: SLF001 (bypass the policy)
    by_clock = name in STOPPED_BY_TIMEOUT
    inp = ExecPythonInput(code=code, timeout_sec=2 if by_clock else 120, max_output_chars=2000)
    result = await sandbox._run(kernel, inp, None)  # noqa: SLF001
    shown = result.model_dump(exclude={"plot_png_base64"})
    assert by_clock or result.error_type != "Timeout", shown  # a wall held, not the clock
    assert check(result), shown


async def test_server_and_other_threads_still_fine(sandbox: Sandbox) -> None:
    """While a kernel spins and after the corpus, the loop is quick and others still run."""
    busy = asyncio.create_task(sandbox.execute(
        "spinner", ExecPythonInput(code=BEGIN + "while True:\n    pass", timeout_sec=2)))
    await begun(sandbox, "spinner")
    worst = 0.0
    for _ in range(20):
        started = time.monotonic()
        await asyncio.sleep(0)
        worst = max(worst, time.monotonic() - started)
    result = await sandbox.execute("bystander", ExecPythonInput(code="sum(range(10))"))
    assert result.ok and result.stdout == "45\n"
    assert (await busy).error_type == "Timeout"
    assert worst < 0.5
    again = await sandbox.execute("contained", ExecPythonInput(code="print('still here')"))
    assert again.ok and again.stdout == "still here\n"
