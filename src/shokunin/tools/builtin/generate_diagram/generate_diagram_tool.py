"""
図生成ツール
Draws a bar chart, a line chart, a flowchart or a network from data written in free text
(a JSON value, a Markdown table, list lines or arrow chains; see ``diagram_data``) with a
Japanese font, saves it as ``diagrams/<uuid>.png`` in the thread's workspace, returns it in
``files`` and, when the call belongs to a run, emits it as an ``image`` event for the UI.
"""

from __future__ import annotations

import base64
import uuid
from pathlib import Path
from typing import Any

import diagram_render
from diagram_data import ChartData, GraphData, NoData, chart_data, graph_data

TOOL_NAME = "図生成"
TOOL_DESCRIPTION = ("説明文のデータから棒グラフ・折れ線グラフ・フローチャート・ネットワーク図を"
                    "描きます (draw a chart or diagram from data in the text).")
TOOL_ICON = "📊"

TYPES = {"bar": "棒グラフ", "line": "折れ線グラフ", "flowchart": "フローチャート",
         "network": "ネットワーク図"}
MAX_DESCRIPTION = 20_000
MAX_TITLE = 200
FOLDER = "diagrams"


def get_function_declaration() -> dict:
    return {
        "name": "generate_diagram",
        "description": "Draw a diagram as a PNG and show it to the user. bar/line: give the "
                       'data in description as JSON ({"原材料費": 450, "労務費": 300}), a '
                       "Markdown table (labels in the first column, numbers in the others) or "
                       "list lines ('- 原材料費: 450円'). flowchart: steps as 'A → B → C' or a "
                       "numbered list. network: one link per line, 'A - B', 'A -> B' or "
                       "'A と B'.",
        "parameters": {
            "type": "object",
            "properties": {
                "diagram_type": {"type": "string", "enum": list(TYPES),
                                 "description": "bar, line, flowchart or network"},
                "title": {"type": "string", "description": "The diagram's title"},
                "description": {"type": "string",
                                "description": "Free text that holds the data to draw"},
            },
            "required": ["diagram_type", "title", "description"],
        },
    }


def execute(args: dict, context: dict) -> dict:
    kind = str(args.get("diagram_type", ""))
    title = str(args.get("title", "")).strip()[:MAX_TITLE]
    description = str(args.get("description", ""))
    if kind not in TYPES:
        return {"success": False, "error": f"diagram_type は {', '.join(TYPES)} のいずれかです "
                                           f"(unknown diagram_type {kind!r})"}
    if len(description) > MAX_DESCRIPTION:
        return {"success": False, "error": f"description が長すぎます (longer than "
                                           f"{MAX_DESCRIPTION} characters)"}
    abort_event = context.get("abort_event")
    say = context.get("message_callback")
    try:
        data: ChartData | GraphData
        if kind in ("bar", "line"):
            data = chart_data(description)
        else:
            data = graph_data(description, flowchart=kind == "flowchart")
        if abort_event and abort_event.is_set():
            return {"success": False, "error": "中断されました", "aborted": True}
        if say:
            say(f"{TYPES[kind]}を描いています...")
        png = _render(kind, title, data)
    except (NoData, diagram_render.NoJapaneseFont) as exc:
        return {"success": False, "error": str(exc)}
    name = f"{FOLDER}/{uuid.uuid4().hex}.png"
    path = _save(context, name, png)
    emit = context.get("emit")
    if emit is not None:
        from shokunin.events import Image  # in-process only: a run is listening

        emit(Image(data_base64=base64.b64encode(png).decode("ascii"), format="png", path=name))
    missing = diagram_render.missing_glyphs(title + _texts(data),
                                            diagram_render.japanese_font_path())
    result: dict[str, Any] = {
        "summary": _summary(kind, title, data), "diagram_type": kind, "title": title,
        "source_format": data.source, "data": data.as_dict(), "path": name}
    if missing:
        result["missing_glyphs"] = "".join(missing)
    return {"success": True, "result": result,
            "files": [{"path": path, "name": path.rsplit("/", 1)[-1], "type": "image/png"}]}


def _render(kind: str, title: str, data: ChartData | GraphData) -> bytes:
    if isinstance(data, ChartData):
        return diagram_render.render_chart(kind, title, data)
    if kind == "flowchart":
        return diagram_render.render_flowchart(title, data)
    return diagram_render.render_network(title, data)


def _save(context: dict, name: str, png: bytes) -> str:
    """Into the thread's workspace (through the runtime, which refuses links), else the
    tool's own folder, as the seed asks of files a tool creates."""
    runtime = context.get("runtime")
    if runtime is not None:
        return runtime.workspace().write(name, png)
    folder = Path(context.get("workspace") or context.get("tool_dir") or ".")
    target = folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(png)
    return str(target.resolve())


def _summary(kind: str, title: str, data: ChartData | GraphData) -> str:
    shown = f"「{title}」" if title else ""
    if isinstance(data, ChartData):
        first = data.series[0]
        points = "、".join(f"{label} {diagram_render.short_number(value)}{data.unit}"
                          for label, value in list(zip(data.labels, first.values,
                                                       strict=False))[:8])
        more = " ほか" if len(data.labels) > 8 else ""
        series = f"{len(data.series)}系列・" if len(data.series) > 1 else ""
        return (f"{TYPES[kind]}{shown}を描きました（{series}{len(data.labels)}項目: "
                f"{points}{more}）。")
    if kind == "flowchart":
        steps = " → ".join(data.nodes[:10]) + (" → ..." if len(data.nodes) > 10 else "")
        return f"{TYPES[kind]}{shown}を描きました（{len(data.nodes)}ステップ: {steps}）。"
    links = "、".join(f"{a}{'→' if (a, b) in data.one_way else '—'}{b}" for a, b in data.edges[:8])
    more = " ほか" if len(data.edges) > 8 else ""
    return (f"{TYPES[kind]}{shown}を描きました（{len(data.nodes)}ノード・{len(data.edges)}本の"
            f"つながり: {links}{more}）。")


def _texts(data: ChartData | GraphData) -> str:
    if isinstance(data, ChartData):
        return "".join(data.labels) + "".join(s.name for s in data.series) + data.unit
    return "".join(data.nodes)
