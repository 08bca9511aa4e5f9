"""Validation of what a tool exports: its declaration, settings schema and UI info.

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
SETTING_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}
SETTING_KEYS = {"type", "label", "default", "min", "max", "secret", "description"}


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


def check_settings_schema(schema: Any) -> dict[str, dict[str, Any]]:
    """Return the settings schema if every field is one of the seed's four types."""
    if not isinstance(schema, dict):
        raise ToolLoadError("get_settings_schema() must return a dict")
    for key, spec in schema.items():
        if not isinstance(key, str) or not isinstance(spec, dict):
            raise ToolLoadError(f"setting {key!r} must map a str to a dict")
        kind = spec.get("type")
        if kind not in SETTING_TYPES:
            raise ToolLoadError(f"setting {key!r}: type must be one of "
                                f"{', '.join(SETTING_TYPES)}, not {kind!r}")
        for bound in ("min", "max"):
            if bound in spec and (kind not in ("integer", "number")
                                  or not _is_number(spec[bound])):
                raise ToolLoadError(f"setting {key!r}: {bound} needs a numeric type and value")
        if "secret" in spec and not isinstance(spec["secret"], bool):
            raise ToolLoadError(f"setting {key!r}: secret must be true or false")
        if "default" in spec and spec["default"] is not None and check_value(spec, spec["default"]):
            raise ToolLoadError(f"setting {key!r}: default {spec['default']!r} "
                                f"{check_value(spec, spec['default'])}")
    return schema


def check_value(spec: Mapping[str, Any], value: Any) -> str | None:
    """The reason ``value`` does not fit the setting ``spec``, or None when it does."""
    kind = spec["type"]
    wrong_bool = kind != "boolean" and isinstance(value, bool)
    if not isinstance(value, SETTING_TYPES[kind]) or wrong_bool:
        return f"must be a {kind}"
    if "min" in spec and value < spec["min"]:
        return f"must be at least {spec['min']}"
    if "max" in spec and value > spec["max"]:
        return f"must be at most {spec['max']}"
    return None


def check_ui_info(ui: Any, tool_dir: Path) -> dict[str, Any]:
    if not isinstance(ui, dict):
        raise ToolLoadError("get_ui_info() must return a dict")
    if ui.get("has_ui"):
        html = ui.get("html_file")
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


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
