"""The seed's own browser client loads the map's files from /backend/data/ and
/backend/bitmaps/ (and its legacy arrows as arrow_<direction>.bmp): the same named files
as /api/map/assets/, and nothing else."""

from __future__ import annotations

import httpx

from tests.live_server import LiveServer


def test_floor_images_and_bitmaps_are_served_at_the_seeds_paths(live_server: LiveServer) -> None:
    definition = httpx.get(f"{live_server.url}/api/map").json()
    for floor in definition["floors"]:
        name = floor["floorImage"]
        legacy = httpx.get(f"{live_server.url}/backend/data/{name}")
        assert legacy.status_code == 200 and legacy.headers["content-type"] == "image/png"
        assert legacy.content == httpx.get(f"{live_server.url}/api/map/assets/{name}").content
    for bitmap in definition["bitmaps"]:
        name = bitmap["bitmapFile"]
        legacy = httpx.get(f"{live_server.url}/backend/bitmaps/{name}")
        assert legacy.status_code == 200
        assert legacy.content == httpx.get(f"{live_server.url}/api/map/assets/{name}").content


def test_legacy_arrow_bitmaps_are_the_packages_arrows(live_server: LiveServer) -> None:
    definition = httpx.get(f"{live_server.url}/api/map").json()
    files = {b["bitmapId"]: b["bitmapFile"] for b in definition["bitmaps"]}
    for direction in ("up", "down", "left", "right"):
        arrow = httpx.get(f"{live_server.url}/backend/bitmaps/arrow_{direction}.bmp")
        assert arrow.status_code == 200
        own = httpx.get(f"{live_server.url}/api/map/assets/{files[f'arrow_{direction}']}")
        assert arrow.content == own.content
        assert arrow.headers["content-type"] == own.headers["content-type"]


def test_only_files_the_definition_names_are_served_there(live_server: LiveServer) -> None:
    for path in ("data/map.json", "bitmaps/map.json", "data/..%2Fmap.json", "data/nope.png",
                 "bitmaps/arrow_diagonal.bmp", "bitmaps/..%2F..%2Fconfig.py", "data/"):
        assert httpx.get(f"{live_server.url}/backend/{path}").status_code == 404, path
