"""The offline brain's words, in the user's language: a sentence per tool outcome, one
clear sentence per kind of failure, what it could not do, and its help."""

from __future__ import annotations

import json
import re
from typing import Any

from shokunin.agents.outcomes import cell_failure
from shokunin.agents.workbench import charts
from shokunin.agents.workbench.figures import table_answer
from shokunin.agents.workbench.intents import MAX_CHARS, Plan
from shokunin.maps import MapPackage

_JA_WAYS = {"left": "左", "right": "右", "up": "上", "down": "下"}
_JA_BITMAPS = {"person": "人物", "exit": "非常口"}
# Said to the person using the app, so it names the page they can open (nav 「モデル」 /
# "Models"), not a variable or a file only whoever started the server can change.
MODEL_HINT = ("To have free-form requests understood, set up a model on the “Models” page "
              "(e.g. OpenAI or Ollama).",
              "自由な文章の依頼には、「モデル」の画面でモデルを設定すると答えられます"
              "（OpenAI や Ollama など）。")


def join(names: list[str] | str, ja: bool) -> str:
    """``Room1, Room2`` (ja: ``Room1、Room2``) from a list or a comma-separated string."""
    items = [n.strip() for n in names.split(",")] if isinstance(names, str) else names
    return ("、" if ja else ", ").join(n for n in items if n)


def _article(word: str) -> str:
    return "an" if word[:1].lower() in "aeiou" else "a"


def outcome(ja: bool, name: str, args: dict[str, Any], result: str, ok: bool,
            about: tuple[str, str] | None = None,
            failure: dict[str, Any] | None = None) -> str:
    """One sentence (or a table) saying what a tool call did, or why it failed: read from
    its recorded result (``ok``, ``result``, a failed cell's ``failure``), never from what
    it was asked to do."""
    if not ok:
        if name == "run_python":
            return _cell_error(ja, args, result.removeprefix("Error: "), failure)
        return tool_error(ja, name, result.removeprefix("Error: "))
    if name == "draw_arrow":
        room, way = args.get("room_name", ""), str(args.get("direction", "")).lower()
        # The seed's own words (seed 000's final_answer example).
        return f"{_JA_WAYS.get(way, way)}矢印が{room}に描かれました。" if ja else \
            f"Drew {_article(way)} {way} arrow in {room}."
    if name == "clear_arrows":
        return "矢印をクリアしました。" if ja else "Cleared all arrows."
    if name == "clear_map":
        return "マップをクリアしました。" if ja else "Cleared the map."
    if name == "highlight_room":
        rooms = join(args.get("room_names", ""), ja)
        return f"{rooms}をハイライトしました。" if ja else f"Highlighted {rooms}."
    if name == "show_map":
        return _shown(ja, args)
    if name == "show_points":
        n = len(args.get("points", []))
        return f"{n}個の座標を地図に表示しました。" if ja else f"Plotted {n} points on the map."
    if name == "sql_engine":
        return table_answer(ja, result, about)
    if name == "run_python":
        spec = args.get("chart")
        if isinstance(spec, dict):
            what = charts.title(spec, ja)
            return f"グラフを作成しました: {what}。" if ja else f"Drew a chart: {what}."
        return "コードを実行しました。" if ja else "Ran the code."
    if name == "calculator":
        return f"{args.get('expression', '')} = {_plugin_result(result)}"
    return f"{name}: {result}"


def _shown(ja: bool, args: dict[str, Any]) -> str:
    floor = args.get("floor_id", "")
    rooms = join(args.get("highlight_rooms", ""), ja)
    colors = args.get("room_colors", "")
    overlays = [e.split(":", 1) for e in str(args.get("bitmap_overlays", "")).split(";") if e]
    if ja:
        if overlays:
            marks = "、".join(f"{r}に{_JA_BITMAPS.get(b, b)}" for b, r in overlays)
            return f"{floor}を表示し、{marks}を置きました。"
        color = f"（{colors}）" if colors else ""
        return f"{floor}を表示しました" + (f"（{rooms}をハイライト{color}）。" if rooms else "。")
    if overlays:
        marks = ", ".join(f"{_article(b)} {b} sign in {r}" if b == "exit" else
                          f"{_article(b)} {b} in {r}" for b, r in overlays)
        return f"Showing {floor} with {marks}."
    color = f" in {colors.replace(',', ', ')}" if colors else ""
    return f"Showing {floor}" + (f" with {rooms} highlighted{color}." if rooms else ".")


_UNKNOWN = re.compile(r"unknown (room|floor|direction|colour|bitmap) '([^']{0,200})'")
_ELSEWHERE = re.compile(r"room '([^']{0,200})' is on floor (\S{1,40}), not (\S{1,40});")
_BILINGUAL = re.compile(r"(.{1,300}) \(([^()]{1,300})\)$")
_JA_THINGS = {"room": "部屋", "floor": "階", "direction": "向き", "colour": "色",
              "bitmap": "アイコン"}


