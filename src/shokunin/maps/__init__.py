"""Map packages: a folder with ``map.json`` (floors, rooms, bitmaps) and its images."""

from shokunin.maps.colors import NAMED_COLORS, parse_color
from shokunin.maps.commands import (
    DIRECTIONS,
    map_command,
    resolve_bitmap,
    resolve_direction,
    resolve_floor,
    resolve_room,
)
from shokunin.maps.definition import (
    Bitmap,
    CoordinateSystem,
    Floor,
    MapDefinition,
    Point,
    Rectangle,
)
from shokunin.maps.errors import MapCommandError, MapError
from shokunin.maps.mentions import mentioned_rooms, spans
from shokunin.maps.package import DEFINITION_FILE, MapPackage, load_map

__all__ = [
    "DEFINITION_FILE", "DIRECTIONS", "NAMED_COLORS", "Bitmap", "CoordinateSystem", "Floor",
    "MapCommandError", "MapDefinition", "MapError", "MapPackage", "Point", "Rectangle",
    "load_map", "map_command", "mentioned_rooms", "parse_color", "resolve_bitmap",
    "resolve_direction", "resolve_floor", "resolve_room", "spans",
]
