"""Settings schemas: the field types a tool may declare, and checking a value against one.

``get_settings_schema()`` returns ``{key: spec}``; each spec has a ``type``:

=========  ==================================================  =========================
type       value                                               extra keys
=========  ==================================================  =========================
string     one-line text                                       ``secret``
text       multi-line text                                     ``secret``
secret     text that is never shown back (implies secret)
integer    a whole number                                      ``min`` ``max`` ``step``
number     a finite number                                     ``min`` ``max`` ``step``
boolean    true or false
select     one of ``options: [{value, label}]`` (bare values   ``options``
           are accepted as ``{value: v, label: str(v)}``)
=========  ==================================================  =========================

Every spec may also carry ``label``, ``description``, ``default``, ``secret: true`` and
``required``: ``true`` when the tool cannot work until the setting has a value (an API key),
or a group name shared by settings of which any one will do (an API key *or* a server URL).
A tool with a required setting unset is listed as needing settings (``ToolInfo.needs_settings``)
rather than as ready.
Numbers must be finite and within +/- 2**53 - 1 (what a browser holds exactly): a NaN or an
Infinity can never be stored, since JSON cannot carry it back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any

from shokunin.tools.errors import ToolLoadError

SETTING_TYPES = ("string", "text", "secret", "integer", "number", "boolean", "select")
NUMBER_LIMIT = 2**53 - 1
TEXT_LIMIT = 100_000  # characters in one text setting

Spec = Mapping[str, Any]


def is_number(value: Any) -> bool:
    """A JSON number we accept: int or float, not bool, finite, within NUMBER_LIMIT."""
    return (isinstance(value, int | float) and not isinstance(value, bool)
            and math.isfinite(value) and abs(value) <= NUMBER_LIMIT)


def check_settings_schema(schema: Any) -> dict[str, dict[str, Any]]:
    """The schema, normalised (``secret`` set for the secret type, select options as
    ``{value, label}``); raises ToolLoadError naming the first field that is wrong."""
    if not isinstance(schema, dict):
        raise ToolLoadError("get_settings_schema() must return a dict")
    return {key: _check_spec(key, spec) for key, spec in schema.items()}


def _check_spec(key: Any, spec: Any) -> dict[str, Any]:
    if not isinstance(key, str) or not isinstance(spec, dict):
        raise ToolLoadError(f"setting {key!r} must map a str to a dict")
    kind = spec.get("type")
    if kind not in SETTING_TYPES:
        raise ToolLoadError(f"setting {key!r}: type must be one of {', '.join(SETTING_TYPES)}, "
                            f"not {kind!r}")
    spec = dict(spec)
    for bound in ("min", "max", "step"):
        if bound in spec and (kind not in ("integer", "number") or not is_number(spec[bound])):
            raise ToolLoadError(f"setting {key!r}: {bound} needs an integer or number type and "
                                "a finite numeric value")
    if "step" in spec and spec["step"] <= 0:
        raise ToolLoadError(f"setting {key!r}: step must be above 0")
    if "min" in spec and "max" in spec and spec["min"] > spec["max"]:
        raise ToolLoadError(f"setting {key!r}: min is above max")
    if "secret" in spec and not isinstance(spec["secret"], bool):
        raise ToolLoadError(f"setting {key!r}: secret must be true or false")
    required = spec.get("required", False)
    if not (isinstance(required, bool) or (isinstance(required, str) and required.strip())):
        raise ToolLoadError(f"setting {key!r}: required must be true, false or a group name")
    if kind == "secret":
        spec["secret"] = True
    if kind == "select":
        spec["options"] = _options(key, spec.get("options"))
    elif "options" in spec:
        raise ToolLoadError(f"setting {key!r}: options belong to the select type")
    default = spec.get("default")
    if default is not None and (reason := check_value(spec, default)):
        shown = "(secret)" if spec.get("secret") else repr(default)
        raise ToolLoadError(f"setting {key!r}: default {shown} {reason}")
    return spec


def unset_required(schema: Mapping[str, Spec], values: Mapping[str, Any]) -> list[list[str]]:
    """The required settings without a value, as groups of keys any one of which would do:
    a ``required: true`` key is a group of its own, keys sharing a group name are one."""
    groups: dict[tuple[bool, str], list[str]] = {}
    for key, spec in schema.items():
        required = spec.get("required")
        if required is True:
            groups[(True, key)] = [key]
        elif isinstance(required, str) and required.strip():
            groups.setdefault((False, required), []).append(key)
    return [keys for keys in groups.values() if not any(_has_value(values.get(k)) for k in keys)]


def _has_value(value: Any) -> bool:
    return value is not None and not (isinstance(value, str) and not value.strip())


def _options(key: str, options: Any) -> list[dict[str, Any]]:
    if not isinstance(options, list) or not options:
        raise ToolLoadError(f"setting {key!r}: a select needs a non-empty options list")
    normalised: list[dict[str, Any]] = []
    for option in options:
        entry = option if isinstance(option, dict) else {"value": option}
        value = entry.get("value")
        if not (isinstance(value, str | bool) or is_number(value)):
            raise ToolLoadError(f"setting {key!r}: each option needs a string, number or "
                                f"boolean value, not {value!r}")
        if any(_same(value, seen["value"]) for seen in normalised):
            raise ToolLoadError(f"setting {key!r}: option {value!r} appears twice")
        label = entry.get("label", str(value))
        normalised.append({**entry, "value": value, "label": str(label)})
    return normalised


def check_value(spec: Spec, value: Any) -> str | None:
    """The reason ``value`` does not fit the setting ``spec``, or None when it does."""
    kind = spec["type"]
    if kind in ("string", "text", "secret"):
        if not isinstance(value, str):
            return "must be a string"
        return f"must be at most {TEXT_LIMIT} characters" if len(value) > TEXT_LIMIT else None
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be a boolean"
    if kind == "select":
        if any(_same(value, option["value"]) for option in spec["options"]):
            return None
        return "must be one of " + ", ".join(repr(o["value"]) for o in spec["options"])
    if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
        return "must be an integer"
    if not is_number(value):
        if isinstance(value, int | float) and not isinstance(value, bool):
            return ("must be a finite number" if not math.isfinite(value)
                    else f"must be within ±{NUMBER_LIMIT}")
        return "must be a number"
    if "min" in spec and value < spec["min"]:
        return f"must be at least {spec['min']}"
    if "max" in spec and value > spec["max"]:
        return f"must be at most {spec['max']}"
    if "step" in spec and not _on_step(value, spec.get("min", 0), spec["step"]):
        return f"must be a multiple of {spec['step']}" + (
            f" from {spec['min']}" if "min" in spec else "")
    return None


def _on_step(value: float, base: float, step: float) -> bool:
    # Decimal of the shortest repr: 0.3 is on a 0.1 step, which float arithmetic denies.
    try:
        return (Decimal(repr(value)) - Decimal(repr(base))) % Decimal(repr(step)) == 0
    except InvalidOperation:  # pragma: no cover - finite, bounded inputs
        return False


def _same(a: Any, b: Any) -> bool:
    """Equal and both booleans or both not (JSON's true is not 1)."""
    return isinstance(a, bool) == isinstance(b, bool) and a == b
