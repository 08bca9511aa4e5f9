"""Scaffolding a new tool: the seed's section 8 template, named for the new folder."""

from __future__ import annotations

import re
from pathlib import Path

from shokunin.tools.errors import ToolError

TOOL_FOLDER_NAME = re.compile(r"[a-z][a-z0-9_]{0,63}", re.ASCII)

# Seed 003 section 8, verbatim except the function name (two scaffolded tools must not clash).
TEMPLATE = '''"""
[ツール名]ツール
[ツールの説明]
"""

TOOL_NAME = "ツール表示名"
TOOL_DESCRIPTION = "ツールの説明文"
TOOL_ICON = "🔧"


def get_function_declaration() -> dict:
    """Function Calling用の宣言を返す"""
    return {
        "name": "tool_function_name",
        "description": "この関数の説明",
        "parameters": {
            "type": "object",
            "properties": {
                "param1": {
                    "type": "string",
                    "description": "パラメータ1の説明"
                },
                "param2": {
                    "type": "integer",
                    "description": "パラメータ2の説明"
                }
            },
            "required": ["param1"]
        }
    }


def execute(args: dict, context: dict) -> dict:
    """ツールを実行する"""
    # コンテキストから必要な情報を取得
    callback = context.get('message_callback')
    abort_event = context.get('abort_event')
    settings = context.get('settings', {})
    
    try:
        # 進捗通知
        if callback:
            callback("処理を開始しています...")
        
        # 中断チェック
        if abort_event and abort_event.is_set():
            return {"success": False, "error": "中断されました", "aborted": True}
        
        # メイン処理
        param1 = args.get('param1', '')
        param2 = args.get('param2', 0)
        
        # ... 実際の処理 ...
        
        result = {"data": "処理結果"}
        
        return {
            "success": True,
            "result": result
        }
        
    except Exception as e:
        return {
            "success": False,
            "error": str(e)
        }


# オプション: 設定スキーマ
def get_settings_schema() -> dict:
    """設定スキーマを返す"""
    return {
        "setting_key": {
            "type": "string",
            "label": "設定項目名",
            "default": "デフォルト値"
        }
    }


# オプション: UI情報
def get_ui_info() -> dict:
    """UI情報を返す"""
    return {
        "has_ui": False,
        "html_file": "index.html"
    }
'''


def scaffold(root: Path, name: str) -> Path:
    """Create ``root/name/name_tool.py`` from the template; returns the entry file."""
    if not TOOL_FOLDER_NAME.fullmatch(name):
        raise ToolError(f"invalid tool name {name!r}: use lowercase ASCII letters, digits and "
                        "underscores, starting with a letter")
    folder = root / name
    if folder.exists():
        raise ToolError(f"{folder} already exists; refusing to overwrite it")
    folder.mkdir(parents=True)
    entry = folder / f"{name}_tool.py"
    entry.write_text(TEMPLATE.replace('"tool_function_name"', repr(name).replace("'", '"')),
                     encoding="utf-8")
    return entry
