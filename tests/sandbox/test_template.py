"""Kernels forked from the template process (issue 39): they share its pages, hold none of
the server's secrets, cannot reach it, and the sandbox carries on when it goes.

What a forked kernel may not do to the template or a sibling (signal, trace, read its
memory, use its descriptors) is in the escape corpus (tests/sandbox/corpus.py, ARBITRARY),
run as root and as a normal user by test_arbitrary_code.py.
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio

from shokunin.config import default_max_kernels
from shokunin.sandbox import ExecPythonInput, Sandbox
from shokunin.sandbox import sandbox as sandbox_module
from shokunin.sandbox.kernel import HERE, Kernel, Walls, common_env
from shokunin.sandbox.template import ForkedProcess, KernelTemplate, TemplateUnavailable
from tests.sandbox.conftest import SECRET, sandbox_settings
from tests.waiting import eventually

pytestmark = pytest.mark.kernel

in_loop = pytest.mark.asyncio(loop_scope="module")
PLOT = ("import pandas as pd\nimport matplotlib.pyplot as plt\n"
        "pd.DataFrame({'a': [1, 2, 3]}).plot()\nplt.show()\nprint('plotted')")


def _cell(code: str) -> ExecPythonInput:
    return ExecPythonInput(code=code, timeout_sec=60)


def _rollup(pid: int) -> dict[str, int]:
    text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    return {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()
            if line.endswith("kB")}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def forking() -> AsyncIterator[Sandbox]:
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard > 1024:  # as many shells start a server
        resource.setrlimit(resource.RLIMIT_NOFILE, (1024, hard))
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SHOKUNIN_TEST_SECRET", SECRET)
        sb = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0))
        await sb.start()
        yield sb
        await sb.shutdown()
    shutil.rmtree(data_dir, ignore_errors=True)


@in_loop
async def test_kernels_are_forked_from_the_template(forking: Sandbox) -> None:
    result = await forking.execute("first", _cell(PLOT))
    kernel = forking._kernels["first"]  # noqa: SLF001
    assert result.ok and "plotted" in result.stdout, result.stderr
    assert len(result.plot_png_base64) == 1  # the inline backend hooked into the kernel
    assert forking.template is not None and kernel.forked
    assert _parent_of(kernel.pid) == forking.template.pid


@in_loop
async def test_the_server_may_hold_a_descriptor_per_kernel_socket(forking: Sandbox) -> None:
    """Started at a soft limit of 1024 open files, the server raises it to the hard limit:
    a hundred kernels hold more descriptors than that."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    assert soft == hard or hard == resource.RLIM_INFINITY and soft >= 1 << 16


@in_loop
async def test_forked_kernels_share_the_templates_pages(forking: Sandbox) -> None:
    """A cold kernel's anonymous memory (Python's heap: the imported modules) is its own;
    a forked kernel shares most of it with the template and its siblings."""
    for thread in ("share-a", "share-b"):
        assert (await forking.execute(thread, _cell(PLOT))).ok
    for thread in ("share-a", "share-b"):
        pid = forking._kernels[thread].pid  # noqa: SLF001
        memory = _rollup(pid)
        assert memory["Shared_Dirty"] > 30 * 1024, memory  # copied on write, not yet written
        assert memory["Pss_Anon"] < 0.8 * memory["Anonymous"], memory


@in_loop
async def test_forked_kernels_hold_no_server_secret_in_memory(forking: Sandbox) -> None:
    """The template starts from a scrubbed environment, not as a fork of the server: none
    of the server's memory (its environment, its settings) is in a kernel's."""
    assert (await forking.execute("secret", _cell("x = 1"))).ok
    pid = forking._kernels["secret"].pid  # noqa: SLF001
    assert pid is not None and os.environ["SHOKUNIN_TEST_SECRET"] == SECRET
    assert SECRET.encode() not in _memory_of(pid)
    assert forking.template is not None and forking.template.pid is not None
    assert SECRET.encode() not in _memory_of(forking.template.pid)


@in_loop
async def test_a_forked_kernel_imports_from_where_a_cold_one_does(forking: Sandbox) -> None:
    """The template runs by path from shokunin's sandbox folder, which heads its sys.path:
    a kernel must not import shokunin's modules (launcher, policy...) by their bare names."""
    kernel = await forking._kernel_for("path", None)  # noqa: SLF001 (past the policy)
    result = await forking._run(kernel, _cell("import sys\nprint(sys.path)"), None)  # noqa: SLF001
    assert result.ok, result
    assert str(HERE) not in result.stdout and str(kernel.folder.work) in result.stdout


