"""Validation of what a tool exports: its declaration and UI info (settings: settings_schema).

Each check raises ToolLoadError with a reason a tool author can act on; the registry turns
that into the tool's listed error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from jsonschema import exceptions as jsonschema_exceptions
from jsonschema import validators

from shokunin.tools.errors import InvalidArguments, ToolLoadError
from shokunin.tools.worker import TEXT_EXPORTS

REQUIRED_EXPORTS = ("TOOL_NAME", "TOOL_DESCRIPTION", "TOOL_ICON", "get_function_declaration",
                    "execute")
# Seed 003: 関数名は英数字とアンダースコアのみ. 64 is the function-calling APIs' limit.
FUNCTION_NAME = re.compile(r"[A-Za-z0-9_]{1,64}", re.ASCII)


def check_exports(exports: Mapping[str, Any]) -> None:
    missing = [name for name in REQUIRED_EXPORTS if name not in exports]
    if missing:
        raise ToolLoadError(f"missing required export(s): {', '.join(missing)}")
    for name in TEXT_EXPORTS:
        if not isinstance(exports[name], str):
            raise ToolLoadError(f"{name} must be a str, not {type(exports[name]).__name__}")


def check_declaration(declaration: Any) -> dict[str, Any]:
    """Return the declaration if it is a valid function-calling declaration."""
    if not isinstance(declaration, dict):
        raise ToolLoadError("get_function_declaration() must return a dict, "
                            f"not {type(declaration).__name__}")
    name = declaration.get("name")
    if not isinstance(name, str) or not FUNCTION_NAME.fullmatch(name):
        raise ToolLoadError(f"declaration name {name!r} must be 1-64 ASCII letters, digits or "
                            "underscores")
    if not isinstance(declaration.get("description", ""), str):
        raise ToolLoadError("declaration description must be a str")
    parameters = declaration.get("parameters")
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        raise ToolLoadError('declaration parameters must be a JSON Schema with "type": "object"')
    cls = validators.validator_for(parameters)
    try:
        cls.check_schema(parameters)
    except jsonschema_exceptions.SchemaError as exc:
        where = "/".join(str(p) for p in exc.path) or "(root)"
        raise ToolLoadError(f"declaration parameters are not a valid JSON Schema at {where}: "
                            f"{exc.message}") from None
    return declaration


DEFAULT_UI_FILE = "index.html"


def check_ui_info(ui: Any, tool_dir: Path) -> dict[str, Any]:
    """The tool's UI declaration; ``html_file`` is ``index.html`` when not named (as in the
    origin project)."""
    if not isinstance(ui, dict):
        raise ToolLoadError("get_ui_info() must return a dict")
    if ui.get("has_ui"):
        ui = {**ui, "html_file": ui.get("html_file", DEFAULT_UI_FILE)}
        html = ui["html_file"]
        if not isinstance(html, str) or not html:
            raise ToolLoadError("get_ui_info(): html_file must name a file when has_ui is true")
        path = (tool_dir / html).resolve()
        if not path.is_relative_to(tool_dir.resolve()):
            raise ToolLoadError(f"get_ui_info(): html_file {html!r} is outside the tool folder")
        if not path.is_file():
            raise ToolLoadError(f"get_ui_info(): html_file {html!r} does not exist")
    return ui


class ArgsValidator:
    """Checks call arguments against a declaration's parameters (compiled once per tool)."""

    def __init__(self, parameters: dict[str, Any]) -> None:
        self._validator = validators.validator_for(parameters)(parameters)

    def __call__(self, args: Any) -> None:
        if not isinstance(args, dict):
            raise InvalidArguments(f"args must be a JSON object, not {type(args).__name__}")
        error = jsonschema_exceptions.best_match(self._validator.iter_errors(args))
        if error is not None:
            where = "/".join(str(p) for p in error.absolute_path)
            raise InvalidArguments(f"invalid args{f' at {where}' if where else ''}: "
                                   f"{error.message}")

