"""A map package: a folder holding ``map.json`` and the images it names.

Loading checks everything a viewer would trip over later (missing fields, unknown files,
rooms outside their floor, duplicate names) and reports each fault with its field path,
e.g. ``floors[1].rectangles[3].bottomRight.x: field required``.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from PIL import Image as PILImage
from pydantic import ValidationError

from shokunin.maps.definition import Bitmap, Floor, MapDefinition, Rectangle
from shokunin.maps.errors import MapError

log = logging.getLogger(__name__)

DEFINITION_FILE = "map.json"


def _path(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "(root)"


def _reason(message: str) -> str:
    message = message.removeprefix("Value error, ")
    return message[:1].lower() + message[1:]


@dataclass(frozen=True)
class MapPackage:
    """A validated map package, with the lookups the map tools need."""

    folder: Path
    definition: MapDefinition
    _rooms: dict[str, tuple[Floor, Rectangle]] = field(default_factory=dict, repr=False)
    _wire: str = field(default="{}", repr=False)  # as JSON: each caller gets its own copy

    @classmethod
    def load(cls, folder: Path) -> MapPackage:
        folder = Path(folder)
        source = str(folder / DEFINITION_FILE)
        try:
            raw = json.loads((folder / DEFINITION_FILE).read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise MapError(source, [f"{DEFINITION_FILE}: file not found"]) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise MapError(source, [f"{DEFINITION_FILE}: not readable JSON ({exc})"]) from None
        try:
            definition = MapDefinition.model_validate(raw)
        except ValidationError as exc:
            problems = [f"{_path(e['loc'])}: {_reason(e['msg'])}" for e in exc.errors()]
            raise MapError(source, problems) from None
        problems = _check(folder, definition)
        if problems:
            raise MapError(source, problems)
        rooms = {r.name: (f, r) for f in definition.floors for r in f.rectangles}
        sizes = {f.floorImage: _image_size(folder / f.floorImage) for f in definition.floors}
        return cls(folder=folder, definition=definition, _rooms=rooms,
                   _wire=_wire(definition, sizes))

    @classmethod
    def empty(cls) -> MapPackage:
        """A building with no floors: what requests are read against when the server's
        map package failed to load, so those that need no map still work."""
        return cls(folder=Path(), definition=MapDefinition.model_construct(floors=[], bitmaps=[]))

    def as_wire(self) -> dict[str, Any]:
        """The ``map_definition`` content: the definition as the seed spells it, each
        coordinate system with its corners' pixel positions on the floor image (``px``,
        ``py``: the image's corners unless the package says otherwise) and its pixels per
        unit (``scaleX``, ``scaleY``), which the seed's own client places rooms with."""
        return json.loads(self._wire)

    @property
    def floor_ids(self) -> list[str]:
        return [f.floorId for f in self.definition.floors]

    @property
    def room_names(self) -> list[str]:
        return list(self._rooms)

    @property
    def bitmap_ids(self) -> list[str]:
        return [b.bitmapId for b in self.definition.bitmaps]

    def floor(self, floor_id: str) -> Floor | None:
        wanted = floor_id.strip().lower()
        return next((f for f in self.definition.floors if f.floorId.lower() == wanted), None)

    def room(self, name: str) -> tuple[Floor, Rectangle] | None:
        """The room named ``name`` or one of its aliases (case-insensitive), and its floor."""
        found = self._rooms.get(name.strip())
        if found:
            return found
        wanted = name.strip().lower()
        return next((v for k, v in self._rooms.items() if k.lower() == wanted), None) or next(
            (v for v in self._rooms.values() if wanted in (a.lower() for a in v[1].aliases)),
            None)

    @cached_property
    def room_surfaces(self) -> list[tuple[str, str]]:
        """Every room name and alias in lower case with its room, longest first: how
        readers of text find rooms (the longest match wins)."""
        surfaces = {name.lower(): name for name in self.room_names}
        surfaces |= {alias.lower(): name for alias, name in self.room_aliases.items()}
        return sorted(surfaces.items(), key=lambda kv: -len(kv[0]))

    @property
    def room_aliases(self) -> dict[str, str]:
        """Every alias of every room, mapped to the room's name."""
        return {a: r.name for _f, r in self._rooms.values() for a in r.aliases}

    def bitmap(self, bitmap_id: str) -> Bitmap | None:
        wanted = bitmap_id.strip().lower()
        return next((b for b in self.definition.bitmaps if b.bitmapId.lower() == wanted), None)

    def asset(self, filename: str) -> Path | None:
        """The file ``filename`` if the definition names it: the only files served."""
        names = {f.floorImage for f in self.definition.floors} | {
            b.bitmapFile for b in self.definition.bitmaps}
        return self.folder / filename if filename in names else None


