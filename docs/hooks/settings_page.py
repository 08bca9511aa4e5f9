"""MkDocs hook: the settings page's table, built from ``shokunin.config.Settings``.

``docs/settings.md`` holds the table between the two markers below, one row per field of
``Settings``: the environment variable, the type (with its bounds), the default and the
field's description. It is written into the page in the repository (``python
docs/hooks/settings_page.py``), so a reader of the repository sees it too; a test fails when
it differs from the code, and the site build writes the current one in its place. A default
computed from the machine (its memory, say) is taken from the description's "(default:
...)" instead of the value on the machine that builds the site.
"""

from __future__ import annotations

import json
import re
import types
from pathlib import Path, PurePath
from typing import Any, Literal, Union, get_args, get_origin

import annotated_types
from pydantic import SecretStr
from pydantic.fields import FieldInfo

from shokunin.config import PACKAGE_DIR, Settings

MARKER = "<!-- settings-table -->"
END = "<!-- /settings-table -->"
PAGE = "settings.md"
_DESCRIBED_DEFAULT = re.compile(r"\s*\(default: ([^)]*)\)")
_NAMES = {str: "text", int: "integer", float: "number", bool: "true or false",
          Path: "path", SecretStr: "secret text"}
_PLURALS = {str: "strings", Path: "paths"}


def env_name(name: str) -> str:
    """The environment variable of a Settings field: ``data_dir`` -> ``SHOKUNIN_DATA_DIR``."""
    return f"{Settings.model_config.get('env_prefix', '')}{name}".upper()


def _type_name(annotation: Any) -> str:
    origin, args = get_origin(annotation), get_args(annotation)
    if origin in (Union, types.UnionType):
        return " or ".join(_type_name(a) for a in args if a is not type(None))
    if origin is Literal:
        return " or ".join(f"`{a}`" for a in args)
    if origin is list:
        return f"JSON list of {_PLURALS.get(args[0], _type_name(args[0]))}" if args else (
            "JSON list")
    return _NAMES.get(annotation, getattr(annotation, "__name__", str(annotation)))


def _bounds(field: FieldInfo) -> str:
    signs = ((annotated_types.Gt, "gt", ">"), (annotated_types.Ge, "ge", "≥"),
             (annotated_types.Lt, "lt", "<"), (annotated_types.Le, "le", "≤"))
    out = []
    for item in field.metadata:
        for kind, attribute, sign in signs:
            if isinstance(item, kind):
                out.append(f"{sign} {getattr(item, attribute)}")
    return ", ".join(out)


def _value(value: Any) -> str:
    if isinstance(value, PurePath):
        try:
            return f"<package>/{value.relative_to(PACKAGE_DIR).as_posix()}"
        except ValueError:
            return value.as_posix() if value.is_absolute() else f"./{value.as_posix()}"
    if isinstance(value, list):
        return json.dumps([_value(v) for v in value], ensure_ascii=False)
    return str(value)


def default_text(field: FieldInfo) -> str:
    """How a field's default reads on the page (Markdown)."""
    if field.default_factory is not None:
        described = _DESCRIBED_DEFAULT.search(field.description or "")
        if described:
            return described.group(1)
        value = field.default_factory()  # type: ignore[call-arg]
    else:
        value = field.default
    if value is None:
        return "unset"
    return f"`{_value(value)}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def settings_rows() -> list[dict[str, str]]:
    """One dict per Settings field: env, type, default, description (Markdown)."""
    rows = []
    for name, field in Settings.model_fields.items():
        kind = _type_name(field.annotation)
        bounds = _bounds(field)
        description = _DESCRIBED_DEFAULT.sub("", field.description or "") if (
            field.default_factory is not None) else (field.description or "")
        rows.append({
            "env": env_name(name),
            "type": f"{kind}, {bounds}" if bounds else kind,
            "default": default_text(field),
            "description": description,
        })
    return rows


def settings_table() -> str:
    """The Markdown table of every setting, as the settings page shows it."""
    lines = ["| variable | type | default | meaning |", "|---|---|---|---|"]
    for row in settings_rows():
        lines.append(f"| `{row['env']}` | {_cell(row['type'])} | {_cell(row['default'])} "
                     f"| {_cell(row['description'])} |")
    return "\n".join(lines) + "\n"


def with_table(markdown: str) -> str:
    """The page with the current table between its markers."""
    if MARKER not in markdown or END not in markdown:
        raise ValueError(f"docs/{PAGE} lost its markers {MARKER} ... {END}: the settings "
                         "table has no place")
    head, rest = markdown.split(MARKER, 1)
    return f"{head}{MARKER}\n{settings_table()}{END}{rest.split(END, 1)[1]}"


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return with_table(markdown) if page.file.src_uri == PAGE else markdown


if __name__ == "__main__":  # refresh the table in the repository's page
    path = Path(__file__).resolve().parents[1] / PAGE
    path.write_text(with_table(path.read_text(encoding="utf-8")), encoding="utf-8")
