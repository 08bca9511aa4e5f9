"""The launcher's walls fail closed: no kernel without its seccomp filter where the system
has seccomp, and a missing Landlock is said once at start (the other walls still hold)."""

from __future__ import annotations

import dataclasses
import logging
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from shokunin.sandbox import Sandbox, SandboxUnavailable, landlock_rules, syscall_filter
from shokunin.sandbox.sandbox import _log_missing_walls
from tests.sandbox.conftest import sandbox_settings

# Stands in for pyseccomp on a system without libseccomp: it fails as pyseccomp does there.
NO_LIBSECCOMP = "raise OSError('libseccomp.so.2: cannot open shared object file')\n"


@pytest.mark.skipif(not syscall_filter.kernel_supports_seccomp(), reason="no seccomp here")
@pytest.mark.asyncio
async def test_kernel_does_not_start_without_its_seccomp_filter() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    data_dir.chmod(0o755)
    fake = Path(tempfile.mkdtemp(prefix="shokunin-no-libseccomp-", dir="/var/tmp"))
    fake.chmod(0o755)
    (fake / "pyseccomp.py").write_text(NO_LIBSECCOMP)
    (fake / "pyseccomp.py").chmod(0o644)
    sandbox = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0))
    try:
        sandbox._ensure_runtime()  # noqa: SLF001
        walls = sandbox._walls  # noqa: SLF001
        sandbox._walls = dataclasses.replace(  # noqa: SLF001
            walls, extra_env={"PYTHONPATH": str(fake)}, readable=(*walls.readable, str(fake)))
        with pytest.raises(SandboxUnavailable) as refused:
            await sandbox.start()
        assert "libseccomp cannot be loaded" in str(refused.value)
        assert "install libseccomp2" in str(refused.value)
    finally:
        await sandbox.shutdown()
        shutil.rmtree(fake, ignore_errors=True)
        shutil.rmtree(data_dir, ignore_errors=True)


def test_missing_landlock_is_logged_at_start(monkeypatch: pytest.MonkeyPatch,
                                             caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(landlock_rules, "abi_version", lambda: 0)
    with caplog.at_level(logging.WARNING, logger="shokunin.sandbox.sandbox"):
        _log_missing_walls()
    assert [r.message for r in caplog.records if "Landlock" in r.message] == [
        "this kernel has no Landlock (or it is disabled): sandbox kernels may read what "
        "their uid may read; the other walls hold"]


def test_confine_without_landlock_restricts_nothing(tmp_path: Path) -> None:
    """Run in a child: where the kernel has no Landlock, confine does nothing and says so."""
    code = (
        "import sys\nsys.path.insert(0, sys.argv[1])\nimport landlock_rules\n"
        "landlock_rules.abi_version = lambda: 0\n"
        "print(landlock_rules.confine(['/usr'], [], []))\n"
        "open(sys.argv[2], 'w').write('still writable')\n")
    here = Path(landlock_rules.__file__).parent
    proc = subprocess.run([sys.executable, "-c", code, str(here), str(tmp_path / "f")],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout == "0\n", proc.stderr
    assert (tmp_path / "f").read_text() == "still writable"

