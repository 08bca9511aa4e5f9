"""
単位変換ツール
長さ・重さ・温度をメートル法とヤード・ポンド法の間で変換し、結果をワークスペースに記録します。
"""

import base64

TOOL_NAME = "単位変換"
TOOL_DESCRIPTION = "長さ・重さ・温度を変換します (m/ft, kg/lb, C/F)"
TOOL_ICON = (
    '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 24 24" class="icon-convert">'
    '<title>unit convert</title>'
    '<path d="M4 7h13l-3-3M20 17H7l3 3" fill="none" stroke="currentColor" stroke-width="2"/>'
    "</svg>"
)

FACTORS = {
    ("m", "ft"): 3.28084, ("ft", "m"): 1 / 3.28084,
    ("kg", "lb"): 2.20462, ("lb", "kg"): 1 / 2.20462,
}


def get_function_declaration() -> dict:
    return {
        "name": "unit_convert",
        "description": "Convert a value between metric and imperial units",
        "parameters": {
            "type": "object",
            "properties": {
                "value": {"type": "number", "description": "the value to convert"},
                "from_unit": {"type": "string", "enum": ["m", "ft", "kg", "lb", "C", "F"]},
                "to_unit": {"type": "string", "enum": ["m", "ft", "kg", "lb", "C", "F"]},
            },
            "required": ["value", "from_unit", "to_unit"],
        },
    }


def get_settings_schema() -> dict:
    return {
        "system": {
            "type": "select",
            "label": "既定の単位系",
            "default": "metric",
            "options": [
                {"value": "metric", "label": "メートル法"},
                {"value": "imperial", "label": "ヤード・ポンド法"},
            ],
        },
        "precision": {"type": "number", "label": "小数点以下の桁数", "default": 2,
                      "min": 0, "max": 10, "step": 1},
        "show_formula": {"type": "boolean", "label": "式を表示する", "default": True},
        "footer": {"type": "text", "label": "記録の末尾に付ける文", "default": "以上"},
        "api_token": {"type": "secret", "label": "為替 API トークン", "default": ""},
    }


def _convert(value: float, source: str, target: str) -> tuple[float, str]:
    if (source, target) == ("C", "F"):
        return value * 9 / 5 + 32, "x * 9/5 + 32"
    if (source, target) == ("F", "C"):
        return (value - 32) * 5 / 9, "(x - 32) * 5/9"
    if source == target:
        return value, "x"
    factor = FACTORS[(source, target)]
    return value * factor, f"x * {factor:.6g}"


def execute(args: dict, context: dict) -> dict:
    context["message_callback"]("単位を変換しています...")
    settings = context["settings"]
    try:
        converted, formula = _convert(float(args["value"]), args["from_unit"], args["to_unit"])
    except KeyError:
        return {"success": False,
                "error": f"{args['from_unit']} から {args['to_unit']} へは変換できません"}
    digits = int(settings["precision"])
    text = f"{args['value']} {args['from_unit']} = {converted:.{digits}f} {args['to_unit']}"
    if settings["show_formula"]:
        text += f"  ({formula})"
    context["message_callback"]("結果を記録しています...")
    workspace = context["runtime"].workspace()
    record = f"# 単位変換\n\n{text}\n\n{settings['footer']}\n"
    report = workspace.write("reports/convert.md", record)
    summary = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return {
        "success": True,
        "result": {"text": text, "value": round(converted, digits),
                   "system": settings["system"], "token_set": bool(settings["api_token"])},
        "files": [
            {"path": report, "name": "convert.md", "type": "text/markdown"},
            {"path": "assets/legend.txt", "name": "legend.txt", "type": "text/plain"},
            {"path": "data:text/plain;base64," + summary, "name": "summary.txt",
             "type": "text/plain"},
        ],
    }
