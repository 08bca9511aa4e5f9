"""The upload parser's children have the kernel's walls (issue 47, point 2): its own uid,
an environment with no secret, no network, the allow-listed filesystem plus its
descriptors, seccomp, NoNewPrivs. Read from outside, in /proc, while a child waits."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest

from shokunin import untrusted
from shokunin.sandbox import Sandbox
from shokunin.untrusted import Bounds, Descriptor
from tests.sandbox.conftest import SECRET, sandbox_settings

TABLE = "地域,売上\n東,3\n西,1\n"
NEVER_SEEN = {"run", "var", "home", "srv", "mnt", "opt"}


def _wait_then_read(gate: Descriptor, table: Descriptor, out: Descriptor) -> str:
    """In the child: say who it is, wait until the test has looked, then read its input
    and write its output by path, as pandas, calamine and DuckDB open them."""
    untrusted.report(os.getpid())
    os.read(gate.fd, 1)
    Path(out.path).write_text("parsed")
    return Path(table.path).read_text(encoding="utf-8")


def inspect_parse_child(walls: Any, folder: Path) -> dict:
    """Run a parse child with ``walls`` on a table in ``folder``; what /proc shows of it
    while it waits, and what it read and wrote."""
    table, out = folder / "upload.csv", folder / "data.parquet"
    table.write_text(TABLE, encoding="utf-8")
    table.chmod(0o600)
    read_fd = os.open(table, os.O_RDONLY)
    out_fd = os.open(out, os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    gate_r, gate_w = os.pipe()
    seen: dict = {}

    def look(pid: int) -> None:
        proc = Path(f"/proc/{pid}")
        status = dict(line.split(":", 1) for line in (proc / "status").read_text().splitlines())
        seen.update(
            uid=int(status["Uid"].split()[0]), seccomp=status["Seccomp"].strip(),
            no_new_privs=status["NoNewPrivs"].strip(),
            environ=(proc / "environ").read_bytes().decode(errors="replace"),
            namespaces={ns: os.readlink(proc / "ns" / ns) != os.readlink(f"/proc/self/ns/{ns}")
                        for ns in ("net", "mnt", "ipc")},
            root=sorted(os.listdir(proc / "root")))
        os.write(gate_w, b"x")

    try:
        seen["read"] = untrusted.run(
            _wait_then_read, Descriptor(gate_r), Descriptor(read_fd), Descriptor(out_fd),
            bounds=Bounds(wall_seconds=120), on_message=look, confine=walls)
        seen["written"] = out.read_text()
    finally:
        for fd in (read_fd, out_fd, gate_r, gate_w):
            os.close(fd)
    return seen


def check_parse_child(seen: dict, *, server_uid: int, root: bool) -> None:
    assert seen["read"] == TABLE and seen["written"] == "parsed", seen
    assert seen["seccomp"] == "2" and seen["no_new_privs"] == "1", seen
    assert SECRET not in seen["environ"] and "API_KEY" not in seen["environ"], seen["environ"]
    assert all(seen["namespaces"].values()), seen["namespaces"]
    assert not NEVER_SEEN & set(seen["root"]) and "tmp" in seen["root"], seen["root"]
    if root:
        assert seen["uid"] not in (0, server_uid), seen
    else:
        assert seen["uid"] == server_uid, seen


@pytest.mark.skipif(os.geteuid() != 0, reason="as a normal user: test_arbitrary_code.py")
def test_parse_child_has_the_kernels_walls_as_root(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SHOKUNIN_TEST_SECRET", SECRET)
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    data_dir = Path(tempfile.mkdtemp(prefix="shokunin-test-data-"))  # 0700, as a real one
    sandbox = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0))
    try:
        seen = inspect_parse_child(sandbox.parser_walls(), data_dir)
        check_parse_child(seen, server_uid=os.getuid(), root=True)
    finally:
        asyncio.run(sandbox.shutdown())
        shutil.rmtree(data_dir, ignore_errors=True)
