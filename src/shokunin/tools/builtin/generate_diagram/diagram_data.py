"""Reading the data of a diagram out of free text, deterministically and without eval.

Charts (bar, line) take labels and one or more numeric series from, in this order: a JSON
object or array in the text, a Markdown table, or list lines ("- 原材料費: 450円",
"原材料費 450"). Flowcharts and networks take nodes and edges from a JSON value, arrow chains
("A → B → C", "A -> B"), pairs ("A - B", "A と B"), a Markdown table, or list lines (the
steps of a flowchart, in order). The text is NFKC-normalised first, so full-width digits,
colons and arrows read like their ASCII forms.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from dataclasses import dataclass, field
from typing import Any

MAX_POINTS = 200  # labels of a chart
MAX_NODES = 60  # nodes of a flowchart or network

_NUMBER = r"[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?"
_BULLET = re.compile(r"^\s*(?:[-*+・•●◦]|\d{1,3}[.)]|\(\d{1,3}\)|[①-⑳])\s*")
_LIST_ITEM = re.compile(rf"^(?P<label>.+?)\s*(?:[:=]\s*|\s+|(?<=\D)(?=[-+]?\d))"
                        rf"(?P<value>{_NUMBER})\s*(?P<unit>[^\d\s]{{0,4}})\s*$")
_ITEM_SPLIT = re.compile(r"\n|、|;|,\s+(?=\D)")
_ARROW = re.compile(r"\s*(?:->|=>|→|⇒|⟶|➡|>>)\s*")
_UNDIRECTED = re.compile(r"\s*(?:<->|↔|⇔|—|―)\s*|\s+-\s+|\s+と\s+")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?$")
_LABEL_KEYS = ("label", "name", "項目", "名前", "ラベル", "category", "x", "year", "年")
_VALUE_KEYS = ("value", "値", "金額", "amount", "y", "count")


@dataclass
class Series:
    name: str
    values: list[float]


@dataclass
class ChartData:
    """Labels along the axis and one or more series of the same length."""

    labels: list[str]
    series: list[Series]
    source: str  # "json" | "table" | "list"
    unit: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"labels": self.labels, "unit": self.unit,
                "series": [{"name": s.name, "values": s.values} for s in self.series]}


@dataclass
class GraphData:
    """Nodes in order of first appearance, and edges between them."""

    nodes: list[str] = field(default_factory=list)
    edges: list[tuple[str, str]] = field(default_factory=list)
    one_way: set[tuple[str, str]] = field(default_factory=set)  # the edges drawn as arrows
    source: str = ""

    def add_edge(self, a: str, b: str, *, directed: bool = True) -> None:
        for node in (a, b):
            if node not in self.nodes:
                self.nodes.append(node)
        if a != b and (a, b) not in self.edges:
            self.edges.append((a, b))
            if directed:
                self.one_way.add((a, b))

    def as_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes,
                "edges": [{"from": a, "to": b, "directed": (a, b) in self.one_way}
                          for a, b in self.edges]}


class NoData(ValueError):
    """Nothing usable was found; the message lists the formats that are understood."""


def normalise(text: str) -> str:
    return unicodedata.normalize("NFKC", text).replace("\r\n", "\n")


def parse_number(text: Any) -> float | None:
    """450, "450円", "1,200", "12.5%" -> float; anything else None (never eval)."""
    if isinstance(text, bool):
        return None
    if isinstance(text, int | float):  # JSON's NaN and Infinity are no data
        return float(text) if math.isfinite(text) else None
    if not isinstance(text, str):
        return None
    match = re.fullmatch(rf"\s*({_NUMBER})\s*[^\d\s]{{0,4}}\s*", normalise(text))
    return float(match.group(1).replace(",", "")) if match else None


# ---- charts -------------------------------------------------------------------------------

def chart_data(description: str) -> ChartData:
    text = normalise(description)
    for reader in (_chart_from_json, _chart_from_table, _chart_from_list):
        data = reader(text)
        if data and data.labels and data.series:
            data.labels, data.series = data.labels[:MAX_POINTS], [
                Series(s.name, s.values[:MAX_POINTS]) for s in data.series]
            return data
    raise NoData(
        "グラフにするデータが見つかりません。次のいずれかの形で書いてください: "
        'JSON ({"原材料費": 450, "労務費": 300} または [{"label": "原材料費", "value": 450}])、'
        "Markdown の表（1列目が項目、数値の列が系列）、箇条書き（「- 原材料費: 450円」"
        "「原材料費 450」）。 / No chart data found: give a JSON object or array, a Markdown "
        "table (labels in the first column, numbers in the others) or list lines such as "
        "'- material: 450'.")


def _chart_from_json(text: str) -> ChartData | None:
    for value in _json_values(text):
        data = _chart_from_value(value)
        if data:
            return data
    return None


def _chart_from_value(value: Any) -> ChartData | None:
    if isinstance(value, dict):
        labels = value.get("labels")
        if isinstance(labels, list) and labels:
            return _labelled(value, [str(x) for x in labels])
        if value and all(isinstance(v, dict) for v in value.values()):  # {"2023": {...}}
            return _chart_from_records([{"label": k, **v} for k, v in value.items()])
        pairs = [(str(k), parse_number(v)) for k, v in value.items()]
        if pairs and all(v is not None for _, v in pairs):
            return ChartData([k for k, _ in pairs], [Series("値", [v for _, v in pairs])],
                             "json")
        for inner in value.values():  # {"data": [...]} and the like
            if isinstance(inner, list | dict):
                data = _chart_from_value(inner)
                if data:
                    return data
        return None
    if isinstance(value, list) and value:
        if all(parse_number(v) is not None for v in value):
            return ChartData([str(i + 1) for i in range(len(value))],
                             [Series("値", [parse_number(v) or 0.0 for v in value])], "json")
        if all(isinstance(v, dict) for v in value):
            return _chart_from_records(value)
        if all(isinstance(v, list) and len(v) >= 2 for v in value):
            records = [{"label": v[0], **{f"系列{i}": x for i, x in enumerate(v[1:], 1)}}
                       for v in value]
            return _chart_from_records(records)
    return None


def _labelled(value: dict[str, Any], labels: list[str]) -> ChartData | None:
    """``{"labels": [...], "values": [...]}`` or ``{"labels": [...], "series": {...}}``."""
    series: list[Series] = []
    raw = value.get("series")
    if isinstance(raw, dict):
        candidates = list(raw.items())
    elif isinstance(raw, list):
        candidates = [(str(s.get("name", f"系列{i + 1}")), s.get("values") or s.get("data"))
                      for i, s in enumerate(raw) if isinstance(s, dict)]
    else:
        candidates = [(str(k), v) for k, v in value.items() if k != "labels"]
    for name, values in candidates:
        if isinstance(values, list) and len(values) == len(labels):
            numbers = [parse_number(v) for v in values]
            if all(n is not None for n in numbers):
                series.append(Series("値" if name in ("values", "data") else str(name),
                                     [n or 0.0 for n in numbers]))
    return ChartData(labels, series, "json") if series else None


def _chart_from_records(records: list[dict[str, Any]]) -> ChartData | None:
    keys = list(dict.fromkeys(k for r in records for k in r))
    label_key = next((k for k in keys if str(k).lower() in _LABEL_KEYS), None)
    if label_key is None:  # the first key whose values are not all numbers
        label_key = next((k for k in keys
                          if any(parse_number(r.get(k)) is None for r in records)), None)
    if label_key is None:
        return None
    numeric = [k for k in keys if k != label_key
               and all(parse_number(r.get(k)) is not None for r in records)]
    numeric.sort(key=lambda k: str(k).lower() not in _VALUE_KEYS)  # "value" first
    if not numeric:
        return None
    labels = [str(r.get(label_key, "")) for r in records]
    series = [Series("値" if str(k).lower() in _VALUE_KEYS and len(numeric) == 1 else str(k),
                     [parse_number(r[k]) or 0.0 for r in records]) for k in numeric]
    return ChartData(labels, series, "json")


def _chart_from_table(text: str) -> ChartData | None:
    table = markdown_table(text)
    if table is None or not table[1]:
        return None
    header, rows = table
    series = []
    for col in range(1, len(header)):
        cells = [row[col] if col < len(row) else "" for row in rows]
        numbers = [parse_number(c) for c in cells]
        if all(n is not None for n in numbers):
            series.append(Series(header[col] or f"系列{col}", [n or 0.0 for n in numbers]))
    if not series:
        return None
    return ChartData([row[0] for row in rows], series, "table")


def _chart_from_list(text: str) -> ChartData | None:
    labels: list[str] = []
    values: list[float] = []
    units: set[str] = set()
    for item in _items(text):
        match = _LIST_ITEM.match(_BULLET.sub("", item, count=1))
        if not match:
            continue
        label = match.group("label").strip(" :=")
        if not label:
            continue
        labels.append(label)
        values.append(float(match.group("value").replace(",", "")))
        units.add(match.group("unit"))
    if not labels:
        return None
    unit = units.pop() if len(units) == 1 else ""
    return ChartData(labels, [Series("値", values)], "list", unit=unit)


# ---- flowcharts and networks --------------------------------------------------------------

def graph_data(description: str, *, flowchart: bool) -> GraphData:
    text = normalise(description)
    readers = [_graph_from_json, _graph_from_links, _graph_from_table]
    if flowchart:
        readers.append(_steps_from_list)
    for reader in readers:
        graph = reader(text, flowchart)
        if graph and graph.nodes and (graph.edges or flowchart):
            graph.nodes = graph.nodes[:MAX_NODES]
            graph.edges = [e for e in graph.edges
                           if e[0] in graph.nodes and e[1] in graph.nodes]
            return graph
    if flowchart:
        raise NoData(
            "フローチャートの手順が見つかりません。「見積依頼 → 回答 → 交渉」や「A -> B」、"
            "番号付きの箇条書き（「1. 見積依頼」）、JSON の配列（[\"見積依頼\", \"回答\"]）で"
            "書いてください。 / No flowchart steps found: write 'A -> B -> C' (or →), a numbered "
            "or bulleted list of steps, or a JSON array of step names.")
    raise NoData(
        "ネットワーク図のつながりが見つかりません。1行に1つずつ「A - B」「A -> B」「A と B」、"
        "または JSON（{\"edges\": [[\"A\", \"B\"]]} や [{\"source\": \"A\", \"target\": \"B\"}]）"
        "で書いてください。 / No network edges found: write one link per line as 'A - B', "
        "'A -> B' or 'A と B', or JSON such as {\"edges\": [[\"A\", \"B\"]]}.")


def _graph_from_json(text: str, flowchart: bool) -> GraphData | None:
    for value in _json_values(text):
        graph = _graph_from_value(value, flowchart)
        if graph and graph.nodes:
            return graph
    return None


def _graph_from_value(value: Any, flowchart: bool) -> GraphData | None:
    """A list of steps, of pairs or of {source, target}; or an object holding one."""
    graph = GraphData(source="json")
    if isinstance(value, dict):
        for key in ("edges", "links", "steps", "nodes", "flow"):
            if isinstance(value.get(key), list):
                inner = _graph_from_value(value[key], flowchart or bool(value.get("directed")))
                if inner and inner.nodes:
                    return inner
        return None
    if not isinstance(value, list) or not value:
        return None
    if all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in value):
        _chain(graph, [_clean(str(v)) for v in value if _clean(str(v))])
        return graph
    for item in value:
        pair: list[Any] | None = None
        directed = flowchart
        if isinstance(item, list | tuple) and len(item) >= 2:
            pair = list(item[:2])
        elif isinstance(item, dict):
            a = next((item[k] for k in ("source", "from", "a", "元") if k in item), None)
            b = next((item[k] for k in ("target", "to", "b", "先") if k in item), None)
            pair = [a, b] if a is not None and b is not None else None
            directed = directed or "target" in item or "to" in item
        if pair is None:
            return None
        graph.add_edge(_clean(str(pair[0])), _clean(str(pair[1])), directed=directed)
    return graph


def _graph_from_links(text: str, flowchart: bool) -> GraphData | None:
    graph = GraphData(source="arrows")
    for item in _items(text, commas=False):
        item = item.strip()
        directed = bool(_ARROW.search(item))
        if directed:
            steps = [_clean(part) for part in _ARROW.split(item)]
        elif _UNDIRECTED.search(item):
            steps = [_clean(part) for part in _UNDIRECTED.split(item)]
        else:
            continue
        steps = [s for s in steps if s]
        if len(steps) >= 2:
            _chain(graph, steps, directed=directed or flowchart)
    return graph if graph.edges else None


def _graph_from_table(text: str, flowchart: bool) -> GraphData | None:
    """A network reads "from | to" rows; a flowchart reads its steps down the first column."""
    table = markdown_table(text)
    if table is None or not table[1]:
        return None
    graph = GraphData(source="table")
    rows = table[1]
    if not flowchart and all(len(row) >= 2 and row[1] for row in rows):
        for row in rows:
            graph.add_edge(_clean(row[0]), _clean(row[1]))
    else:
        _chain(graph, [_clean(row[0]) for row in rows if _clean(row[0])])
    return graph


def _steps_from_list(text: str, flowchart: bool = True) -> GraphData | None:
    steps = [_clean(line) for line in text.split("\n") if _BULLET.match(line)]
    steps = [s for s in steps if s]
    if not steps:
        return None
    graph = GraphData(source="list")
    _chain(graph, steps)
    return graph


def _chain(graph: GraphData, steps: list[str], *, directed: bool = True) -> None:
    if len(steps) == 1 and steps[0] not in graph.nodes:
        graph.nodes.append(steps[0])
    for a, b in zip(steps, steps[1:], strict=False):
        graph.add_edge(a, b, directed=directed)


def _clean(text: str) -> str:
    """A node name: no bullet, number, surrounding quotes or trailing colon."""
    text = _BULLET.sub("", text.strip(), count=1)
    return text.strip().strip("\"'「」[]()").strip(" :").strip()[:80]


# ---- shared -------------------------------------------------------------------------------

def markdown_table(text: str) -> tuple[list[str], list[list[str]]] | None:
    """The first Markdown table: (header cells, body rows); None when there is none."""
    lines = [line.strip() for line in text.split("\n")]
    for i in range(len(lines) - 1):
        if lines[i].startswith("|") and _TABLE_RULE.match(lines[i + 1]):
            header = _cells(lines[i])
            rows = []
            for line in lines[i + 2:]:
                if not line.startswith("|"):
                    break
                rows.append(_cells(line))
            return header, [r for r in rows if r and r[0]]
    return None


def _cells(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def _json_values(text: str) -> list[Any]:
    """Every JSON object or array embedded in the text, outermost first."""
    decoder = json.JSONDecoder()
    found: list[Any] = []
    position = 0
    while len(found) < 5:
        starts = [i for i in (text.find("{", position), text.find("[", position)) if i >= 0]
        if not starts:
            break
        start = min(starts)
        try:
            value, end = decoder.raw_decode(text, start)
        except ValueError:
            position = start + 1
            continue
        found.append(value)
        position = end
    return found


def _items(text: str, *, commas: bool = True) -> list[str]:
    parts = _ITEM_SPLIT.split(text) if commas else re.split(r"\n|;", text)
    return [p.strip() for p in parts if p.strip()]
