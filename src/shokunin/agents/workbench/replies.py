"""The OfflineBrain's words: a sentence per tool outcome, and its help, in English or Japanese."""

from __future__ import annotations

import json
from typing import Any

from shokunin.maps import MapPackage

_JA_WAYS = {"left": "左", "right": "右", "up": "上", "down": "下"}


def outcome(ja: bool, name: str, args: dict[str, Any], result: str, ok: bool) -> str:
    if not ok:
        reason = result.removeprefix("Error: ")
        return f"実行できませんでした（{name}）: {reason}" if ja else \
            f"I couldn't do that ({name}): {reason}"
    if name == "draw_arrow":
        room, way = args.get("room_name", ""), str(args.get("direction", "")).lower()
        return f"{_JA_WAYS.get(way, way)}矢印が{room}に描かれました。" if ja else \
            f"Drew a {way} arrow in {room}."
    if name == "clear_arrows":
        return "矢印をクリアしました。" if ja else "Cleared all arrows."
    if name == "clear_map":
        return "マップをクリアしました。" if ja else "Cleared the map."
    if name == "highlight_room":
        return f"{args.get('room_names', '')}をハイライトしました。" if ja else \
            f"Highlighted {args.get('room_names', '')}."
    if name == "show_map":
        rooms = args.get("highlight_rooms", "")
        floor = args.get("floor_id", "")
        if ja:
            return f"{floor}を表示しました" + (f"（{rooms}をハイライト）。" if rooms else "。")
        return f"Showing floor {floor}" + (f" with {rooms} highlighted." if rooms else ".")
    if name == "show_points":
        n = len(args.get("points", []))
        return f"{n}個の座標を地図に表示しました。" if ja else f"Plotted {n} points on the map."
    if name == "sql_engine":
        return _table_answer(ja, result)
    if name == "run_python":
        return "部屋の面積のグラフを作成しました。" if ja else "Here is the chart of room areas."
    if name == "calculator":
        expr = next(iter(args.values()), "")
        return f"{expr} = {_plugin_result(result)}"
    return f"{name}: {result}"


def _plugin_result(content: str) -> str:
    """The value in a plugin's ``{"success", "result", ...}`` answer (the calculator's
    result is ``{"expression", "value"}``)."""
    try:
        data = json.loads(content)
    except ValueError:
        return content
    result = data.get("result", content) if isinstance(data, dict) else content
    return str(result.get("value", result)) if isinstance(result, dict) else str(result)


def _table_answer(ja: bool, table: str) -> str:
    lines = table.splitlines()
    if len(lines) == 3 and lines[2].count("|") == 2:  # one column, one row: a single value
        value = lines[2].strip("| ")
        return f"答えは {value} です。" if ja else f"The answer is {value}."
    return f"結果です:\n\n{table}" if ja else f"Here is the result:\n\n{table}"


def help_text(ja: bool, pkg: MapPackage) -> str:
    rooms = ", ".join(pkg.room_names)
    floors = ", ".join(pkg.floor_ids)
    if ja:
        return ("オフラインモードでは次のことができます:\n"
                "- 「Kitchenに左矢印を表示して」「矢印をクリアして」\n"
                "- 「2Fを表示」「Room1を赤でハイライト」「マップをクリアして」\n"
                "- 「部屋の一覧」「2Fに部屋はいくつ?」または SELECT 文\n"
                "- 「部屋の面積をグラフにして」「1200*1.1を計算して」\n"
                f"フロア: {floors}\n部屋: {rooms}")
    return ("Offline, I can:\n"
            "- draw arrows: \"draw a left arrow in Kitchen\", \"clear the arrows\"\n"
            "- show the map: \"show 2F\", \"highlight Room1 and Room2 on 1F in red\", "
            "\"clear the map\"\n"
            "- answer from the database: \"list the rooms\", \"how many rooms are on 2F?\", "
            "or a SELECT query\n"
            "- \"plot room areas\", \"calculate 1200*1.1\"\n"
            f"Floors: {floors}\nRooms: {rooms}")
