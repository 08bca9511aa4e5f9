"""Read a Workbench request (English or Japanese) into tool calls, without a model.

The OfflineBrain's understanding: patterns for the requests the Workbench demonstrates.
Names the map does not know are still passed on, so the tool answers with the valid
choices instead of the brain guessing.
"""

from __future__ import annotations

import functools
import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

from shokunin.maps import NAMED_COLORS, MapPackage

_JA = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
_DIRECTIONS = {"left": "left", "right": "right", "up": "up", "down": "down", "左": "left",
               "右": "right", "上": "up", "下": "down"}
_JA_COLORS = {"赤": "red", "青": "blue", "緑": "green", "黄": "yellow", "オレンジ": "orange",
              "紫": "purple", "ピンク": "pink", "灰": "gray", "黒": "black", "白": "white"}
_ARITH = re.compile(r"[-+*/%^().\d\s]*\d[-+*/%^().\d\s]*[-+*/%^][-+*/%^().\d\s]*\d[)\s]*")
_FLOOR = re.compile(r"(?<![A-Za-z0-9])(\d+)\s*(?:F(?![A-Za-z0-9])|階)|floor\s+(\d+)", re.I)
_BITMAP_WORDS = {"person": "person", "people": "person", "人": "person", "exit": "exit",
                 "非常口": "exit", "出口": "exit"}


@dataclass
class Request:
    """A request read once: its language and the map names it mentions."""

    text: str
    ja: bool
    rooms: list[str] = field(default_factory=list)
    floor: str | None = None
    colors: list[str] = field(default_factory=list)

    def has(self, *patterns: str) -> bool:
        return any(re.search(p, self.text, re.IGNORECASE) for p in patterns)


@functools.cache  # room names and a few words: re's own cache costs more per lookup
def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", re.IGNORECASE)


def read(text: str, pkg: MapPackage) -> Request:
    req = Request(text=text.strip(), ja=bool(_JA.search(text)))
    found = [(m.start(), name) for name in pkg.room_names if (m := _word(name).search(text))]
    req.rooms = [name for _pos, name in sorted(found)]
    floor = _FLOOR.search(text)
    if floor:
        req.floor = f"{floor.group(1) or floor.group(2)}F"
    for m in re.finditer(r"#[0-9a-fA-F]{6}\b|#[0-9a-fA-F]{3}\b|[A-Za-z]+|[^\x00-\x7f]+", text):
        token = m.group(0)
        if token.startswith("#") or token.lower() in NAMED_COLORS:
            req.colors.append(token.lower() if not token.startswith("#") else token)
    for ja_name, color in _JA_COLORS.items():
        if ja_name in text:
            req.colors.append(color)
    unknown = re.search(r"\bin\s+([A-Za-z#][\w#]*)\s*[.!]?\s*$", text)
    if unknown and not req.colors and pkg.room(unknown.group(1)) is None:
        req.colors.append(unknown.group(1))  # let show_map name the valid colours
    return req


def _direction(req: Request) -> str | None:
    for word, direction in _DIRECTIONS.items():
        if (word in req.text) if len(word) == 1 else _word(word).search(req.text):
            return direction
    return None


def _guess_room(req: Request) -> str | None:
    """A name the user meant as a room although the map lacks it (for a clear tool error)."""
    m = re.search(r"([A-Za-z][\w-]*)\s*(?:に|へ|の)", req.text) or re.search(
        r"\b(?:in|on|at|to)\s+(?:the\s+)?([A-Za-z][\w-]*)", req.text, re.IGNORECASE)
    return m.group(1) if m else None


def _expression(req: Request) -> str | None:
    matches = [m.group(0).strip() for m in _ARITH.finditer(req.text)]
    return max(matches, key=len) if matches else None


