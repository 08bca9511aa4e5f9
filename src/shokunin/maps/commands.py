"""Display commands checked against a map package, built in the seed's wire form.

The string formats of ``show_map`` (``"arrow_up:Room1;person:50.5,30.2"``) are the seed's
tool signature; they are parsed here once, so every caller gets the same errors.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from shokunin.maps.colors import parse_color
from shokunin.maps.definition import Point
from shokunin.maps.errors import MapCommandError
from shokunin.maps.package import MapPackage

DIRECTIONS = ("up", "down", "left", "right")
DEFAULT_HIGHLIGHT = "#FF0000"


def _split(value: str, sep: str) -> list[str]:
    return [part.strip() for part in (value or "").split(sep) if part.strip()]


def resolve_room(pkg: MapPackage, name: str) -> str:
    """The room's canonical name; MapCommandError names the valid rooms."""
    found = pkg.room(name)
    if found is None:
        raise MapCommandError(
            f"unknown room {name!r}; valid rooms: {', '.join(pkg.room_names)}")
    return found[1].name


def resolve_direction(direction: str) -> str:
    value = (direction or "").strip().lower()
    if value not in DIRECTIONS:
        raise MapCommandError(
            f"unknown direction {direction!r}; valid directions: {', '.join(DIRECTIONS)}")
    return value


def resolve_floor(pkg: MapPackage, floor_id: str) -> str:
    floor = pkg.floor(floor_id)
    if floor is None:
        raise MapCommandError(
            f"unknown floor {floor_id!r}; valid floors: {', '.join(pkg.floor_ids)}")
    return floor.floorId


def resolve_bitmap(pkg: MapPackage, bitmap_id: str) -> str:
    bitmap = pkg.bitmap(bitmap_id)
    if bitmap is None:
        raise MapCommandError(
            f"unknown bitmap {bitmap_id!r}; valid bitmaps: {', '.join(pkg.bitmap_ids)}")
    return bitmap.bitmapId


def _position(pkg: MapPackage, floor_id: str, spot: str, entry: str) -> dict[str, Any]:
    """``Room1`` -> a rectangle position on this floor; ``50.5,30.2`` -> a coordinate."""
    parts = spot.split(",")
    if len(parts) == 2:
        try:
            x, y = float(parts[0]), float(parts[1])
        except ValueError:
            pass
        else:
            floor = pkg.floor(floor_id)
            assert floor is not None
            cs = floor.coordinateSystem
            if not cs.contains(Point(x=x, y=y)):
                raise MapCommandError(
                    f"position {spot!r} in {entry!r} is outside floor {floor_id}, whose "
                    f"coordinates run from ({cs.topLeft.x:g},{cs.topLeft.y:g}) to "
                    f"({cs.bottomRight.x:g},{cs.bottomRight.y:g})")
            return {"type": "coordinate", "x": x, "y": y}
    room = resolve_room(pkg, spot)
    _require_on_floor(pkg, room, floor_id)
    return {"type": "rectangle", "name": room}


def _require_on_floor(pkg: MapPackage, room: str, floor_id: str) -> None:
    found = pkg.room(room)
    assert found is not None
    if found[0].floorId != floor_id:
        here = [r.name for r in pkg.floor(floor_id).rectangles]  # type: ignore[union-attr]
        raise MapCommandError(
            f"room {room!r} is on floor {found[0].floorId}, not {floor_id}; rooms on "
            f"{floor_id}: {', '.join(here)}")


def _entries(value: str, entry_name: str) -> list[tuple[str, str, str]]:
    out = []
    for entry in _split(value, ";"):
        head, sep, spot = entry.partition(":")
        if not sep or not head.strip() or not spot.strip():
            raise MapCommandError(
                f"bad {entry_name} entry {entry!r}; write '{entry_name}:room_name' or "
                f"'{entry_name}:x,y', several separated by ';'")
        out.append((entry, head.strip(), spot.strip()))
    return out


def map_command(
    pkg: MapPackage, floor_id: str, highlight_rooms: str = "", room_colors: str = "",
    show_names: bool = True, bitmap_overlays: str = "", text_overlays: str = "",
) -> dict[str, Any]:
    """The ``map`` content (new format) for the seed's ``show_map`` arguments."""
    floor = resolve_floor(pkg, floor_id)
    rooms = [resolve_room(pkg, name) for name in _split(highlight_rooms, ",")]
    for room in rooms:
        _require_on_floor(pkg, room, floor)
    colors = [parse_color(c) for c in _split(room_colors, ",")]
    if len(colors) > max(len(rooms), 1):
        raise MapCommandError(f"{len(colors)} colours given for {len(rooms)} rooms; give one "
                              "colour per room, or one for all")
    rectangles = []
    for i, room in enumerate(rooms):
        color = colors[i] if i < len(colors) else (colors[-1] if colors else DEFAULT_HIGHLIGHT)
        rectangles.append({"name": room, "color": color, "strokeOpacity": 1.0,
                           "fillOpacity": 0.3, "showName": bool(show_names)})
    overlays: list[dict[str, Any]] = []
    for entry, bitmap_id, spot in _entries(bitmap_overlays, "bitmap_id"):
        overlays.append({"type": "bitmap", "bitmapId": resolve_bitmap(pkg, bitmap_id),
                         "position": _position(pkg, floor, spot, entry)})
    for entry, text, spot in _entries(text_overlays, "text"):
        overlays.append({"type": "text", "text": text, "fontSize": 14, "color": "#000000",
                         "position": _position(pkg, floor, spot, entry)})
    return {"floorId": floor, "timestamp": datetime.now(UTC).isoformat(timespec="seconds")
            .replace("+00:00", "Z"), "rectangles": rectangles, "overlays": overlays}
