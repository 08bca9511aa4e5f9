"""The OS walls alone hold against arbitrary code in the kernel (issue 34, points 2, 9, 10).

Every case starts where the issue's escape ended: the policy and the audit hook out of the
way (kernels started without the hook, cells sent past the policy), a shell or native
code as the kernel's uid. As root (own uid, namespaces) and as a normal user (kernels share
the server's uid: Landlock and seccomp are the walls), the server's working folder holds a
``server.log`` and the data folder a database, both outside the temp folder, so that only a
wall, not the private /tmp, keeps them from the kernel.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import os
import pwd
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import uuid
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from shokunin.config import Settings
from shokunin.sandbox import ExecPythonInput, ExecResult, Sandbox
from shokunin.sandbox.policy import check_policy
from tests.sandbox.conftest import SECRET, sandbox_settings
from tests.sandbox.corpus import ARBITRARY, DATABASE, SERVER_LOG
from tests.sandbox.test_parser_walls import TABLE, check_parse_child, inspect_parse_child

pytestmark = pytest.mark.kernel

in_loop = pytest.mark.asyncio(loop_scope="module")
REPO = Path(__file__).resolve().parents[2]
TMP_MB = 64
NORMAL_USER = "cloudsdk"


def _server_folders(owner: int | None = None) -> tuple[Path, Path, Path]:
    """(top, workdir, data_dir) under /var/tmp: workdir holds server.log, data_dir a
    database, both readable by their owner only (the server's user unless ``owner``), as a
    real server leaves them."""
    owner = os.getuid() if owner is None else owner
    top = Path(tempfile.mkdtemp(prefix="shokunin-arbitrary-", dir="/var/tmp"))
    workdir, data_dir = top / "work", top / "data"
    for folder in (top, workdir, data_dir):
        folder.mkdir(exist_ok=True)
        folder.chmod(0o755)
    (workdir / "server.log").write_text(SERVER_LOG + "\n")
    (data_dir / "shokunin.db").write_text(DATABASE + "\n")
    for path in (top, workdir, data_dir, workdir / "server.log", data_dir / "shokunin.db"):
        os.chown(path, owner, owner)
    (workdir / "server.log").chmod(0o644)  # world-readable: only a wall may stop the read
    (data_dir / "shokunin.db").chmod(0o644)
    return top, workdir, data_dir


# Where host services keep their unix sockets (Debian's /run and /var/run, RHEL's
# /var/lib/mysql, a Redis under /var/lib), and other folders of the host's tree.
LISTENER_FOLDERS = {"/run": "mysqld.sock", "/var/run": ".s.PGSQL.5432", "/var/lib": "redis.sock",
                    "/srv": "app.sock", "/home": "agent.sock", "/opt": "service.sock"}
REAL_POSTGRES = "/var/run/postgresql/.s.PGSQL.5432"


@contextlib.contextmanager
def planted_listeners() -> Iterator[list[str]]:
    """A listening unix socket in each of LISTENER_FOLDERS that every user may connect to
    (and PostgreSQL's own, where it runs): what a kernel must not reach."""
    folders, listeners, paths = [], [], []
    try:
        for base, name in LISTENER_FOLDERS.items():
            try:
                folder = tempfile.mkdtemp(prefix="shokunin-listener-", dir=base)
            except OSError:  # not root: where this user may not write
                continue
            os.chmod(folder, 0o755)
            folders.append(folder)
            listener = socket.socket(socket.AF_UNIX)
            listener.bind(os.path.join(folder, name))
            os.chmod(os.path.join(folder, name), 0o777)
            listener.listen(64)
            listeners.append(listener)
            paths.append(os.path.join(folder, name))
        if os.path.exists(REAL_POSTGRES):
            paths.append(REAL_POSTGRES)
        yield paths
    finally:
        for listener in listeners:
            listener.close()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def _filled(code: str, data_dir: Path, workdir: Path, marker: str,
            sockets: list[str] = ()) -> str:
    return (code.replace("{data_dir}", str(data_dir)).replace("{workdir}", str(workdir))
            .replace("{server_pid}", str(os.getpid())).replace("{marker}", marker)
            .replace("{sockets}", " ".join(sockets)))


async def _past_policy(sandbox: Sandbox, thread: str, code: str) -> ExecResult:
    kernel = await sandbox._kernel_for(thread, None)  # noqa: SLF001 (bypass the policy)
    inp = ExecPythonInput(code=code, timeout_sec=60, max_output_chars=20000)
    return await sandbox._run(kernel, inp, None)  # noqa: SLF001


def _bare(sandbox: Sandbox) -> None:
    sandbox._ensure_runtime()  # noqa: SLF001
    sandbox._walls = dataclasses.replace(  # noqa: SLF001
        sandbox._walls, extra_env={"SHOKUNIN_SANDBOX_AUDIT": "off"})  # noqa: SLF001


@dataclasses.dataclass
class Server:
    sandbox: Sandbox
    workdir: Path
    data_dir: Path
    sockets: list[str]


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def server() -> AsyncIterator[Server]:
    """A bare sandbox (no audit hook) of a server whose working folder is ``workdir``."""
    top, workdir, data_dir = _server_folders()
    here = os.getcwd()
    os.chdir(workdir)  # the walls are built from the server's working folder
    try:
        sb = Sandbox(sandbox_settings(data_dir, sandbox_pool_size=0, sandbox_tmp_mb=TMP_MB))
        _bare(sb)
    finally:
        os.chdir(here)
    with planted_listeners() as sockets:
        await sb.start()
        sibling = await sb._kernel_for("sibling", None)  # noqa: SLF001 (aimed at a sibling)
        assert sibling.forked  # the cases run in kernels forked from the template
        yield Server(sb, workdir, data_dir, sockets)
        await sb.shutdown()
    shutil.rmtree(top, ignore_errors=True)


@in_loop
@pytest.mark.skipif(os.geteuid() != 0, reason="the root server's walls (a normal user's: below)")
@pytest.mark.parametrize("name", ARBITRARY.keys())
async def test_arbitrary_code_is_contained_as_root(server: Server, name: str) -> None:
    code, check = ARBITRARY[name]
    marker = f"shokunin-arbitrary-{uuid.uuid4().hex}"
    written = [Path("/var/tmp", marker), server.workdir / marker]
    try:
        result = await _past_policy(server.sandbox, "arbitrary", _filled(
            code, server.data_dir, server.workdir, marker, server.sockets))
        assert check(result), result.model_dump(exclude={"plot_png_base64"})
        assert not any(path.exists() for path in written)
    finally:
        for path in written:
            path.unlink(missing_ok=True)


FLOOD = """
import errno
written, stop, n = 0, 'EFBIG', 0
while written < 1024 and stop == 'EFBIG':  # 1 GiB, in files as large as RLIMIT_FSIZE allows
    stop = None
    try:
        with open(f'{folder}/{marker}-{{n}}', 'wb') as f:
            while written < 1024:
                f.write(b'0' * (1 << 20))
                f.flush()
                written += 1
    except OSError as exc:
        stop = errno.errorcode.get(exc.errno)
    n += 1
print('written', written, 'stop', stop)
"""


@in_loop
@pytest.mark.skipif(os.geteuid() != 0, reason="the root server's walls (a normal user's: below)")
@pytest.mark.parametrize("folder", ["/tmp", "/dev/shm"])
async def test_tmp_is_private_bounded_and_gone_with_the_kernel(server: Server,
                                                               folder: str) -> None:
    marker = f"shokunin-flood-{uuid.uuid4().hex}"
    thread = f"flood-{folder.strip('/').replace('/', '-')}"
    try:
        result = await _past_policy(server.sandbox, thread,
                                    FLOOD.format(folder=folder, marker=marker))
        words = result.stdout.split()
        assert result.ok and words[0] == "written" and words[3] == "ENOSPC", result
        assert int(words[1]) <= TMP_MB, "more than the bound was written"
        assert not list(Path(folder).glob(f"{marker}*")), "the kernel wrote to the host's"
    finally:
        await server.sandbox.close_thread(thread)
        for leftover in Path(folder).glob(f"{marker}*"):
            leftover.unlink()


SHM = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
small = libc.shmget(0, 1 << 20, 0o1000 | 0o666)
address = libc.shmat(small, None, 0)
ctypes.memset(address, 1, 1 << 20)
libc.shmdt(ctypes.c_void_p(address))
big = libc.shmget(0, {big_mb} << 20, 0o1000 | 0o666)
print('small', small, 'big', big, ctypes.get_errno())
"""


def _host_segments() -> set[str]:
    with open("/proc/sysvipc/shm", encoding="ascii") as f:
        return {line.split()[1] for line in f.readlines()[1:]}


@in_loop
@pytest.mark.skipif(os.geteuid() != 0, reason="the root server's walls")
async def test_sysv_shared_memory_is_the_kernels_own_and_bounded(server: Server) -> None:
    """A segment a kernel makes is not the host's (so it cannot outlive the kernel or be
    reached by another), and one larger than the private /dev/shm's bound is refused."""
    before = _host_segments()
    result = await _past_policy(server.sandbox, "sysv-shm", SHM.format(big_mb=TMP_MB * 4))
    try:
        words = result.stdout.split()
        assert result.ok and words[0] == "small" and int(words[1]) >= 0, result
        assert int(words[3]) == -1, "a segment larger than the bound was made"
        assert _host_segments() == before, "the kernel's segment is in the host's namespace"
    finally:
        await server.sandbox.close_thread("sysv-shm")


# -- the issue's chain, end to end ----------------------------------------------------------
# Policy-clean on the code the issue was filed against: sys.modules from DataFrame.query's
# resolvers, the audit hook's rules emptied through gc, then /bin/sh as the kernel's uid.
CHAIN = """
import pandas as pd
df = pd.DataFrame({'a': [1]})
out = []
try:
    df.query('out.append(m.compat._constants.sys.modules)', resolvers=[{'m': pd, 'out': out}])
except Exception:
    pass
modules = out[0]
gc = modules['gc']
def f():
    pass
function = type(f)
for hook in [o for o in gc.get_objects() if type(o) is function and '.hook at' in repr(o)]:
    for ref in gc.get_referents(hook):
        for cell in gc.get_referents(ref):
            for rules in gc.get_referents(cell):
                if isinstance(rules, dict) and 'os.posix_spawn' in rules:
                    rules.clear()
os_ = modules['os']
pid = os_.posix_spawn('/bin/sh', ['sh', '-c', SHELL], {})
print('shell status', os_.waitpid(pid, 0)[1])
"""
HARM = ("unshare -Ur sh -c 'mount -t tmpfs none /mnt && echo escaped'; "
        "echo x > /var/tmp/{marker}; cat {workdir}/server.log")


def test_issue_chain_is_refused_by_the_policy() -> None:
    violations = check_policy(CHAIN.replace("SHELL", repr("id")),
                              Settings().sandbox_allowed_imports)
    assert any("resolvers" in v.reason for v in violations), violations


@in_loop
async def test_issue_chain_past_the_policy_does_no_harm(server: Server) -> None:
    """The chain sent past the policy into a kernel with the hook: whatever of it runs,
    the shell at its end escapes nothing."""
    marker = f"shokunin-chain-{uuid.uuid4().hex}"
    sb = server.sandbox
    hooked = dataclasses.replace(sb._walls, extra_env={})  # noqa: SLF001
    shell = _filled(HARM, server.data_dir, server.workdir, marker)
    code = CHAIN.replace("SHELL", repr(shell))
    saved, sb._walls = sb._walls, hooked  # noqa: SLF001
    try:
        await sb.close_thread("chain")
        result = await _past_policy(sb, "chain", code)
    finally:
        sb._walls = saved  # noqa: SLF001
        await sb.close_thread("chain")
    shown = result.model_dump(exclude={"plot_png_base64"})
    assert "escaped" not in result.stdout and SERVER_LOG not in result.stdout, shown
    assert not Path("/var/tmp", marker).exists(), shown
    Path("/var/tmp", marker).unlink(missing_ok=True)


# Never in a kernel's view: where host services, users and the data live
NEVER_SEEN = {"run", "var", "home", "srv", "mnt", "media", "boot", "opt"}


def view_of(sandbox: Sandbox, thread: str) -> dict[str, list[str]]:
    """What the thread's kernel sees at / and in /etc (read from outside, through
    /proc/<pid>/root: the kernel's own Landlock may not list /), and what its walls
    allow there."""
    kernel = sandbox._kernels[thread]  # noqa: SLF001
    walls = sandbox._walls  # noqa: SLF001
    root = f"/proc/{kernel.pid}/root"
    bound = [*walls.readable, *walls.writable, str(kernel.folder.path)]
    top = {Path(p).parts[1] for p in bound} | {"dev", "proc", "sys", "tmp"}
    etc = {Path(p).name for p in bound if Path(p).parent == Path("/etc")
           and os.path.lexists(p)}
    return {"root": sorted(os.listdir(root)), "etc": sorted(os.listdir(root + "/etc")),
            "allowed_root": sorted(n for n in top if os.path.lexists("/" + n)),
            "allowed_etc": sorted(etc),
            # a normal user's kernels find the workspaces by their real path
            "workspaces": sorted({Path(p).parts[1] for p in walls.writable})}


def _check_view(view: dict[str, list[str]]) -> None:
    assert view["root"] == view["allowed_root"], view
    assert not (NEVER_SEEN - set(view["workspaces"])) & set(view["root"]), view
    assert view["etc"] == view["allowed_etc"] and "shadow" not in view["etc"], view


@in_loop
@pytest.mark.skipif(os.geteuid() != 0, reason="the root server's view (a normal user's: below)")
async def test_kernel_sees_only_the_allow_list_as_root(server: Server) -> None:
    await _past_policy(server.sandbox, "arbitrary", "1")
    _check_view(view_of(server.sandbox, "arbitrary"))


# -- as a normal user ------------------------------------------------------------------------
NORMAL_SERVER = """
import asyncio, json, os, sys
sys.path.insert(0, {repo!r})
WITHOUT_NAMESPACES = {without!r}
from tests.sandbox.test_arbitrary_code import run_cases
if sys.argv[3] == WITHOUT_NAMESPACES:  # as on systems without unprivileged user namespaces
    import errno, pyseccomp
    deny = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
    deny.add_rule(pyseccomp.ERRNO(errno.EPERM), "unshare")
    deny.load()
print(json.dumps(asyncio.run(run_cases(sys.argv[1], sys.argv[2], sys.argv[4:],
                                       weak=sys.argv[3] == WITHOUT_NAMESPACES))))
"""
IN_NAMESPACE, WITHOUT_NAMESPACES = "in-a-user-namespace", "without-user-namespaces"


async def run_cases(workdir: str, data_dir: str, sockets: list[str], *, weak: bool) -> dict:
    """Run every case in a bare sandbox of a server working in ``workdir`` (in the
    process started as the normal user); returns each result, and the flood's. ``weak``:
    the system makes no user namespace, so Python is refused unless the weaker walls
    are accepted: say what the default does, then accept them."""
    os.chdir(workdir)
    answers: dict = {}
    if weak:
        sb = Sandbox(sandbox_settings(Path(data_dir), sandbox_pool_size=0))
        await sb.start()
        try:
            result = await sb.execute("refused", ExecPythonInput(code="print(1)"))
            answers["_refused"] = {"reason": sb.refused, "walls": sb.walls.as_dict(),
                                   "result": result.model_dump(exclude={"plot_png_base64"})}
        finally:
            await sb.shutdown()
    sb = Sandbox(sandbox_settings(Path(data_dir), sandbox_pool_size=0, sandbox_tmp_mb=TMP_MB,
                                  sandbox_weak_walls=weak))
    _bare(sb)
    await sb.start()
    sibling = await sb._kernel_for("sibling", None)  # noqa: SLF001 (cases aimed at a sibling)
    answers.update({"_forked": sibling.forked, "_walls": sb.walls.as_dict()})
    try:
        await _past_policy(sb, "arbitrary", "1")
        if not weak:
            answers["_view"] = view_of(sb, "arbitrary")
        answers["_parse"] = await asyncio.to_thread(inspect_parse_child, sb.parser_walls(),
                                                    Path(data_dir))
        for name, (code, _) in ARBITRARY.items():
            marker = f"shokunin-arbitrary-{name}"
            result = await _past_policy(sb, "arbitrary", _filled(
                code, Path(data_dir), Path(workdir), marker, sockets))
            answers[name] = result.model_dump(exclude={"plot_png_base64"})
        for folder in ("/tmp", "/dev/shm"):
            result = await _past_policy(sb, "flood", FLOOD.format(folder=folder,
                                                                  marker="shokunin-flood"))
            answers[f"flood {folder}"] = result.model_dump(exclude={"plot_png_base64"})
        await sb.close_thread("flood")
        result = await _past_policy(sb, "arbitrary", "import tempfile\n"
                                    "print(tempfile.gettempdir())")
        answers["tempdir"] = result.stdout.strip()
    finally:
        await sb.shutdown()
    return answers


def blocked_ancestors(paths: list[str]) -> list[str]:
    """The highest folder above each path that other users cannot enter."""
    blocked = set()
    for path in paths:
        parts = Path(path).parts
        for depth in range(2, len(parts)):
            ancestor = str(Path(*parts[:depth]))
            if not os.stat(ancestor).st_mode & stat.S_IXOTH:
                blocked.add(ancestor)
                break
    return sorted(blocked)


def _as_normal_user(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """Run ``argv`` as the normal user. The interpreter, the venv or this checkout may sit
    below a folder other users cannot enter (/root, 0700): in a mount namespace of its own,
    each such folder is covered and they are bound back, as the launcher does for kernels."""
    needed = sorted({os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, REPO)}, key=len)
    blocked = blocked_ancestors(needed)
    holder = Path(tempfile.mkdtemp(prefix="shokunin-install-"))
    held = [(path, holder / str(i)) for i, path in enumerate(needed)
            if any(Path(path).is_relative_to(b) for b in blocked)]
    script = ["set -e"]
    script += [f"mkdir {h}; mount --bind {path} {h}" for path, h in held]
    script += [f"mount -t tmpfs -o mode=0755 tmpfs {b}" for b in blocked]
    script += [f"mkdir -p {path}; mount --move {h} {path}" for path, h in held]
    script.append(f"exec runuser -u {NORMAL_USER} -- \"$@\"")
    try:
        return subprocess.run(["unshare", "-m", "--propagation", "private", "sh", "-c",
                               "; ".join(script), "sh", *argv], cwd=cwd, capture_output=True,
                              text=True, timeout=600,
                              env={"PATH": os.environ["PATH"], "LANG": "C.UTF-8",
                                   # what the kernels and parsers must not see
                                   "SHOKUNIN_TEST_SECRET": SECRET, "OPENAI_API_KEY": SECRET})
    finally:
        shutil.rmtree(holder, ignore_errors=True)


def _normal_user() -> int | None:
    try:
        return pwd.getpwnam(NORMAL_USER).pw_uid
    except KeyError:
        return None


@pytest.fixture(scope="module", params=[IN_NAMESPACE, WITHOUT_NAMESPACES])
def as_normal_user(request: pytest.FixtureRequest) -> Iterator[dict]:
    """The cases' results in a normal user's server, whose kernels get a user + mount
    namespace, or none (the launcher's unshare refused, as some systems do)."""
    uid = _normal_user()
    if os.geteuid() != 0 or uid is None or shutil.which("runuser") is None:
        pytest.skip(f"needs root, runuser and a user {NORMAL_USER!r}")
    top, workdir, data_dir = _server_folders(owner=uid)
    try:
        server = NORMAL_SERVER.format(repo=str(REPO), without=WITHOUT_NAMESPACES)
        with planted_listeners() as sockets:
            proc = _as_normal_user([sys.executable, "-c", server, str(workdir),
                                    str(data_dir), request.param, *sockets], workdir)
        assert proc.returncode == 0, proc.stderr[-4000:]
        answers = json.loads(proc.stdout.strip().splitlines()[-1])
        answers["_written"] = sorted(p.name for p in Path("/var/tmp").glob(
            "shokunin-arbitrary-*") if p.is_file()) + sorted(
            p.name for p in workdir.iterdir() if p.name.startswith("shokunin-arbitrary-"))
        answers["_left"] = sorted(str(p) for d in ("/tmp", "/dev/shm")
                                  for p in Path(d).glob("shokunin-flood*"))
        answers["_mode"] = request.param
        yield answers
    finally:
        for leftover in Path("/var/tmp").glob("shokunin-arbitrary-*"):
            if leftover.is_file():
                leftover.unlink()
        for d in ("/tmp", "/dev/shm"):
            for leftover in Path(d).glob("shokunin-flood*"):
                leftover.unlink()
        shutil.rmtree(top, ignore_errors=True)


@pytest.mark.parametrize("name", ARBITRARY.keys())
def test_arbitrary_code_is_contained_as_a_normal_user(as_normal_user: dict, name: str) -> None:
    _, check = ARBITRARY[name]
    answer = as_normal_user[name]
    assert check(ExecResult(**answer)), answer
    assert not [n for n in as_normal_user["_written"] if n.endswith(name)]


@pytest.mark.parametrize("folder", ["/tmp", "/dev/shm"])
def test_tmp_is_private_and_bounded_as_a_normal_user(as_normal_user: dict, folder: str) -> None:
    """In a namespace: a bounded tmpfs of the kernel's own. Without: the host's folder is
    out of reach (Landlock) and TMPDIR points into the kernel's own folder."""
    answer = as_normal_user[f"flood {folder}"]
    words = answer["stdout"].split()
    if as_normal_user["_mode"] == IN_NAMESPACE:
        assert answer["ok"] and words[3] == "ENOSPC" and int(words[1]) <= TMP_MB, answer
        assert as_normal_user["tempdir"] == "/tmp"
    else:
        assert answer["ok"] and words[3] == "EACCES" and words[1] == "0", answer
        assert as_normal_user["tempdir"].endswith("/home/tmp"), as_normal_user["tempdir"]
    assert as_normal_user["_left"] == [], "the kernel wrote to the host's temp folders"


def test_normal_users_kernels_see_only_the_allow_list(as_normal_user: dict) -> None:
    """In a user namespace: the same filesystem view as a root server's kernels. Without
    one: Python is refused by default, saying why and what to change; accepted, the
    report says the view is missing (and the host-socket cases above still hold)."""
    walls = as_normal_user["_walls"]
    if as_normal_user["_mode"] == IN_NAMESPACE:
        _check_view(as_normal_user["_view"])
        assert walls["python"] == "on" and walls["walls"]["filesystem_view"], walls
        assert [m["wall"] for m in walls["missing"]] == ["own_uid"], walls
    else:
        refused = as_normal_user["_refused"]
        assert refused["walls"]["python"] == "refused", refused
        assert "SHOKUNIN_SANDBOX_WEAK_WALLS=true" in refused["reason"], refused
        assert refused["result"]["error_type"] == "SandboxUnavailable", refused
        assert "user namespace" in refused["result"]["error_message"], refused
        assert walls["python"] == "on" and not walls["walls"]["filesystem_view"], walls
        assert walls["walls"]["seccomp"] and walls["walls"]["landlock"], walls


def test_parse_child_has_the_kernels_walls_as_a_normal_user(as_normal_user: dict) -> None:
    """Without a user namespace the upload parser still gets seccomp, Landlock and an
    environment with no secret, but no namespaces or view of its own."""
    seen = as_normal_user["_parse"]
    if as_normal_user["_mode"] == IN_NAMESPACE:
        check_parse_child(seen, server_uid=_normal_user(), root=False)
    else:
        assert seen["read"] == TABLE and seen["seccomp"] == "2", seen
        assert seen["no_new_privs"] == "1" and SECRET not in seen["environ"], seen


def test_cases_run_in_the_normal_users_kernels(as_normal_user: dict) -> None:
    """The harness itself: kernels ran (a case that fails to start proves nothing), forked
    from the template as a normal user's server forks them."""
    assert as_normal_user["_forked"] is True
    assert all(a["error_type"] != "KernelDied" for k, a in as_normal_user.items()
               if isinstance(a, dict) and "error_type" in a), as_normal_user
