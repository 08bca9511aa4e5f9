"""context["runtime"]: workspace() and shared_storage, confined to their folders, never
following a planted link, with the origin project's file methods; shared storage persists per
tool across threads and restarts; and message_callback accepts the call shapes tools written
for other hosts use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shokunin.tools import ToolRegistry
from shokunin.tools.runtime import Runtime, Workspace, WorkspacePathError
from shokunin.tools.venv import VenvManager
from tests.tools.conftest import make_tool, registry_for
from tests.tools.origin_shapes import make_shared_tool


@pytest.fixture
def space(tmp_path: Path) -> Workspace:
    return Runtime(tmp_path / "ws").workspace()


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "outside"
    target.mkdir()
    (target / "secret.txt").write_text("host file")
    return target


def test_write_read_exists_and_listings(space: Workspace, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    assert space.get_path() == str(root)
    assert space.list_files() == [] and space.list_dirs() == []
    path = space.write("a/b/c.txt", "こんにちは")
    assert path == str(root / "a" / "b" / "c.txt")
    assert space.read("a/b/c.txt") == "こんにちは" and space.read("./a//b/c.txt") == "こんにちは"
    space.write("top.bin", b"\x00\x01")
    space.write("a/b/c.txt", "short")  # overwrite truncates
    assert space.read("a/b/c.txt") == "short"
    assert space.exists("a/b/c.txt") and space.exists("a") and not space.exists("nope")
    # the origin's listings: one folder's own entries, every file with recursive=True
    assert space.list_files() == ["top.bin"]
    assert space.list_files(recursive=True) == ["a/b/c.txt", "top.bin"]
    assert space.list_files("a/b") == ["a/b/c.txt"]
    assert space.list_dirs() == ["a"] and space.list_dirs("a") == ["a/b"]
    assert space.list_dirs(recursive=True) == ["a", "a/b"]
    with pytest.raises(FileNotFoundError):
        space.read("missing.txt")


@pytest.mark.parametrize("name", ["../x.txt", "a/../../x.txt", "/etc/passwd", "", "a\\b",
                                  "..", "a/\0b", 5])
def test_names_outside_the_workspace_are_refused(space: Workspace, name: object) -> None:
    with pytest.raises(WorkspacePathError):
        space.write(name, "x")  # type: ignore[arg-type]
    with pytest.raises(WorkspacePathError):
        space.read(name)  # type: ignore[arg-type]
    # as in the origin: asking whether it exists is no error, it does not
    assert space.exists(name) is False  # type: ignore[arg-type]
    assert space.is_file(name) is False and space.is_dir(name) is False  # type: ignore[arg-type]


def test_planted_links_are_never_followed(space: Workspace, tmp_path: Path,
                                          outside: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir(exist_ok=True)
    (root / "dirlink").symlink_to(outside)
    (root / "filelink").symlink_to(outside / "secret.txt")
    os.link(outside / "secret.txt", root / "hardlink")
    os.mkfifo(root / "pipe")
    for name in ("dirlink/secret.txt", "dirlink/new.txt", "filelink", "hardlink"):
        with pytest.raises(WorkspacePathError):
            space.write(name, "overwritten")
    for name in ("dirlink/secret.txt", "filelink", "hardlink", "pipe"):
        with pytest.raises(WorkspacePathError):
            space.read(name)
    assert (outside / "secret.txt").read_text() == "host file"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert not space.exists("filelink") and not space.exists("dirlink/secret.txt")
    assert space.list_files(recursive=True) == ["hardlink"]  # listed but refused above
    assert space.list_dirs() == []


def test_the_origin_file_methods(space: Workspace, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    assert space.append("log/a.txt", "one\n") == str(root / "log" / "a.txt")
    space.append("log/a.txt", "two\n")
    assert space.read("log/a.txt") == "one\ntwo\n"
    assert space.write_bytes("b.bin", b"\xff") == str(root / "b.bin")
    assert space.read_bytes("b.bin") == b"\xff"
    assert space.write("sjis.txt", "日本", encoding="shift_jis")
    assert space.read("sjis.txt", encoding="shift_jis") == "日本"
    assert space.is_file("b.bin") and not space.is_dir("b.bin")
    assert space.is_dir("log") and not space.is_file("log")
    assert space.mkdir("x/y") == str(root / "x" / "y") and space.is_dir("x/y")
    assert space.get_full_path("x/y/z.txt") == str(root / "x" / "y" / "z.txt")
    assert space.delete("b.bin") and not space.delete("b.bin") and not space.delete("log")
    with pytest.raises(WorkspacePathError):
        space.get_full_path("../etc/passwd")
    with pytest.raises(WorkspacePathError):
        space.append("../x.txt", "x")


def test_runtime_reaches_only_its_own_thread_and_its_shared_folder(tmp_path: Path) -> None:
    runtime = Runtime(tmp_path / "ws", shared=tmp_path / "shared", chat_id="t1")
    assert runtime.get_current_chat_id() == "t1"
    assert runtime.workspace() is runtime.workspace("t1")
    with pytest.raises(PermissionError):
        runtime.workspace("t2")
    assert runtime.shared_storage.get_path() == str(tmp_path / "shared")
    with pytest.raises(PermissionError):
        _ = Runtime(tmp_path / "ws").shared_storage  # an MCP server's tool has none


def test_shared_storage_refuses_planted_links(tmp_path: Path, outside: Path) -> None:
    shared = Runtime(tmp_path / "ws", shared=tmp_path / "shared").shared_storage
    (tmp_path / "shared" / "dirlink").symlink_to(outside)
    for name in ("dirlink/secret.txt", "../outside/secret.txt"):
        with pytest.raises(WorkspacePathError):
            shared.read(name)
        with pytest.raises(WorkspacePathError):
            shared.write(name, "overwritten")
    assert (outside / "secret.txt").read_text() == "host file"


@pytest.mark.parametrize("in_venv", [False, True])
async def test_shared_storage_persists_per_tool_across_threads_and_restarts(
        tmp_path: Path, in_venv: bool) -> None:
    root = tmp_path / "tool"
    folder = make_shared_tool(root, requirements="# none\n" if in_venv else None)
    make_shared_tool(root, "other_probe")
    if in_venv:
        VenvManager().ensure(folder)
    registry = registry_for(tmp_path, root)
    try:
        wrote = await registry.execute("shared_probe", {"mode": "write", "name": "k/v.txt",
                                                        "text": "覚えておく"}, thread_id="t1")
    finally:
        await registry.close()
    assert wrote["success"], wrote
    storage = tmp_path / "tool_storage"
    assert wrote["result"] == str(storage / "shared_probe" / "k" / "v.txt")
    registry = registry_for(tmp_path, root)  # a restart, and another thread
    try:
        read = await registry.execute("shared_probe", {"mode": "read", "name": "k/v.txt"},
                                      thread_id="t2")
        listed = await registry.execute("shared_probe", {"mode": "list"}, thread_id="t2")
        other = await registry.execute("other_probe", {"mode": "list"}, thread_id="t2")
        escape = await registry.execute("shared_probe", {"mode": "read",
                                                         "name": "../other_probe/x"})
        foreign = await registry.execute("shared_probe", {"mode": "other_thread"},
                                         thread_id="t2")
    finally:
        await registry.close()
    assert read["result"] == "覚えておく"
    assert listed["result"] == {"files": ["k/v.txt"], "path": str(storage / "shared_probe"),
                                "chat_id": "t2",
                                "workspace": str(tmp_path / "workspaces" / "t2")}
    assert other["result"]["files"] == [] and other["result"]["path"].endswith("other_probe")
    assert not escape["success"] and "leaves the workspace" in escape["error"]
    assert not foreign["success"] and "someone-else" in foreign["error"]


def test_a_workspace_that_is_itself_a_link_is_refused(tmp_path: Path, outside: Path) -> None:
    (tmp_path / "ws").symlink_to(outside)
    space = Workspace(tmp_path / "ws")
    with pytest.raises(WorkspacePathError):
        space.write("x.txt", "x")
    with pytest.raises(WorkspacePathError):
        space.read("secret.txt")
    with pytest.raises(WorkspacePathError):
        space.list_files()
    assert not space.exists("secret.txt")
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


CALLBACKS = '''
TOOL_NAME = "callbacks"
TOOL_DESCRIPTION = "calls message_callback as other hosts' tools do"
TOOL_ICON = "📣"


def get_function_declaration():
    return {"name": "%s", "description": "x",
            "parameters": {"type": "object", "properties": {}}}


def execute(args, context):
    say = context["message_callback"]
    say("plain")
    say("two", "parts")
    say({"message": "from a dict"})
    say(message="keyword")
    say(42)
    return {"success": True, "result": context["runtime"].workspace().get_path()}
'''


@pytest.mark.parametrize("in_venv", [False, True])
async def test_message_callback_takes_the_shapes_tools_use(tmp_path: Path,
                                                           in_venv: bool) -> None:
    root = tmp_path / "tool"
    folder = make_tool(root, "callbacks", CALLBACKS % "callbacks",
                       requirements="# none\n" if in_venv else None)
    if in_venv:
        VenvManager().ensure(folder)
    registry = registry_for(tmp_path, root)
    messages: list[str] = []
    try:
        result = await registry.execute("callbacks", {}, thread_id="t1",
                                        progress=messages.append)
    finally:
        await registry.close()
    assert result["success"], result
    assert messages == ["plain", "two parts", "from a dict", "keyword", "42"]
    assert result["result"] == str(tmp_path / "workspaces" / "t1")


async def test_a_tool_in_its_own_process_gets_absolute_folders_on_a_relative_data_dir(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default data dir is relative (``./data``) and a venv tool's process runs in its
    own folder: its workspace, chat_path and shared storage are still the server's."""
    root = tmp_path / "tool"
    folder = make_shared_tool(root, requirements="# none\n")
    VenvManager().ensure(folder)
    monkeypatch.chdir(tmp_path)
    registry = ToolRegistry([(root, "user")], Path("data/s.json"),
                            workspace_root=Path("data/workspaces"), default_timeout=120.0)
    try:
        listed = await registry.execute("shared_probe", {"mode": "list"}, thread_id="t1")
    finally:
        await registry.close()
    assert listed["result"]["workspace"] == str(tmp_path / "data" / "workspaces" / "t1")
    assert listed["result"]["path"] == str(tmp_path / "data" / "tool_storage" / "shared_probe")
    assert not (folder / "data").exists()  # nothing landed in the tool's own folder


def test_the_origins_lenient_file_methods(space: Workspace, tmp_path: Path) -> None:
    root = tmp_path / "ws"
    assert space.base_path == root and root.is_dir()  # made up front, as in the origin
    with open(space.get_full_path("direct.txt"), "w") as f:  # noqa: PTH123 - as a tool does
        f.write("x")
    space.write("d1/a.txt", "a")
    assert space.read("d1/../direct.txt") == "x"  # stays inside: allowed, as in the origin
    assert space.write("d1/../e.txt", "e") == str(root / "e.txt")
    with pytest.raises(ValueError, match="is a file"):
        space.list_files("direct.txt")
