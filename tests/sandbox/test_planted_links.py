"""Issue 15 item 1: the root server never follows a link that sandboxed code planted.

Every place a kernel can write (its own folder, its workspace) gets a symlink, a hard link
or a FIFO aimed at a root-owned file outside; then the server does what it does there
(restart the kernel, inject a context, hand the workspace to the thread's next kernel,
remove the kernel's folder) and the file must be as it was: content, owner and mode.
Links are planted by the test (root) wherever the kernel's uid could write: the kernel
itself cannot make a hard link to root's files while fs.protected_hardlinks is on, but a
host may have it off.
"""

from __future__ import annotations

import os
import shutil
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest

from shokunin.sandbox import ExecPythonInput, Sandbox

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.skipif(os.geteuid() != 0, reason="links only matter to a root server"),
]


class Target:
    """A root-owned file outside every sandbox folder, and how it must stay."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / "precious.txt"
        self.path.write_text("precious\n")
        self.path.chmod(0o644)
        self.before = self.state()

    def state(self) -> tuple[str, int, int, int]:
        st = self.path.stat()
        return self.path.read_text(), st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)


@pytest.fixture
def target(tmp_path: Path) -> Iterator[Target]:
    yield Target(tmp_path)


def kernel_may_write(folder: Path, uid: int) -> bool:
    st = folder.lstat()
    if not stat.S_ISDIR(st.st_mode):
        return False
    mode = st.st_mode
    return bool((st.st_uid == uid and mode & stat.S_IWUSR)
                or (st.st_gid == uid and mode & stat.S_IWGRP) or mode & stat.S_IWOTH)


def plant(folder: Path, name: str, target: Path, kind: str, uid: int) -> bool:
    """Put a ``kind`` link named ``name`` in ``folder`` if the kernel could; True if so."""
    if not kernel_may_write(folder, uid):
        return False
    path = folder / name
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    elif path.exists() or path.is_symlink():
        path.unlink()
    if kind == "symlink":
        path.symlink_to(target)
    elif kind == "hardlink":
        path.hardlink_to(target)
    else:
        os.mkfifo(path)
    return True


def kernel_folder(kernel) -> Path:  # noqa: ANN001
    return Path(kernel._km.connection_file).parent  # noqa: SLF001


async def stdout_of(sandbox: Sandbox, thread: str, code: str, **kw: object) -> str:
    result = await sandbox.execute(thread, ExecPythonInput(code=code, timeout_sec=60, **kw))
    assert result.ok, result
    return result.stdout


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
async def test_font_cache_on_restart(sandbox: Sandbox, target: Target, kind: str) -> None:
    thread = f"links-mpl-{kind}"
    await stdout_of(sandbox, thread, "import matplotlib")
    kernel = sandbox._kernels[thread]  # noqa: SLF001
    # where the launcher copies the cache as the kernel's uid (the kernel's MPLCONFIGDIR; a
    # kernel forked from the template loaded its fonts there and still names its folder)
    configdir = kernel.folder.home / "mpl"
    names = os.listdir(sandbox._walls.mpl_cache)  # noqa: SLF001
    assert names and all(plant(configdir, n, target.path, kind, kernel.uid) for n in names)
    os.kill(kernel.pid, 9)  # a cell can do this to its own kernel
    died = await sandbox.execute(thread, ExecPythonInput(code="1"))
    assert died.error_type == "KernelDied"  # ... and the kernel restarts
    assert await stdout_of(sandbox, thread, "print('back')") == "back\n"
    assert target.state() == target.before


@pytest.mark.parametrize("kind", ["symlink", "hardlink"])
async def test_context_injection(sandbox: Sandbox, target: Target, kind: str) -> None:
    thread = f"links-context-{kind}"
    await stdout_of(sandbox, thread, "1")
    kernel = sandbox._kernels[thread]  # noqa: SLF001
    plant(kernel_folder(kernel), "context.json", target.path, kind, kernel.uid)
    assert await stdout_of(sandbox, thread, "print(limit)", context={"limit": 7}) == "7\n"
    assert target.state() == target.before


async def test_workspace_handed_to_the_next_kernel(sandbox: Sandbox, target: Target,
                                                   tmp_path: Path) -> None:
    thread = "links-workspace"
    workspace = Path(sandbox.settings.data_dir) / "workspaces" / thread
    await stdout_of(sandbox, thread, "import pandas as pd\n"
                    "pd.DataFrame({'a': [1]}).to_csv('own.csv', index=False)")
    first = sandbox._kernels[thread].uid  # noqa: SLF001
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "inner.txt").write_text("inner\n")
    for name, kind in (("link", "symlink"), ("hard", "hardlink"), ("fifo", "fifo")):
        assert plant(workspace, name, target.path, kind, first)
    (workspace / "sub").mkdir()
    assert plant(workspace / "sub", "deeper", target.path, "hardlink", 0)
    (workspace / "dirlink").symlink_to(outside)
    await sandbox.close_thread(thread)  # the next kernel of the thread has another uid

    csv = "import pandas as pd\nprint(pd.read_csv('own.csv')['a'].sum())"
    assert await stdout_of(sandbox, thread, csv) == "1\n"
    second = sandbox._kernels[thread].uid  # noqa: SLF001
    assert second != first and (workspace / "own.csv").stat().st_uid == second
    assert target.state() == target.before
    inner = (outside / "inner.txt").stat()
    assert (outside.stat().st_uid, inner.st_uid) == (0, 0)


async def test_kernel_folder_removed(sandbox: Sandbox, tmp_path: Path) -> None:
    thread = "links-removal"
    await stdout_of(sandbox, thread, "1")
    kernel = sandbox._kernels[thread]  # noqa: SLF001
    outside = tmp_path / "keep"
    outside.mkdir()
    (outside / "file.txt").write_text("keep\n")
    planted = [plant(Path(folder), "escape", outside, "symlink", kernel.uid)
               for folder, _, _ in os.walk(kernel_folder(kernel))]
    assert any(planted)
    await sandbox.close_thread(thread)
    assert (outside / "file.txt").read_text() == "keep\n"
