"""context["runtime"].workspace(): confined to the workspace, never following a planted link;
and message_callback accepts the call shapes tools written for other hosts use."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from shokunin.tools.runtime import Runtime, Workspace, WorkspacePathError
from shokunin.tools.venv import VenvManager
from tests.tools.conftest import make_tool, registry_for


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
    assert space.list_files() == ["a/b/c.txt", "top.bin"]
    assert space.list_dirs() == ["a", "a/b"]
    with pytest.raises(FileNotFoundError):
        space.read("missing.txt")


@pytest.mark.parametrize("name", ["../x.txt", "a/../../x.txt", "/etc/passwd", "", "a\\b",
                                  "..", "a/\0b", 5])
def test_names_outside_the_workspace_are_refused(space: Workspace, name: object) -> None:
    with pytest.raises(WorkspacePathError):
        space.write(name, "x")  # type: ignore[arg-type]
    with pytest.raises(WorkspacePathError):
        space.read(name)  # type: ignore[arg-type]
    with pytest.raises(WorkspacePathError):
        space.exists(name)  # type: ignore[arg-type]


def test_planted_links_are_never_followed(space: Workspace, tmp_path: Path,
                                          outside: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
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
    assert space.list_files() == ["hardlink"]  # a regular file, listed but refused above
    assert space.list_dirs() == []


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
