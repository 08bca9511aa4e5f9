"""
表整形ツール
Formats rows as a Markdown (or grid, HTML...) table with ``tabulate``. It ships as the
example of a tool with a requirements.txt: it runs in its own venv, in a child process.
"""

from tabulate import tabulate

TOOL_NAME = "表整形"
TOOL_DESCRIPTION = "行データを Markdown などの表に整形します (format rows as a table)."
TOOL_ICON = "📋"

FORMATS = ["github", "grid", "simple", "pipe", "html", "plain"]
MAX_ROWS = 10_000


def get_function_declaration() -> dict:
    return {
        "name": "table_format",
        "description": "Format rows (a list of lists, or a list of objects) as a text table. "
                       "Use format 'github' for Markdown.",
        "parameters": {
            "type": "object",
            "properties": {
                "rows": {"type": "array", "items": {"type": ["array", "object"]},
                         "description": "The table body."},
                "headers": {"type": "array", "items": {"type": "string"},
                            "description": "Column titles; omit for objects (their keys)."},
                "format": {"type": "string", "enum": FORMATS, "default": "github"},
            },
            "required": ["rows"],
        },
    }


def get_settings_schema() -> dict:
    return {
        "float_digits": {"type": "integer", "label": "小数点以下の桁数", "default": 2,
                         "min": 0, "max": 12},
    }


def execute(args: dict, context: dict) -> dict:
    callback = context.get("message_callback")
    abort_event = context.get("abort_event")
    rows = args.get("rows") or []
    if len(rows) > MAX_ROWS:
        return {"success": False, "error": f"too many rows ({len(rows)} > {MAX_ROWS})"}
    if abort_event and abort_event.is_set():
        return {"success": False, "error": "中断されました", "aborted": True}
    if callback:
        callback(f"{len(rows)} 行を整形しています...")
    digits = context.get("settings", {}).get("float_digits", 2)
    headers = args.get("headers")
    if headers is None:
        headers = "keys" if rows and isinstance(rows[0], dict) else ()
    text = tabulate(rows, headers=headers, tablefmt=args.get("format", "github"),
                    floatfmt=f".{digits}f")
    return {"success": True, "result": text}
