"""The map tools: each checks its arguments against the map package and emits a map event.

They emit Events through the calling run's context (the face translates them); their
return value is only the confirmation the model reads. Built once per agent.
"""

from __future__ import annotations

from typing import Any

from langchain_core.tools import BaseTool, StructuredTool, ToolException
from pydantic import BaseModel

from shokunin import events as ev
from shokunin.agents.workbench.tools.run_of_call import run_deps
from shokunin.agents.workbench.tools.schemas import (
    DrawArrowArgs,
    HighlightRoomArgs,
    NoArgs,
    ShowMapArgs,
    ShowPointsArgs,
)
from shokunin.maps import (
    MapCommandError,
    MapPackage,
    map_command,
    resolve_direction,
    resolve_room,
)


async def _emit(event: ev.BaseEvent) -> None:
    await run_deps().ctx.emit(event)


def map_tools(pkg: MapPackage) -> list[BaseTool]:
    rooms = ", ".join(pkg.room_names)

    async def show_map(floor_id: str, highlight_rooms: str = "", room_colors: str = "",
                       show_names: bool = True, bitmap_overlays: str = "",
                       text_overlays: str = "") -> str:
        try:
            content = map_command(pkg, floor_id, highlight_rooms, room_colors, show_names,
                                  bitmap_overlays, text_overlays)
        except MapCommandError as exc:
            raise ToolException(str(exc)) from None
        await _emit(ev.MapShow(content=content))
        shown = [r["name"] for r in content["rectangles"]]
        return (f"Showing floor {content['floorId']}"
                + (f" with {', '.join(shown)} highlighted" if shown else "")
                + (f" and {len(content['overlays'])} overlays" if content["overlays"] else ""))

    async def clear_map() -> str:
        await _emit(ev.ClearMap())
        return "Cleared all highlights and overlays from the map."

    async def draw_arrow(room_name: str, direction: str) -> str:
        try:
            room = resolve_room(pkg, room_name)
            way = resolve_direction(direction)
        except MapCommandError as exc:
            raise ToolException(str(exc)) from None
        await _emit(ev.Arrow(room=room, direction=way))  # type: ignore[arg-type]
        return f"Drew {'an' if way == 'up' else 'a'} {way} arrow in {room}."

    async def clear_arrows() -> str:
        await _emit(ev.ClearArrows())
        return "Cleared all arrows from the map."

    async def highlight_room(room_names: str) -> str:
        try:
            names = [resolve_room(pkg, n) for n in room_names.split(",") if n.strip()]
        except MapCommandError as exc:
            raise ToolException(str(exc)) from None
        if not names:
            raise ToolException(f"name at least one room; valid rooms: {rooms}")
        await _emit(ev.HighlightRoom(rooms=names))
        return f"Highlighted {', '.join(names)}."

    async def show_points(points: list[dict[str, float]], description: str = "") -> str:
        try:
            clean = [{"lat": float(p["lat"]), "lon": float(p["lon"])} for p in points]
        except (KeyError, TypeError, ValueError):
            raise ToolException("each point needs numeric 'lat' and 'lon'") from None
        await _emit(ev.MapShow(content={"points": clean, "description": description}))
        return f"Plotted {len(clean)} points."

    # Room, floor and bitmap names are in the system prompt, not here: a large building
    # would push a description past the 1,024 characters providers accept.
    specs: list[tuple[Any, type[BaseModel], str]] = [
        (show_map, ShowMapArgs,
         "Display a floor plan, optionally highlighting rooms and adding bitmap or text "
         "overlays. Floors, rooms and bitmaps are listed in the system prompt.\n"
         "Examples: show_map(floor_id=\"1F\", highlight_rooms=\"Room1\", "
         "room_colors=\"#FF0000\"); show_map(floor_id=\"1F\", highlight_rooms=\"Room1\", "
         "room_colors=\"#FFD700\", bitmap_overlays=\"person:Room1;arrow_up:50.5,30.2\", "
         "text_overlays=\"Exit:Room1;Warning:45.0,60.0\")"),
        (clear_map, NoArgs, "Clears all highlights and overlays from the floor plan map, returning "
                    "to the default view."),
        (draw_arrow, DrawArrowArgs,
         "Draws an arrow in a room of the floor plan (rooms are listed in the system prompt)."),
        (clear_arrows, NoArgs, "Clears all arrows from the floor plan map."),
        (highlight_room, HighlightRoomArgs,
         "Highlights rooms on the floor plan in blue (legacy view); rooms are listed in the "
         "system prompt."),
        (show_points, ShowPointsArgs,
         "Plots coordinates on the map (legacy view). points: a list of "
         "{'lat': float, 'lon': float}; description: what they are."),
    ]
    return [StructuredTool.from_function(coroutine=fn, name=fn.__name__, description=doc,
                                         args_schema=schema) for fn, schema, doc in specs]
