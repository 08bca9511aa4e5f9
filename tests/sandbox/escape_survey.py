"""Survey: where the packages model code may import reach the OS behind the policy's back.

Walks the source of every allowed package that is installed (tests excluded) and lists
each function that starts a process, loads native code, unpickles or runs a string as
code; and lists the native extension modules of this Python that import ``fork``,
``exec*``, ``posix_spawn``, ``system``, ``popen`` or ``dlopen`` from libc. The policy test
checks each Python finding is refused, and the audit-hook test checks each native one is
refused or reviewed, so a new release of an allowed package cannot open a hole silently.

Run it by hand to read the findings: ``python -m tests.sandbox.escape_survey``.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import re
import shutil
import subprocess
import sysconfig
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

# module -> the functions of it that escape (None: all of them)
_DANGEROUS: dict[str, frozenset[str] | None] = {
    "subprocess": None, "pty": None, "multiprocessing": None, "ctypes": None, "cffi": None,
    "_posixsubprocess": None, "shelve": None, "webbrowser": None,
    "os": frozenset({"system", "popen", "fork", "forkpty", "posix_spawn", "posix_spawnp",
                     "execv", "execve", "execvp", "execvpe", "execl", "execle", "execlp",
                     "execlpe", "spawnv", "spawnve", "spawnvp", "spawnvpe", "spawnl",
                     "spawnle", "spawnlp", "spawnlpe"}),
    "pickle": frozenset({"load", "loads", "Unpickler", "_Unpickler"}),
}
_CODE_BUILTINS = frozenset({"exec", "eval"})
_MENTIONS = re.compile(r"\b(?:" + "|".join([*_DANGEROUS, *_CODE_BUILTINS]) + r")\b")
_NATIVE_SYMBOLS = frozenset({"fork", "vfork", "clone", "execv", "execve", "execvp", "execl",
                             "posix_spawn", "posix_spawnp", "system", "popen", "dlopen"})


@dataclass(frozen=True)
class Finding:
    module: str  # dotted module path
    function: str  # qualified name inside the module (Class.method)
    reaches: tuple[str, ...]  # what it calls: subprocess.run, exec, ...


def python_entry_points(packages: Iterable[str]) -> list[Finding]:
    """Functions of the installed ``packages`` that call a dangerous API directly."""
    found: list[Finding] = []
    for package in packages:
        spec = importlib.util.find_spec(package)
        if spec is None or spec.origin is None and not spec.submodule_search_locations:
            continue
        for path, module in _sources(package, spec):
            found += _scan(path, module)
    return found


def _sources(package: str, spec: importlib.machinery.ModuleSpec) -> Iterator[tuple[Path, str]]:
    if not spec.submodule_search_locations:
        if spec.origin and spec.origin.endswith(".py"):
            yield Path(spec.origin), package
        return
    for root in map(Path, spec.submodule_search_locations):
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root.parent).with_suffix("").parts
            if "tests" in parts:
                continue
            yield path, ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _scan(path: Path, module: str) -> list[Finding]:
    try:
        text = path.read_text(encoding="utf-8")
        if not _MENTIONS.search(text):
            return []  # parsing is the slow part; most files name none of these
        tree = ast.parse(text)
    except (SyntaxError, UnicodeDecodeError):
        return []
    aliases: dict[str, str | tuple[str, str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                aliases[(alias.asname or alias.name).split(".")[0]] = alias.name.split(".")[0]
        elif isinstance(node, ast.ImportFrom) and node.module:
            root = node.module.split(".")[0]
            for alias in node.names:
                if _is_dangerous(root, alias.name):
                    aliases[alias.asname or alias.name] = (root, alias.name)
    found = []
    for name, function in _functions(tree.body, ""):
        reaches = sorted({hit for call in ast.walk(function) if isinstance(call, ast.Call)
                          for hit in [_reach(call.func, aliases)] if hit})
        if reaches:
            found.append(Finding(module, name, tuple(reaches)))
    return found


def _is_dangerous(module: str, name: str) -> bool:
    names = _DANGEROUS.get(module, frozenset())
    return names is None or name in names


def _reach(func: ast.expr, aliases: dict[str, str | tuple[str, str]]) -> str | None:
    if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
        module = aliases.get(func.value.id, func.value.id)
        if isinstance(module, str) and module in _DANGEROUS and _is_dangerous(module, func.attr):
            return f"{module}.{func.attr}"
    elif isinstance(func, ast.Name):
        imported = aliases.get(func.id)
        if isinstance(imported, tuple):
            return ".".join(imported)
        if func.id in _CODE_BUILTINS:
            return func.id
    return None


def _functions(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.AST]]:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield prefix + node.name, node
        elif isinstance(node, ast.ClassDef):
            yield from _functions(node.body, f"{prefix}{node.name}.")


def native_entry_points() -> dict[str, frozenset[str]]:
    """Extension modules importable by this Python -> the libc escapes they link to."""
    nm = shutil.which("nm")
    if nm is None:
        return {}
    roots = {sysconfig.get_path(k) for k in ("platlib", "purelib", "platstdlib")}
    roots.add(os.path.join(sysconfig.get_path("stdlib"), "lib-dynload"))
    found: dict[str, frozenset[str]] = {}
    seen: set[Path] = set()
    for root in sorted(filter(os.path.isdir, roots), key=len, reverse=True):  # innermost first
        for path in Path(root).rglob("*.so"):
            if path in seen or not (".cpython-" in path.name or ".abi3." in path.name):
                continue  # seen from an inner root, or a library and not a module
            seen.add(path)
            out = subprocess.run([nm, "-D", "--undefined-only", str(path)], check=False,
                                 capture_output=True, text=True).stdout
            symbols = {line.split()[-1].split("@")[0] for line in out.splitlines() if line}
            if symbols & _NATIVE_SYMBOLS:
                dotted = ".".join(path.relative_to(root).parts)
                found[dotted.split(".cpython-")[0].split(".abi3")[0]] = frozenset(
                    symbols & _NATIVE_SYMBOLS)
    return found


if __name__ == "__main__":
    from shokunin.config import Settings

    for finding in python_entry_points(Settings(data_dir="/nonexistent")
                                       .sandbox_allowed_imports):
        print(f"{finding.module}:{finding.function}  {', '.join(finding.reaches)}")
    for module, symbols in sorted(native_entry_points().items()):
        print(f"{module} (native)  {', '.join(sorted(symbols))}")

