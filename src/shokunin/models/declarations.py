"""The providers' rules for a tool declaration, checked when tools load.

A provider refuses the whole request when one tool breaks its rules, so one bad
declaration would fail every run. These are the rules OpenAI and Anthropic enforce:
a function name of 1-64 letters, digits, ``_`` or ``-``; a description of at most
1,024 characters (OpenAI); parameters that are a JSON schema object whose ``required``
names only declared properties (at every level). A tool that breaks one is left out with
the reason, as a tool folder that fails to load is.
"""

from __future__ import annotations

import json
import logging
import re
from collections.abc import Hashable, Iterable
from typing import Any

from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

from shokunin.errors import ShokuninError

NAME = re.compile(r"[a-zA-Z0-9_-]{1,64}", re.ASCII)
MAX_DESCRIPTION = 1024

log = logging.getLogger(__name__)


class DeclarationError(ShokuninError, ValueError):
    """A tool declaration a provider would refuse; the message gives every reason."""


def _schema_problems(schema: Any, where: str) -> list[str]:
    if isinstance(schema, bool):  # true / false are schemas too
        return []
    if not isinstance(schema, dict):
        return [f"{where} must be a JSON schema object"]
    problems: list[str] = []
    properties = schema.get("properties") or {}
    required = schema.get("required") or []
    if schema.get("type") == "object" and not isinstance(properties, dict):
        problems.append(f"{where}.properties must be an object")
        properties = {}
    if not isinstance(required, list):
        problems.append(f"{where}.required must be a list")
        required = []
    undeclared = [n for n in required if n not in properties]
    if undeclared:
        problems.append(f"{where}.required names undeclared properties: "
                        f"{', '.join(map(str, undeclared))}")
    for name, sub in properties.items():
        problems += _schema_problems(sub, f"{where}.properties.{name}")
    if isinstance(schema.get("items"), dict):
        problems += _schema_problems(schema["items"], f"{where}.items")
    return problems


def function_problems(function: dict[str, Any]) -> list[str]:
    """Every rule ``function`` (``{"name", "description", "parameters"}``, OpenAI's
    function form) breaks; empty when a provider would accept it."""
    problems = []
    name = function.get("name")
    if not isinstance(name, str) or not NAME.fullmatch(name):
        problems.append(f"function name {name!r} must be 1-64 letters, digits, '_' or '-'")
    description = function.get("description") or ""
    if not isinstance(description, str):
        problems.append("description must be a string")
    elif len(description) > MAX_DESCRIPTION:
        problems.append(f"description is {len(description)} characters; providers accept at "
                        f"most {MAX_DESCRIPTION}")
    parameters = function.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(parameters, dict) or parameters.get("type") != "object":
        problems.append('parameters must be a JSON schema with "type": "object"')
    else:
        problems += _schema_problems(parameters, "parameters")
    return problems


def check_function(function: dict[str, Any]) -> None:
    """Raise ``DeclarationError`` if a provider would refuse ``function``."""
    problems = function_problems(function)
    if problems:
        raise DeclarationError(f"a model provider would refuse this tool: {'; '.join(problems)}")


def check_tool(tool: BaseTool) -> None:
    """``check_function`` on the declaration LangChain sends for ``tool``."""
    check_function(convert_to_openai_tool(tool)["function"])


def _declaration_key(tool: BaseTool) -> Hashable:
    """What a tool's declaration is made of: its name, description and argument schema
    (a pydantic class, or a JSON schema dict)."""
    schema = tool.args_schema
    if isinstance(schema, dict):
        schema = json.dumps(schema, sort_keys=True, default=str)
    return tool.name, tool.description, schema


# Declaration key -> the checker's verdict (None: accepted). Runs build their tools anew
# each time, from a handful of declarations: converting one costs a pydantic model build
# and a JSON schema, more than the rest of an offline run, so each is checked once.
_verdicts: dict[Hashable, str | None] = {}
_MAX_VERDICTS = 4096


def _verdict(tool: BaseTool) -> str | None:
    key = _declaration_key(tool)
    if key not in _verdicts:
        if len(_verdicts) >= _MAX_VERDICTS:  # plugins reloaded many times: start over
            _verdicts.clear()
        try:
            check_tool(tool)
        except DeclarationError as exc:
            _verdicts[key] = str(exc)
        else:
            _verdicts[key] = None
    return _verdicts[key]


def usable_tools(tools: Iterable[BaseTool]) -> list[BaseTool]:
    """The tools a provider would accept; each one left out is logged with its reasons."""
    usable = []
    for tool in tools:
        if (problem := _verdict(tool)) is not None:
            log.warning("tool %s is unavailable: %s", tool.name, problem)
            continue
        usable.append(tool)
    return usable
