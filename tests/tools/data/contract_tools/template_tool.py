"""Template: copy into tool/<name>/<name>_tool.py and fill in."""

TOOL_NAME = "テンプレート"
TOOL_DESCRIPTION = "コピーして使うひな形"
TOOL_ICON = "🔧"


def get_function_declaration() -> dict:
    return {"name": "template", "description": "",
            "parameters": {"type": "object", "properties": {}}}


def execute(args: dict, context: dict) -> dict:
    return {"success": True, "result": None}
