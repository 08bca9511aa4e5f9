"""The launcher's walls fail closed: no kernel without its seccomp filter where the system
has seccomp, and a missing Landlock is said once at start (the other walls still hold)."""

from __future__ import annotations

import dataclasses
import json
import logging
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from shokunin.sandbox import (
    Sandbox,
    SandboxUnavailable,
    landlock_rules,
    syscall_filter,
    walls_report,
)
from shokunin.sandbox.sandbox import _log_missing_walls
from tests.sandbox.conftest import sandbox_settings

pytestmark = pytest.mark.kernel

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



def _facts(**changes: object) -> str:
    facts = {"root_fs": "tmpfs", "run": False, "interfaces": ["lo"], "uid": 620001,
             "seccomp": "2", "listed_root": False, **changes}
    return "probe output\n" + json.dumps(facts) + "\n"


def test_walls_report_says_what_holds_and_what_that_means() -> None:
    """Read from the probe's facts, not from what was asked for: a root server with all
    walls, a normal user's (shared uid), one without a view (Python refused unless the
    weaker walls are accepted)."""
    full = walls_report.measure(_facts(), server_uid=0, is_root=True, landlock_abi=6,
                                weak_walls_accepted=False)
    assert full.python and full.missing == [] and full.reason is None
    assert full.summary().startswith("sandbox walls: all hold")
    normal = walls_report.measure(_facts(uid=1000), server_uid=1000, is_root=False,
                                  landlock_abi=6, weak_walls_accepted=False)
    assert normal.python and normal.missing == ["own_uid"] and "share its uid" in normal.reason
    hostile_host = _facts(uid=1000, root_fs="ext4", run=True, interfaces=["lo", "eth0"])
    refused = walls_report.measure(hostile_host, server_uid=1000, is_root=False,
                                   landlock_abi=0, weak_walls_accepted=False)
    assert not refused.python and refused.as_dict()["python"] == "refused"
    assert refused.missing == ["filesystem_view", "own_uid", "no_network", "landlock"]
    assert "SHOKUNIN_SANDBOX_WEAK_WALLS=true" in refused.reason
    assert "missing: filesystem_view" in refused.summary()
    accepted = walls_report.measure(hostile_host, server_uid=1000, is_root=False,
                                    landlock_abi=6, weak_walls_accepted=True)
    assert accepted.python and "weaker walls" in accepted.reason
    assert {m["wall"] for m in accepted.as_dict()["missing"]} == {
        "filesystem_view", "own_uid", "no_network"}


@pytest.mark.asyncio
async def test_start_logs_which_walls_hold(caplog: pytest.LogCaptureFixture) -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))
    sandbox = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0))
    try:
        with caplog.at_level(logging.INFO, logger="shokunin.sandbox.sandbox"):
            await sandbox.start()
        lines = [r.message for r in caplog.records if r.message.startswith("sandbox walls")]
        assert lines == [sandbox.walls.summary()] and "filesystem_view" in lines[0], lines
        assert sandbox.refused is None
    finally:
        await sandbox.shutdown()
        shutil.rmtree(data_dir, ignore_errors=True)
