"""
天気予報ツール (its author forgot the requirements.txt: the import fails here)
"""

import pyowm_not_installed_anywhere  # noqa: F401

TOOL_NAME = "天気予報"
TOOL_DESCRIPTION = "天気を調べます"
TOOL_ICON = "☀️"


def get_function_declaration() -> dict:
    return {"name": "weather_report", "description": "weather",
            "parameters": {"type": "object", "properties": {}}}


def execute(args: dict, context: dict) -> dict:
    return {"success": True, "result": None}