@in_loop
async def test_each_forked_kernel_draws_its_own_random_numbers(forking: Sandbox) -> None:
    code = "import numpy as np\nimport random\nprint(np.random.randint(1 << 30), random.random())"
    first = await forking.execute("random-a", _cell(code))
    second = await forking.execute("random-b", _cell(code))
    assert first.ok and second.ok
    numpy_a, python_a = first.stdout.split()
    numpy_b, python_b = second.stdout.split()
    assert numpy_a != numpy_b and python_a != python_b


@in_loop
async def test_the_template_holds_no_thread_and_no_descriptor_a_kernel_could_inherit(
        forking: Sandbox) -> None:
    assert forking.template is not None and forking.template.pid is not None
    pid = forking.template.pid
    assert len(os.listdir(f"/proc/{pid}/task")) == 1
    fds = sorted(int(fd) for fd in os.listdir(f"/proc/{pid}/fd"))
    assert len([fd for fd in fds if fd > 2]) == 1, fds  # its control socket alone
    kernel = forking._kernels["first"]  # noqa: SLF001
    control = os.readlink(f"/proc/{pid}/fd/{fds[-1]}")
    held = {os.readlink(f"/proc/{kernel.pid}/fd/{fd}")
            for fd in os.listdir(f"/proc/{kernel.pid}/fd")}
    assert control.startswith("socket:") and control not in held


@in_loop
async def test_an_exited_kernels_pid_stays_held_until_the_server_lets_it_go(
        forking: Sandbox) -> None:
    """The server signals a kernel's process group by number (jupyter_client's kill,
    stopping a cell): a kernel that exited on its own stays a zombie of the template, its
    pid not reusable, until the sandbox has closed it."""
    assert (await forking.execute("exits", _cell("x = 1"))).ok
    kernel = forking._kernels["exits"]  # noqa: SLF001
    pid = kernel.pid
    assert pid is not None and forking.template is not None
    os.kill(pid, signal.SIGKILL)  # as the out-of-memory killer would, or a cell's own exit
    await eventually(lambda: not kernel.is_alive(), 10, what="the killed kernel seen dead")
    await asyncio.sleep(0.2)  # time for the template to reap it, were it to
    assert _state_of(pid) == "Z" and _parent_of(pid) == forking.template.pid
    await forking.close_thread("exits")
    await eventually(lambda: _state_of(pid) is None, 10,  # released, then reaped
                     what="the kernel's zombie reaped")


@in_loop
async def test_a_late_answer_from_the_template_is_not_taken_for_the_next_one(
        forking: Sandbox) -> None:
    """A fork request that timed out gets its answer later: the next request must not take
    it (it would get another thread's kernel), and that kernel, nobody's, is killed."""
    template = forking.template
    assert template is not None and template._control is not None  # noqa: SLF001
    argv = ["python", "launcher.py", "{}", "--", "python", "-c", "pass"]  # fails at once
    stale_id = next(template._ids)  # noqa: SLF001
    template._control.send(json.dumps({"id": stale_id, "argv": argv, "env": {},  # noqa: SLF001
                                       "cwd": "/"}).encode())
    control = template._control  # noqa: SLF001
    answered, _, _ = await asyncio.to_thread(select.select, [control], [], [], 10)
    assert answered, "the template did not answer"  # waiting, unread, as after a timeout
    process = await asyncio.to_thread(template.fork, argv, {}, "/")
    try:
        assert process.wait(timeout=10) is not None
        stale = [pid for pid in _children_of(template.pid) if pid != process.pid]
        assert process.pid not in stale
    finally:
        process.release()
    await eventually(lambda: not [p for p in _children_of(template.pid) if _state_of(p) == "Z"],
                     10, what="no zombie child of the template left")


@in_loop
async def test_a_kernel_start_cancelled_during_its_fork_leaves_no_kernel(
        forking: Sandbox, monkeypatch: pytest.MonkeyPatch) -> None:
    template = forking.template
    assert template is not None
    forked: list[int] = []
    fork = template.fork
    in_fork = threading.Event()

    def slow_fork(*args: object) -> ForkedProcess:
        in_fork.set()
        time.sleep(1.0)  # the start is cancelled meanwhile
        process = fork(*args)  # type: ignore[arg-type]
        forked.append(process.pid)
        return process

    monkeypatch.setattr(template, "fork", slow_fork)
    kernel = Kernel(forking._root, forking._allocate_uid(), forking._walls,  # noqa: SLF001
                    template)
    starting = asyncio.ensure_future(kernel.start())
    assert await asyncio.to_thread(in_fork.wait, 30), "the start never forked"
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await starting
    try:
        await eventually(lambda: forked and _state_of(forked[0]) in (None, "Z"), 15,
                         what="the unowned kernel ended")
    finally:
        await forking._discard(kernel)  # noqa: SLF001


