"""exec_python behaviour: state, artifacts, error mapping, timeouts, kernel death, idle
shutdown, the pool, context injection and the events of run_in."""

from __future__ import annotations

import asyncio
import base64
import os
import threading
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from shokunin import events
from shokunin.runs import MemoryBus, RunContext
from shokunin.sandbox import ExecPythonInput, Sandbox
from shokunin.store import Store
from tests.sandbox.conftest import BEGIN, begun
from tests.waiting import eventually

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.kernel]


def run(code: str, **kw: object) -> ExecPythonInput:
    return ExecPythonInput(code=code, timeout_sec=kw.pop("timeout_sec", 5), **kw)


async def test_state_persists_across_executions(sandbox: Sandbox) -> None:
    assert (await sandbox.execute("state", run("x = 41"))).ok
    result = await sandbox.execute("state", run("print(x + 1)"))
    assert result.ok and result.stdout == "42\n"
    other = await sandbox.execute("state-other", run("x"))
    assert other.error_type == "NameError"


async def test_plot_comes_back_as_png(sandbox: Sandbox, tmp_path: Path) -> None:
    code = ("import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n"
            "plt.title('月別売上の推移')\nplt.xlabel('月')\nplt.show()")
    result = await sandbox.execute("art", run(code))
    assert result.ok, result
    [png] = result.plot_png_base64
    data = base64.b64decode(png)
    assert data.startswith(b"\x89PNG")
    (Path(os.environ.get("SHOKUNIN_PLOT_OUT", tmp_path)) / "plot.png").write_bytes(data)


async def test_dataframe_becomes_markdown_and_html(sandbox: Sandbox) -> None:
    code = "import pandas as pd\npd.DataFrame({'都市': ['東京', '大阪'], 'n': [3, 1]})"
    result = await sandbox.execute("art", run(code))
    [table] = result.table_markdown
    assert table.splitlines()[0] == "|  | 都市 | n |"
    assert "| 0 | 東京 | 3 |" in table
    assert "<table" in result.table_html[0]
    shown = await sandbox.execute("art", run("display(pd.Series([1, 2], name='s'))\n1"))
    assert len(shown.table_markdown) == 1 and shown.stdout == "1\n"


async def test_json_results(sandbox: Sandbox) -> None:
    result = await sandbox.execute("art", run("{'a': [1, 2], 'b': 'x'}"))
    assert result.json == [{"a": [1, 2], "b": "x"}]


async def test_exception_maps_to_clean_traceback(sandbox: Sandbox) -> None:
    result = await sandbox.execute("err", run("def f():\n    return 1 / 0\nf()"))
    assert (result.ok, result.error_type) == (False, "ZeroDivisionError")
    assert result.error_message == "division by zero"
    assert "\x1b[" not in result.stderr
    assert "ipykernel" not in result.stderr and "site-packages/IPython" not in result.stderr
    assert result.stderr.strip().endswith("ZeroDivisionError: division by zero")
    assert "return 1 / 0" in result.stderr


async def test_syntax_error(sandbox: Sandbox) -> None:
    result = await sandbox.execute("err", run("x = (1,\nprint(x"))
    assert result.error_type == "SyntaxError" and "line" in result.error_message


async def test_timeout_interrupts_and_keeps_state(sandbox: Sandbox) -> None:
    await sandbox.execute("slow", run("kept = 'yes'"))
    result = await sandbox.execute("slow", run("import time\ntime.sleep(60)", timeout_sec=1))
    assert result.error_type == "Timeout"
    assert (await sandbox.execute("slow", run("print(kept)"))).stdout == "yes\n"


async def test_dead_kernel_comes_back_fresh(sandbox: Sandbox) -> None:
    await sandbox.execute("dies", run("v = 1"))
    kernel = sandbox._kernels["dies"]  # noqa: SLF001
    os.kill(kernel.pid, 9)
    result = await sandbox.execute("dies", run("print('never')"))
    assert result.error_type == "KernelDied"
    after = await sandbox.execute("dies", run("print('fresh')\nv"))
    assert after.stdout.startswith("fresh") and after.error_type == "NameError"


