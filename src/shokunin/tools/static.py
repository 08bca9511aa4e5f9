"""Reading a venv tool's exports from its source, without importing it.

A tool with a requirements.txt imports packages that exist only in its own venv, so the
server must not import it. Its constants and its get_* functions that just ``return`` a
literal (the seed's template, and nearly every real tool) are read from the AST here; a
tool whose exports are computed is asked inside its venv instead (``child.describe``).
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from shokunin.tools.errors import ToolLoadError
from shokunin.tools.worker import CALLED_EXPORTS, TEXT_EXPORTS


class Dynamic(Exception):
    """An export exists but is not a literal; only running the tool can tell its value."""


def static_exports(entry: Path) -> dict[str, Any]:
    """The exports in ``read_exports`` form; raises Dynamic when one is computed."""
    try:
        tree = ast.parse(entry.read_bytes(), filename=entry.name)
    except SyntaxError as exc:
        raise ToolLoadError(f"syntax error: {exc}") from None
    bound: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    bound[target.id] = node.value
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value:
            bound[node.target.id] = node.value
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound[node.name] = node
        elif isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                bound[(alias.asname or alias.name).split(".")[0]] = node
    exports: dict[str, Any] = {}
    for name in TEXT_EXPORTS:
        if name in bound:
            exports[name] = _literal(bound[name], name, bound)
    for name in CALLED_EXPORTS:
        if name in bound:
            exports[name] = _returned_literal(bound[name], name, bound)
    if "execute" in bound:
        exports["execute"] = True
    return exports


def _literal(node: ast.AST, name: str, bound: dict[str, ast.AST]) -> Any:
    try:
        return ast.literal_eval(_Inline(bound).visit(node))
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        raise Dynamic(name) from None


class _Inline(ast.NodeTransformer):
    """Replaces names of module-level literal constants (``FORMATS = [...]``) by their value."""

    def __init__(self, bound: dict[str, ast.AST]) -> None:
        self.bound = bound

    def visit_Name(self, node: ast.Name) -> ast.AST:
        target = self.bound.get(node.id)
        if not isinstance(target, ast.expr) or isinstance(target, ast.Name):
            return node
        try:
            value = ast.literal_eval(target)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return node
        return ast.copy_location(ast.Constant(value), node)


def _returned_literal(node: ast.AST, name: str, bound: dict[str, ast.AST]) -> Any:
    if not isinstance(node, ast.FunctionDef):
        raise Dynamic(name)
    body = list(node.body)
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # docstring
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        raise Dynamic(name)
    return _literal(body[0].value, name, bound)