@in_loop
async def test_kernels_die_with_the_template_and_the_next_one_forks_again(
        forking: Sandbox) -> None:
    assert (await forking.execute("orphan", _cell("x = 41"))).ok
    template = forking.template
    assert template is not None and template.pid is not None
    os.kill(template.pid, signal.SIGKILL)
    await eventually(lambda: not forking._kernels["orphan"].is_alive(),  # noqa: SLF001
                     10, what="the kernel dead with its template")
    died = await forking.execute("orphan", _cell("print(x + 1)"))
    assert died.error_type == "KernelDied", died
    # two threads at once: one starts the template again, the other's fork waits for it
    # to be ready rather than read its "ready" as a fork's answer
    fresh = await asyncio.gather(*(forking.execute(t, _cell("print('again')"))
                                   for t in ("after-a", "after-b")))
    assert all(r.ok and r.stdout.strip() == "again" for r in fresh), fresh
    assert all(forking._kernels[t].forked for t in ("after-a", "after-b"))  # noqa: SLF001
    assert template.alive()


@in_loop
async def test_kernels_start_cold_with_the_template_off() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    sb = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0, sandbox_template=False))
    await sb.start()
    try:
        result = await sb.execute("cold", _cell("print(6 * 7)"))
        assert result.ok and result.stdout.strip() == "42"
        assert sb.template is None and not sb._kernels["cold"].forked  # noqa: SLF001
        assert _parent_of(sb._kernels["cold"].pid) == os.getpid()  # noqa: SLF001
    finally:
        await sb.shutdown()
        shutil.rmtree(data_dir, ignore_errors=True)


@in_loop
async def test_a_template_that_would_fork_a_thread_refuses_to_start(tmp_path: Path) -> None:
    """Arrow's jemalloc starts a thread at import unless told not to: a fork copies only
    the thread that calls it, so the template says so, and kernels start cold."""
    env = common_env(Walls(memory_mb=1024, cpu_sec=60, max_procs=64, file_mb=16))
    del env["JE_ARROW_MALLOC_CONF"]
    template = KernelTemplate(tmp_path, {**env, "HOME": str(tmp_path)})
    with pytest.raises(TemplateUnavailable, match="threads"):
        await template.start()
    assert not template.alive()


@in_loop
async def test_a_sandbox_whose_template_cannot_start_caps_kernels_as_cold_ones(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def with_a_thread(walls: Walls) -> dict[str, str]:
        env = common_env(walls)
        del env["JE_ARROW_MALLOC_CONF"]  # Arrow's allocator starts a thread at import
        return env

    monkeypatch.setattr(sandbox_module, "common_env", with_a_thread)
    for fixed in (None, 7):
        data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
        data_dir.chmod(0o755)
        extra = {} if fixed is None else {"sandbox_max_kernels": fixed}
        sb = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0, **extra))
        await sb.start()
        try:
            result = await sb.execute("cold", _cell("print(6 * 7)"))
            assert result.ok and not sb._kernels["cold"].forked  # noqa: SLF001
            assert sb.template is None
            assert sb._quota.max_kernels == (fixed or default_max_kernels(template=False))  # noqa: SLF001
        finally:
            await sb.shutdown()
            shutil.rmtree(data_dir, ignore_errors=True)


def test_a_forked_process_is_watched_past_descriptor_1024() -> None:
    """A server with a hundred kernels holds more than 1024 descriptors: select(2) cannot
    watch a pidfd numbered past that, poll(2) can."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard < 2048:
        pytest.skip("the open-files limit stops below 2048")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 2048), hard))
    child = subprocess.Popen(["sleep", "60"])
    try:
        pidfd = os.pidfd_open(child.pid)
        high = os.dup2(pidfd, 1500, inheritable=False)
        os.close(pidfd)
        process = ForkedProcess(child.pid, high)
        assert process.poll() is None
        process.kill()
        assert process.wait(timeout=10) == -signal.SIGKILL and process.poll() is not None
    finally:
        child.kill()
        child.wait()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _state_of(pid: int) -> str | None:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0]
    except OSError:
        return None


def _children_of(pid: int | None) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                if _parent_of(int(entry)) == pid:
                    found.append(int(entry))
            except (OSError, AssertionError):
                continue
    return found


def _parent_of(pid: int | None) -> int:
    assert pid is not None
    return int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])


def _memory_of(pid: int) -> bytes:
    """Every readable private mapping of ``pid`` (read as root, or as its uid)."""
    chunks = []
    with open(f"/proc/{pid}/maps") as maps, open(f"/proc/{pid}/mem", "rb", 0) as mem:
        for line in maps:
            match = re.match(r"([0-9a-f]+)-([0-9a-f]+) r\S+ \S+ \S+ \S+\s*(\S*)", line)
            if not match or match.group(3).startswith("[v"):  # [vvar], [vdso], [vsyscall]
                continue
            start, end = int(match.group(1), 16), int(match.group(2), 16)
            try:
                mem.seek(start)
                chunks.append(mem.read(end - start))
            except OSError:
                continue
    return b"".join(chunks)
