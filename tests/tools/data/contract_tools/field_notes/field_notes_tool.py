"""
現場メモツール
会話のワークスペースにメモを書き、読み返し、一覧にします。専用の仮想環境で動きます。
"""

import sys

from notes_format import heading

TOOL_NAME = "現場メモ"
TOOL_DESCRIPTION = "ワークスペースにメモを保存・一覧します"
TOOL_ICON = "📝"


def get_function_declaration() -> dict:
    return {
        "name": "field_notes",
        "description": "Write a note into the conversation's workspace and list the notes",
        "parameters": {
            "type": "object",
            "properties": {
                "title": {"type": "string"},
                "body": {"type": "string"},
                "folder": {"type": "string", "default": "notes"},
            },
            "required": ["title", "body"],
        },
    }


def get_settings_schema() -> dict:
    return {
        "author": {"type": "string", "label": "記入者", "default": "匿名"},
        "max_notes": {"type": "integer", "label": "保存するメモの上限", "default": 50,
                      "min": 1, "max": 1000},
    }


def execute(args: dict, context: dict) -> dict:
    callback = context["message_callback"]
    callback("メモを書いています...")
    workspace = context["runtime"].workspace()
    folder = args.get("folder") or "notes"
    name = f"{folder}/{args['title']}.md"
    try:
        existed = workspace.exists(name)
        path = workspace.write(name, heading(args["title"]) + args["body"] + "\n\n— "
                               + context["settings"]["author"] + "\n")
        text = workspace.read(name)
    except (ValueError, OSError) as exc:
        return {"success": False, "error": f"メモを保存できません: {exc}"}
    callback("一覧を作っています...")
    return {
        "success": True,
        "result": {
            "replaced": existed,
            "text": text,
            "files": workspace.list_files(recursive=True),
            "dirs": workspace.list_dirs(recursive=True),
            "workspace": workspace.get_path(),
            "python": sys.prefix,
        },
        "files": [{"path": path, "name": args["title"] + ".md", "type": "text/markdown"}],
    }