def tool_error(ja: bool, name: str, reason: str) -> str:
    """One sentence in the user's language for a tool's failure; the English detail (valid
    choices) stays in the debug pane."""
    if hit := _UNKNOWN.search(reason):
        thing, value = hit.groups()
        choices = reason.split("; ", 1)[1] if "; " in reason else ""
        valid = choices.split(": ", 1)[-1]
        if not value.strip():  # the user named none: say which to name, not "unknown ''"
            if ja:
                return f"{_JA_THINGS[thing]}が指定されていません" + (
                    f"（{_JA_THINGS[thing]}: {valid}）。" if valid else "。")
            return f"No {thing} was given" + (f" ({choices})." if choices else ".")
        if ja:
            return f"地図に{_JA_THINGS[thing]}「{value}」はありません" + (
                f"（{_JA_THINGS[thing]}: {valid}）。" if valid else "。")
        return f"The map has no {thing} “{value}”" + (f" ({choices})." if choices else ".")
    if hit := _ELSEWHERE.search(reason):
        room, there, here = hit.groups()
        return f"{room}は{here}ではなく{there}にあります。" if ja else \
            f"{room} is on {there}, not on {here}."
    if name == "calculator" and (hit := _BILINGUAL.match(reason)):
        return f"計算できませんでした: {hit.group(1)}。" if ja else \
            f"The calculator could not compute it: {hit.group(2)}."
    if name == "sql_engine":
        detail = reason.removeprefix("query failed: ")
        return f"データベースの問い合わせに失敗しました（{detail}）。" if ja else \
            f"The database query failed: {detail}."
    # The English detail would mix languages in a Japanese reply: it is in the debug pane.
    return f"{name} は失敗しました（詳細はデバッグ欄にあります）。" if ja else \
        f"{name} failed: {reason}."


def _cell_error(ja: bool, args: dict[str, Any], reason: str,
                failure: dict[str, Any] | None) -> str:
    """What a chart or code that did not run to its end did not do, why, and what to do."""
    if failure is not None:
        why = cell_failure(failure.get("error_type"), failure.get("error_message"), ja)
    else:  # the sandbox was not reached: its English reason is in the debug pane
        why = "詳細はデバッグ欄にあります。" if ja else f"{reason.rstrip('.')}."
    spec = args.get("chart")
    if isinstance(spec, dict):
        what = charts.title(spec, ja)
        return f"グラフを作成できませんでした（{what}）。{why}" if ja else \
            f"Could not draw the chart ({what}). {why}"
    return f"コードを実行できませんでした。{why}" if ja else f"Could not run the code. {why}"


def _plugin_result(content: str) -> str:
    """The value in a plugin's ``{"success", "result", ...}`` answer (the calculator's
    result is ``{"expression", "value"}``)."""
    try:
        data = json.loads(content)
    except ValueError:
        return content
    result = data.get("result", content) if isinstance(data, dict) else content
    return str(result.get("value", result)) if isinstance(result, dict) else str(result)


def notes(plan: Plan) -> list[str]:
    """What the reply adds to the outcomes: the cut, what cannot be done, how to do more."""
    out = []
    if plan.cut:
        out.append(f"メッセージが長いため、最初の{MAX_CHARS}文字だけを読みました。" if plan.ja else
                   f"The message is long: I read only its first {MAX_CHARS} characters.")
    out += list(dict.fromkeys(ja if plan.ja else en for en, ja in plan.notes))
    if plan.notes:
        out.append(MODEL_HINT[1] if plan.ja else MODEL_HINT[0])
    return out


def help_text(ja: bool, pkg: MapPackage) -> str:
    rooms = join(pkg.room_names, ja)
    floors = join(pkg.floor_ids, ja)
    if ja:
        return ("オフラインでは次のような依頼ができます"
                "（「、」「そして」で複数まとめて可）:\n"
                "- 「Kitchenに左矢印、Room1に上矢印を描いて」「矢印をクリアして」\n"
                "- 「2階を表示」「書庫を赤でハイライト」「ロビーに人物を置いて」"
                "「マップをクリアして」\n"
                "- 「2Fの部屋の一覧」「2階に部屋はいくつ?」「一番広い部屋は?」"
                "「ラウンジの定員は?」"
                "「会議室の14時の人数」「2Fの面積の合計」または SELECT 文\n"
                "- 「2Fの部屋の面積をグラフにして」「ラウンジの人数をグラフに」"
                "「2400の15%を計算」\n"
                f"階: {floors}\n部屋: {rooms}\n{MODEL_HINT[1]}")
    return ("Offline, I understand requests like these (several at once, joined by \"and\", "
            "\"then\" or commas):\n"
            "- \"draw a left arrow in Kitchen and an up arrow in Room1\", \"clear the arrows\"\n"
            "- \"show the second floor\", \"highlight the archive in red\", \"put a person in "
            "the lobby\", \"clear the map\"\n"
            "- \"list the rooms on 2F\", \"how many rooms are on 1F?\", \"which room is the "
            "largest?\", \"what is the capacity of the lounge?\", \"how many people are in the "
            "meeting room at 2pm?\", \"total area of 2F\", or a SELECT query\n"
            "- \"plot room areas on 2F\", \"chart the lounge's occupancy\", \"what is 15% of "
            "2400?\"\n"
            f"Floors: {floors}\nRooms: {rooms}\n{MODEL_HINT[0]}")
