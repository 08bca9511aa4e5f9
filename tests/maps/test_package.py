"""Map packages: the shipped sample, and every fault loading reports by its field path."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from shokunin.config import Settings
from shokunin.data import make_samples
from shokunin.maps import MapError, MapPackage

SAMPLE = Settings().map_dir


def test_shipped_sample_loads_and_matches_the_generator() -> None:
    pkg = MapPackage.load(SAMPLE)
    assert pkg.definition.model_dump(mode="json", exclude_none=True) == make_samples.definition()
    assert pkg.floor_ids == ["1F", "2F"]
    for seed_room in ("Room1", "Room2", "Bathroom", "Kitchen", "Toilet", "Level1", "Level2"):
        assert seed_room in pkg.room_names
    assert set(pkg.bitmap_ids) == {"arrow_up", "arrow_down", "arrow_left", "arrow_right",
                                   "person", "exit"}


def test_bitmaps_have_transparent_backgrounds() -> None:
    from PIL import Image

    for bitmap in MapPackage.load(SAMPLE).definition.bitmaps:
        with Image.open(SAMPLE / bitmap.bitmapFile) as img:
            assert img.mode == "RGBA"
            assert img.getpixel((0, 0))[3] == 0


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    target = tmp_path / "map"
    shutil.copytree(SAMPLE, target)
    return target


def _edit(folder: Path, change: Any) -> None:
    data = json.loads((folder / "map.json").read_text())
    change(data)
    (folder / "map.json").write_text(json.dumps(data))


def _problems(folder: Path) -> list[str]:
    with pytest.raises(MapError) as info:
        MapPackage.load(folder)
    assert str(folder / "map.json") in str(info.value)
    return info.value.problems


def test_missing_field_is_named_by_its_path(folder: Path) -> None:
    _edit(folder, lambda d: d["floors"][1]["rectangles"][3]["bottomRight"].pop("x"))
    assert _problems(folder) == ["floors[1].rectangles[3].bottomRight.x: field required"]


@pytest.mark.parametrize(("change", "expected"), [
    (lambda d: d["floors"][0].pop("floorId"), "floors[0].floorId: field required"),
    (lambda d: d["floors"][0].update(floorImage="../secret.png"),
     "floors[0].floorImage: must be a plain file name"),
    (lambda d: d["floors"][0].update(floorImage="nope.png"),
     "floors[0].floorImage: file 'nope.png' not found"),
    (lambda d: d["floors"][1].update(floorId="1F"), "floors[1].floorId: duplicate floor id"),
    (lambda d: d["floors"][1]["rectangles"][0].update(name="Kitchen"),
     "floors[1].rectangles[0].name: duplicate room name 'Kitchen'"),
    (lambda d: d["floors"][0]["rectangles"][0]["bottomRight"].update(x=500),
     "floors[0].rectangles[0].bottomRight: outside the floor's coordinateSystem"),
    (lambda d: d["floors"][0]["rectangles"][0].update(
        topLeft={"x": 20, "y": 20}, bottomRight={"x": 10, "y": 10}),
     "floors[0].rectangles[0].bottomRight: must lie right of and below topLeft"),
    (lambda d: d["floors"][0]["coordinateSystem"]["bottomRight"].update(y=0),
     "floors[0].coordinateSystem: topLeft and bottomRight must differ"),
    (lambda d: d["floors"][0]["rectangles"][0].update(name=""),
     "floors[0].rectangles[0].name: string should have at least 1 character"),
    (lambda d: d["floors"][0]["rectangles"][0].update(colour="red"),
     "floors[0].rectangles[0].colour: extra inputs are not permitted"),
    (lambda d: d["floors"][0]["rectangles"][0]["topLeft"].update(x="left"),
     "floors[0].rectangles[0].topLeft.x: input should be a valid number"),
    (lambda d: d.update(floors=[]), "floors: list should have at least 1 item"),
    (lambda d: d["bitmaps"][1].update(bitmapId="arrow_up"),
     "bitmaps[1].bitmapId: duplicate bitmap id 'arrow_up'"),
    (lambda d: d["bitmaps"][0].pop("bitmapFile"), "bitmaps[0].bitmapFile: field required"),
    (lambda d: d["bitmaps"][0].update(bitmapFile="map.json"),
     "bitmaps[0].bitmapFile: 'map.json' is not a readable image"),
])
def test_each_fault_is_reported_with_its_field(folder: Path, change: Any, expected: str) -> None:
    _edit(folder, change)
    problems = _problems(folder)
    assert any(p.startswith(expected) for p in problems), problems


def test_unreadable_json_and_missing_definition(folder: Path) -> None:
    (folder / "map.json").write_text("{not json")
    assert _problems(folder)[0].startswith("map.json: not readable JSON")
    (folder / "map.json").unlink()
    assert _problems(folder) == ["map.json: file not found"]


def test_assets_are_only_the_files_the_definition_names(folder: Path) -> None:
    pkg = MapPackage.load(folder)
    assert pkg.asset("floor_1F.png") == folder / "floor_1F.png"
    assert pkg.asset("map.json") is None
    assert pkg.asset("../map/floor_1F.png") is None


def test_the_wire_gives_each_floor_its_corners_in_pixels_and_its_scale() -> None:
    """The seed's own client places rooms with the corners' px/py (seed 000's 2D-map Point):
    without them in the package, the corners are the image's (the sample is 1000 x 600 px
    for 100 x 60 units)."""
    cs = MapPackage.load(SAMPLE).as_wire()["floors"][0]["coordinateSystem"]
    assert cs["topLeft"] == {"x": 0, "y": 0, "px": 0, "py": 0}
    assert cs["bottomRight"] == {"x": 100, "y": 60, "px": 1000, "py": 600}
    assert (cs["scaleX"], cs["scaleY"]) == (10, 10)
    room = MapPackage.load(SAMPLE).as_wire()["floors"][0]["rectangles"][0]
    assert set(room["topLeft"]) == {"x", "y"}  # a room's corners are virtual coordinates


def test_a_package_gives_its_surveyed_corners_in_pixels(folder: Path) -> None:
    def survey(d: dict[str, Any]) -> None:
        cs = d["floors"][0]["coordinateSystem"]
        cs["topLeft"] |= {"px": 100, "py": 50}
        cs["bottomRight"] |= {"px": 900, "py": 530}

    _edit(folder, survey)
    cs = MapPackage.load(folder).as_wire()["floors"][0]["coordinateSystem"]
    assert cs["topLeft"] == {"x": 0, "y": 0, "px": 100, "py": 50}
    assert cs["bottomRight"] == {"x": 100, "y": 60, "px": 900, "py": 530}
    assert (cs["scaleX"], cs["scaleY"]) == (8, 8)


def test_pixels_on_one_corner_only_are_refused(folder: Path) -> None:
    _edit(folder, lambda d: d["floors"][0]["coordinateSystem"]["topLeft"].update(px=1, py=2))
    assert _problems(folder) == ["floors[0].coordinateSystem: give px and py on both topLeft "
                                 "and bottomRight, or on neither"]


def test_pixels_outside_the_floor_image_are_refused(folder: Path) -> None:
    def survey(d: dict[str, Any]) -> None:
        cs = d["floors"][1]["coordinateSystem"]
        cs["topLeft"] |= {"px": 0, "py": 0}
        cs["bottomRight"] |= {"px": 1200, "py": 600}

    _edit(folder, survey)
    assert _problems(folder) == ["floors[1].coordinateSystem.bottomRight: px/py lie outside "
                                 "the 1000x600 floor image"]
