"""A tripwire: no code of the server touches a path in a workspace by name.

A workspace is written by its kernel, so a path joined onto it can lead anywhere through a
planted link; ``SafeTree`` is the one way in. This scans the source for file operations
(``open``, ``read_bytes``, ``FileResponse``, pandas readers, ...) whose path expression
mentions a workspace, and fails naming each one. The few places that must use a path
(making the workspace folder itself, handing it to the kernel's uid) are listed with why.
"""

from __future__ import annotations

import ast
from pathlib import Path

import shokunin

SRC = Path(shokunin.__file__).parent
FILE_METHODS = {"open", "write", "read_bytes", "read_text", "write_bytes", "write_text", "rglob",
                "glob", "iterdir", "is_file", "is_dir", "exists", "unlink", "rename",
                "replace", "stat", "lstat", "touch", "symlink_to", "hardlink_to"}
FILE_FUNCTIONS = {"open", "FileResponse", "read_csv", "read_excel", "read_parquet",
                  "read_json", "copyfile", "copy", "copy2", "copytree", "move", "walk",
                  "listdir", "scandir", "ZipFile"}
ALLOWED = {
    # making the workspace folder itself: its parents are the server's
    ("runs/runner.py", "path.is_dir()"),
    # a listing of image names with lstat, no file opened (the read is SafeTree's)
    ("sandbox/saved_images.py", "workspace.is_dir()"),
    ("sandbox/saved_images.py", "os.walk(workspace)"),
    ("sandbox/saved_images.py", "full.lstat()"),
}


def _mentions(node: ast.AST, tainted: set[str], safe: set[str]) -> bool:
    """Whether ``node`` is (built from) a workspace path: it names a workspace, or a
    variable or function known to hold or return one; a SafeTree is not a path."""
    if isinstance(node, ast.Name):
        return node.id in tainted or (node.id not in safe and "workspace" in node.id.lower())
    if isinstance(node, ast.Call) and _root_name(node.func) in safe:
        return False
    if isinstance(node, ast.Attribute) and "workspace" in node.attr.lower():
        return True
    return any(_mentions(child, tainted, safe) for child in ast.iter_child_nodes(node)
               if isinstance(child, (ast.expr, ast.keyword)))


def _root_name(node: ast.AST) -> str | None:
    while isinstance(node, (ast.Attribute, ast.Call, ast.Subscript)):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else None


def _scopes(tree: ast.Module) -> list[ast.AST]:
    return [tree, *(n for n in ast.walk(tree)
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)))]


def _assigned(scope: ast.AST) -> list[tuple[list[str], ast.AST]]:
    """(names, value) of each assignment and for loop of a scope, not of nested defs."""
    found = []
    for node in _walk_scope(scope):
        if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            found.append(([n.id for t in targets for n in ast.walk(t)
                           if isinstance(n, ast.Name)], node.value))
        elif isinstance(node, (ast.For, ast.comprehension)):
            found.append(([n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)],
                          node.iter))
    return found


def _walk_scope(scope: ast.AST) -> list[ast.AST]:
    nodes, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        nodes.append(node)
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))
    return nodes


def _suspects(tree: ast.Module) -> list[str]:
    """Calls of file operations on workspace paths: names are followed through local
    variables, loop targets and the module's functions that return such a path."""
    safe = {"SafeTree", "runtime", "Workspace"}  # a tool's runtime workspace is a SafeTree
    producers: set[str] = set()
    local: dict[ast.AST, set[str]] = {scope: set() for scope in _scopes(tree)}
    changed = True
    while changed:
        changed = False
        for scope, tainted in local.items():
            for names, value in _assigned(scope):
                bag = safe if _root_name(value) in safe else (
                    tainted if _mentions(value, tainted | producers, safe) else None)
                if bag is not None and not set(names) <= bag:
                    bag |= set(names)
                    changed = True
            if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef)):
                returns = [n.value for n in _walk_scope(scope)
                           if isinstance(n, ast.Return) and n.value is not None]
                bag = safe if any(_root_name(r) in safe for r in returns) else (
                    producers if any(_mentions(r, tainted | producers, safe)
                                     for r in returns) else None)
                if bag is not None and scope.name not in bag:
                    bag.add(scope.name)
                    changed = True
    found = []
    for scope, tainted in local.items():
        for node in _walk_scope(scope):
            if not isinstance(node, ast.Call) or _root_name(node.func) in safe:
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr in FILE_METHODS:
                target: list[ast.AST] = [func.value, *node.args]
            elif (getattr(func, "id", None) in FILE_FUNCTIONS
                  or getattr(func, "attr", None) in FILE_FUNCTIONS):
                target = list(node.args[:1])
            else:
                continue
            if any(_mentions(t, tainted | producers, safe) for t in target):
                found.append(ast.unparse(node))
    return found


def test_no_file_operation_opens_a_workspace_path_by_name() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in ("store/safe_files.py", "tools/runtime.py", "sandbox/kernel_startup.py"):
            continue
        for call in _suspects(ast.parse(path.read_text(encoding="utf-8"))):
            if (rel, call) not in ALLOWED:
                offenders.append(f"{rel}: {call}")
    assert offenders == [], "open these through SafeTree:\n" + "\n".join(offenders)


def test_the_tripwire_sees_a_by_name_read_through_variables_and_helpers() -> None:
    code = ("def where(runner, t):\n    return runner.workspace(t) / 'outputs'\n"
            "def f(runner, t):\n    root = where(runner, t)\n    target = root / 'a.csv'\n"
            "    for p in root.rglob('*'):\n        pass\n"
            "    return FileResponse(target)")
    assert sorted(_suspects(ast.parse(code))) == ["FileResponse(target)", "root.rglob('*')"]
