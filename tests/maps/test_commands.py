"""Display commands: valid ones in the seed's form, invalid ones naming the valid choices."""

from __future__ import annotations

import pytest

from shokunin.config import Settings
from shokunin.maps import (
    MapCommandError,
    MapPackage,
    map_command,
    parse_color,
    resolve_direction,
    resolve_room,
)


@pytest.fixture(scope="module")
def pkg() -> MapPackage:
    return MapPackage.load(Settings().map_dir)


def test_show_map_in_the_seed_form(pkg: MapPackage) -> None:
    content = map_command(pkg, "1f", "Room1,kitchen", "#f00", True,
                          "arrow_up:Room1;person:50.5,30.2", "Exit:Room1;Warning:45.0,20.0")
    assert content["floorId"] == "1F"
    assert content["timestamp"].endswith("Z")
    assert content["rectangles"] == [
        {"name": "Room1", "color": "#FF0000", "strokeOpacity": 1.0, "fillOpacity": 0.3,
         "showName": True},
        {"name": "Kitchen", "color": "#FF0000", "strokeOpacity": 1.0, "fillOpacity": 0.3,
         "showName": True}]
    assert content["overlays"] == [
        {"type": "bitmap", "bitmapId": "arrow_up",
         "position": {"type": "rectangle", "name": "Room1"}},
        {"type": "bitmap", "bitmapId": "person",
         "position": {"type": "coordinate", "x": 50.5, "y": 30.2}},
        {"type": "text", "text": "Exit", "fontSize": 14, "color": "#000000",
         "position": {"type": "rectangle", "name": "Room1"}},
        {"type": "text", "text": "Warning", "fontSize": 14, "color": "#000000",
         "position": {"type": "coordinate", "x": 45.0, "y": 20.0}}]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"floor_id": "3F"}, "unknown floor '3F'; valid floors: 1F, 2F"),
    ({"floor_id": "1F", "highlight_rooms": "Garage"}, "unknown room 'Garage'; valid rooms: Lobby"),
    ({"floor_id": "2F", "highlight_rooms": "Kitchen"},
     "room 'Kitchen' is on floor 1F, not 2F; rooms on 2F: MeetingRoom"),
    ({"floor_id": "1F", "highlight_rooms": "Room1", "room_colors": "magenta"},
     "unknown colour 'magenta'; use #RRGGBB, #RGB or one of: red"),
    ({"floor_id": "1F", "highlight_rooms": "Room1", "room_colors": "red,blue"},
     "2 colours given for 1 rooms"),
    ({"floor_id": "1F", "bitmap_overlays": "dragon:Room1"},
     "unknown bitmap 'dragon'; valid bitmaps: arrow_up"),
    ({"floor_id": "1F", "bitmap_overlays": "person"}, "bad bitmap_id entry 'person'"),
    ({"floor_id": "1F", "text_overlays": "Hi:500,5"}, "position '500,5' in 'Hi:500,5' is outside"),
])
def test_bad_commands_name_the_valid_choices(pkg: MapPackage, kwargs: dict, message: str) -> None:
    with pytest.raises(MapCommandError) as info:
        map_command(pkg, **kwargs)
    assert message in str(info.value)


def test_rooms_directions_and_colours(pkg: MapPackage) -> None:
    assert resolve_room(pkg, "kitchen") == "Kitchen"
    assert resolve_direction(" LEFT ") == "left"
    with pytest.raises(MapCommandError, match="valid directions: up, down, left, right"):
        resolve_direction("diagonal")
    assert parse_color("Blue") == "#0066FF"
    assert parse_color("#abc") == "#AABBCC"