def _check(folder: Path, d: MapDefinition) -> list[str]:
    problems: list[str] = []
    seen_floors: set[str] = set()
    seen_rooms: dict[str, str] = {}
    seen_aliases: dict[str, str] = {}
    for i, floor in enumerate(d.floors):
        where = f"floors[{i}]"
        if floor.floorId in seen_floors:
            problems.append(f"{where}.floorId: duplicate floor id {floor.floorId!r}")
        seen_floors.add(floor.floorId)
        image_problems = _check_image(folder, floor.floorImage, f"{where}.floorImage")
        problems += image_problems
        cs = floor.coordinateSystem
        if not image_problems and cs.topLeft.px is not None:
            width, height = _image_size(folder / floor.floorImage)
            for corner in ("topLeft", "bottomRight"):
                p = getattr(cs, corner)
                if not (0 <= p.px <= width and 0 <= p.py <= height):  # type: ignore[operator]
                    problems.append(f"{where}.coordinateSystem.{corner}: px/py lie outside "
                                    f"the {width}x{height} floor image")
        for j, rect in enumerate(floor.rectangles):
            rwhere = f"{where}.rectangles[{j}]"
            if rect.name in seen_rooms:
                problems.append(f"{rwhere}.name: duplicate room name {rect.name!r} (also on "
                                f"{seen_rooms[rect.name]}; names must be unique in the building)")
            seen_rooms.setdefault(rect.name, floor.floorId)
            for alias in rect.aliases:
                if not alias.strip():
                    problems.append(f"{rwhere}.aliases: an alias must not be blank")
                elif alias.lower() in seen_aliases and seen_aliases[alias.lower()] != rect.name:
                    problems.append(f"{rwhere}.aliases: {alias!r} already names "
                                    f"{seen_aliases[alias.lower()]!r}")
                seen_aliases.setdefault(alias.lower(), rect.name)
            for corner in ("topLeft", "bottomRight"):
                if not cs.contains(getattr(rect, corner)):
                    problems.append(f"{rwhere}.{corner}: outside the floor's coordinateSystem")
            if not cs.runs_forward(rect.topLeft, rect.bottomRight):
                problems.append(f"{rwhere}.bottomRight: must lie right of and below topLeft "
                                "in the floor's coordinateSystem")
    seen_bitmaps: set[str] = set()
    for i, bitmap in enumerate(d.bitmaps):
        where = f"bitmaps[{i}]"
        if bitmap.bitmapId in seen_bitmaps:
            problems.append(f"{where}.bitmapId: duplicate bitmap id {bitmap.bitmapId!r}")
        seen_bitmaps.add(bitmap.bitmapId)
        problems += _check_image(folder, bitmap.bitmapFile, f"{where}.bitmapFile")
    return problems


def _check_image(folder: Path, name: str, where: str) -> list[str]:
    path = folder / name
    if not path.is_file():
        return [f"{where}: file {name!r} not found in {folder}"]
    try:
        with PILImage.open(path) as img:
            img.verify()
    except Exception as exc:  # noqa: BLE001 - Pillow raises many kinds for a bad image
        return [f"{where}: {name!r} is not a readable image ({exc})"]
    return []


def _image_size(path: Path) -> tuple[int, int]:
    with PILImage.open(path) as img:
        return img.size


def _wire(definition: MapDefinition, sizes: dict[str, tuple[int, int]]) -> str:
    data = definition.model_dump(mode="json")
    for floor in data["floors"]:
        cs = floor["coordinateSystem"]
        tl, br = cs["topLeft"], cs["bottomRight"]
        if tl["px"] is None:  # the plan fills its image
            width, height = sizes[floor["floorImage"]]
            tl["px"], tl["py"], br["px"], br["py"] = 0, 0, width, height
        cs["scaleX"] = (br["px"] - tl["px"]) / (br["x"] - tl["x"])
        cs["scaleY"] = (br["py"] - tl["py"]) / (br["y"] - tl["y"])
        for rect in floor["rectangles"]:  # a room's corners are virtual coordinates only
            for corner in (rect["topLeft"], rect["bottomRight"]):
                if corner["px"] is None:
                    del corner["px"], corner["py"]
    return json.dumps(data, ensure_ascii=False)


def load_map(folder: Path) -> MapPackage | MapError:
    """The map package in ``folder``, or why it cannot be loaded: a broken map does not stop
    the server; the Workbench and its face report the error."""
    try:
        return MapPackage.load(folder)
    except MapError as exc:
        log.error("%s", exc)
        return exc