def random_points(text: str, count: int) -> list[dict[str, float]]:
    """Deterministic "random" points around Tokyo, seeded by the request text."""
    digest = hashlib.sha256(text.encode()).digest()
    return [{"lat": round(35.6 + digest[i % 32] / 2550, 4),
             "lon": round(139.6 + digest[(i * 7 + 3) % 32] / 2550, 4)} for i in range(count)]


Call = tuple[str, dict[str, Any]]


def plan(req: Request, pkg: MapPackage, tools: set[str]) -> list[Call] | None:
    """The tool calls that fulfil ``req``, or None if it is not a request the brain knows."""
    t = req.text
    if re.match(r"\s*(select|with)\b", t, re.IGNORECASE):
        return [("sql_engine", {"query": t})]
    if req.has(r"\bclear\b.*\barrows?\b", r"\bremove\b.*\barrows?\b", r"矢印.*(クリア|消)"):
        return [("clear_arrows", {})]
    if req.has(r"\b(clear|reset)\b.*\bmap\b", r"(マップ|地図).*(クリア|消|リセット)"):
        return [("clear_map", {})]
    if req.has(r"\b(calculate|compute|what is)\b", r"計算") and (expr := _expression(req)):
        return [("calculator", {"expression": expr})] if "calculator" in tools else None
    if req.has(r"\b(plot|chart|graph)\b", r"グラフ|プロット|図に"):
        return [("run_python", {"code": "ROOM_AREA_PLOT"})]
    if points := re.search(r"(\d+)\s+random\s+(?:coordinates|points)", t, re.IGNORECASE) or \
            re.search(r"(\d+)\s*(?:個|点|つ)?の?ランダムな?(?:座標|地点)", t):
        count = min(int(points.group(1)), 50)
        return [("show_points", {"points": random_points(t, count),
                                 "description": f"{count} random coordinates"})]
    if req.has(r"\barrows?\b", r"矢印"):
        rooms = req.rooms or [r for r in [_guess_room(req)] if r]
        if not rooms:
            return None
        return [("draw_arrow", {"room_name": r, "direction": _direction(req) or ""})
                for r in rooms]
    if req.has(r"\bhow many rooms\b", r"\blist\b.*\brooms\b", r"\brooms? list\b",
               r"部屋.*(一覧|いくつ|数)", r"何部屋"):
        if req.has(r"how many", r"いくつ|数|何部屋"):
            where = f" WHERE floor_id = '{req.floor}'" if req.floor else ""
            return [("sql_engine", {"query": f"SELECT COUNT(*) AS rooms FROM rooms{where}"})]
        return [("sql_engine", {"query": "SELECT name, floor_id, kind, area_m2, capacity "
                                         "FROM rooms ORDER BY floor_id, name"})]
    highlight = req.has(r"\b(highlight|mark)\b", r"ハイライト|強調|目立")
    show = req.has(r"\b(show|display|open|view)\b", r"表示|見せ|開いて")
    if highlight and not req.colors and not req.floor:
        return [("highlight_room", {"room_names": ",".join(req.rooms)})] if req.rooms else None
    if highlight or (show and (req.floor or req.rooms or req.has(r"\bmap\b", r"マップ|地図"))):
        return [("show_map", _show_args(req, pkg, highlight))]
    return None


def _show_args(req: Request, pkg: MapPackage, highlight: bool) -> dict[str, Any]:
    floor = req.floor
    if floor is None and req.rooms:
        found = pkg.room(req.rooms[0])
        floor = found[0].floorId if found else None
    args: dict[str, Any] = {"floor_id": floor or pkg.floor_ids[0]}
    bitmap = next((b for w, b in _BITMAP_WORDS.items()
                   if (w in req.text if not w.isascii() else _word(w).search(req.text))), None)
    if bitmap and req.rooms:
        args["bitmap_overlays"] = ";".join(f"{bitmap}:{r}" for r in req.rooms)
    elif req.rooms or highlight:
        args["highlight_rooms"] = ",".join(req.rooms)
        if req.colors:
            args["room_colors"] = ",".join(req.colors)
    return args
