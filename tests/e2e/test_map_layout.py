"""The map pane's geometry: markers in one room each stay visible, and a floor plan whose
surveyed area covers only part of its image places its rooms by the corners' pixels."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from shokunin.config import Settings
from tests.live_server import LiveServer

pytestmark = pytest.mark.browser

def _square(spot: dict[str, float]) -> tuple[float, float, float, float]:
    half = spot["size"] / 2
    return spot["x"] - half, spot["y"] - half, spot["x"] + half, spot["y"] + half


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    ax1, ay1, ax2, ay2 = _square(a)
    bx1, by1, bx2, by2 = _square(b)
    return ax1 < bx2 and bx1 < ax2 and ay1 < by2 and by1 < ay2


def test_markers_in_one_room_do_not_hide_each_other(ui: Any) -> None:
    ui.open()
    ui.wait_connected()
    ui.send("put a person and an exit sign in Kitchen and a left arrow in Kitchen")
    state = ui.map_state()
    room = state["rooms"]["Kitchen"]
    assert [o["bitmapId"] for o in state["overlays"]] == ["person", "exit"]
    spots = [o["at"] for o in state["overlays"]] + [
        {k: a[k] for k in ("x", "y", "size")} for a in state["arrows"] if a["room"] == "Kitchen"]
    assert len(spots) == 3 and all(spots)
    for i, a in enumerate(spots):
        assert a["size"] >= 20  # still big enough to see
        x1, y1, x2, y2 = _square(a)
        assert room["x"] <= x1 and x2 <= room["x"] + room["w"], a
        assert room["y"] <= y1 and y2 <= room["y"] + room["h"], a
        for b in spots[i + 1:]:
            assert not _overlap(a, b), (a, b)
    ui.screenshot("map-markers-in-one-room")
    assert ui.errors == []


def test_one_marker_in_a_room_stays_at_its_centre(ui: Any) -> None:
    ui.open()
    ui.wait_connected()
    ui.send("Officeに上矢印を表示して")
    state = ui.map_state()
    room = state["rooms"]["Office"]
    arrow = next(a for a in state["arrows"] if a["room"] == "Office")
    assert abs(arrow["x"] - (room["x"] + room["w"] / 2)) < 0.5
    assert abs(arrow["y"] - (room["y"] + room["h"] / 2)) < 0.5


@pytest.fixture
def surveyed_server(tmp_path: Path) -> Iterator[LiveServer]:
    """A server whose 1F plan has its surveyed area at px (100, 50) to (900, 530) of the
    1000 x 600 image."""
    folder = tmp_path / "map"
    shutil.copytree(Settings().map_dir, folder)
    data = json.loads((folder / "map.json").read_text())
    cs = data["floors"][0]["coordinateSystem"]
    cs["topLeft"] |= {"px": 100, "py": 50}
    cs["bottomRight"] |= {"px": 900, "py": 530}
    (folder / "map.json").write_text(json.dumps(data))
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_MAP_DIR": str(folder)}).start()
    yield server
    server.stop()


def test_a_surveyed_plan_places_rooms_by_its_corners_pixels(
        make_page: Any, surveyed_server: LiveServer) -> None:
    ui = make_page(surveyed_server)
    page = ui.open()
    ui.wait_connected()
    page.wait_for_function("() => { const s = window.shokunin.map.state();"
                           " return s.rooms.Lobby && s.image.w > 0; }")
    page.wait_for_timeout(300)  # the floor image's load redraws with its natural size
    state = ui.map_state()
    image, lobby = state["image"], state["rooms"]["Lobby"]  # Lobby: x 0-25, y 0-30 units
    k = image["w"] / 1000  # canvas pixels per image pixel
    assert abs(lobby["x"] - (image["x"] + 100 * k)) < 1
    assert abs(lobby["y"] - (image["y"] + 50 * k)) < 1
    assert abs(lobby["w"] - 25 * 8 * k) < 1  # 800 px for 100 units
    assert abs(lobby["h"] - 30 * 8 * k) < 1  # 480 px for 60 units
    ui.screenshot("map-surveyed-plan")


def test_a_broken_map_is_said_in_the_map_pane_and_chat_still_answers(
        make_page: Any, tmp_path: Path) -> None:
    broken = tmp_path / "map"
    broken.mkdir()
    (broken / "map.json").write_text('{"floors": [{"floorId": "1F"}], "bitmaps": []}')
    server = LiveServer(tmp_path / "server", env={"SHOKUNIN_MAP_DIR": str(broken)}).start()
    try:
        ui = make_page(server)
        page = ui.open()
        ui.wait_connected()
        message = page.locator(".map-message")
        message.wait_for(state="visible")
        assert "マップを読み込めませんでした" in message.inner_text()
        assert "floors[0]" in message.inner_text()
        ui.send("calculate 1200 * 8%")
        assert "96" in page.locator(".msg.agent").last.inner_text()
        ui.screenshot("map-broken-package")
    finally:
        server.stop()