async def test_abort_interrupts_promptly(sandbox: Sandbox) -> None:
    abort = threading.Event()
    loop = asyncio.get_running_loop()
    loop.call_later(0.5, abort.set)
    result = await sandbox.execute("abort", run("import time\ntime.sleep(60)", timeout_sec=30),
                                   abort=abort)
    assert result.error_type == "Interrupted"
    assert (await sandbox.execute("abort", run("1"))).ok


async def test_cancel_interrupts_the_kernel(sandbox: Sandbox) -> None:
    task = asyncio.create_task(sandbox.execute("cancel", run(
        BEGIN + "import time\ntime.sleep(60)", timeout_sec=30)))
    await begun(sandbox, "cancel")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert (await sandbox.execute("cancel", run("1 + 1"))).stdout == "2\n"


async def test_context_values_and_dataframes(sandbox: Sandbox) -> None:
    df = pd.DataFrame({"a": [1, 2, 3], "d": pd.to_datetime(["2024-01-01"] * 3)})
    result = await sandbox.execute("ctx", run(
        "print(len(df), df['a'].sum(), str(df['d'].dtype)[:10], limit)",
        context={"df": df, "limit": 5}))
    assert result.ok and result.stdout == "3 6 datetime64 5\n", result


async def test_workspace_is_the_working_folder(sandbox: Sandbox, tmp_path: Path) -> None:
    workspace = Path(sandbox.settings.data_dir) / "workspaces" / "ws-test"
    workspace.mkdir(parents=True)
    (workspace / "sales.csv").write_text("a,b\n1,2\n3,4\n")
    result = await sandbox.execute("ws", run(
        "import pandas as pd\ndf = pd.read_csv('sales.csv')\ndf.to_csv('out.csv')\n"
        "print(df['b'].sum())"), workspace=workspace)
    assert result.stdout == "6\n", result
    assert (workspace / "out.csv").exists()


async def test_idle_kernels_are_shut_down(sandbox: Sandbox) -> None:
    await sandbox.execute("idle", run("1"))
    sandbox.idle_sec, saved = 0.0, sandbox.idle_sec
    try:
        closed = await sandbox.reap_idle()
    finally:
        sandbox.idle_sec = saved
    assert "idle" in closed and "idle" not in sandbox.threads()


async def test_pool_hands_out_warm_kernels(sandbox: Sandbox) -> None:
    await sandbox.pool.wait_filled()
    assert sandbox.pool.ready == 1
    assert (await sandbox.execute("pooled", run("1"))).ok
    await sandbox.pool.wait_filled()
    assert sandbox.pool.ready == 1


async def test_run_in_emits_code_result_image_table(sandbox: Sandbox, tmp_path: Path) -> None:
    store = await Store.open(f"sqlite+aiosqlite:///{tmp_path}/x.db")
    try:
        await store.ensure_thread("run-thread", "test")
        await store.create_run("r1", "run-thread", "test", {})
        # where the Runner puts a thread's workspace: in the data folder (one under pytest's
        # own /tmp folder is hidden by a kernel's private /tmp on a non-root server)
        workspace = sandbox._default_workspace("run-thread")  # noqa: SLF001
        workspace.mkdir(parents=True, exist_ok=True)
        ctx = RunContext(run_id="r1", thread_id="run-thread", agent="test", store=store,
                         bus=MemoryBus(), workspace=workspace)
        code = ("import matplotlib.pyplot as plt\nimport pandas as pd\nplt.plot([1, 2])\n"
                "plt.show()\nprint('hi')\npd.DataFrame({'a': [1]})")
        result = await sandbox.run_in(ctx, ExecPythonInput(code=code), step="analyse")
        assert result.ok
        stored = await eventually(  # the store writes events in the background
            lambda: _at_least(store.events_after("r1"), 4), what="the four events stored")
        assert [e.kind for e in stored] == ["code", "code_result", "image", "table"]
        code_event, code_result = (await store.events_after("r1"))[:2]
        assert isinstance(code_event, events.Code) and code_event.step == "analyse"
        assert code_result.stdout == "hi\n" and code_result.step == "analyse"
    finally:
        await sandbox.close_thread("run-thread")
        await store.close()


async def _at_least(stored: Awaitable[list[Any]], count: int) -> list[Any] | None:
    found = await stored
    return found if len(found) >= count else None
