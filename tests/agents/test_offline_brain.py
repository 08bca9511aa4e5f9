"""OfflineBrain: English and Japanese requests read into the seed's tool calls."""

from __future__ import annotations

from typing import Any

import pytest

from shokunin.agents.workbench import intents
from shokunin.config import Settings
from shokunin.maps import MapPackage
from tests.agents.conftest import MakeRunner, ask, kinds

PKG = MapPackage.load(Settings().map_dir)
TOOLS = {"calculator", "run_python", "sql_engine"}


def plan(text: str) -> list[tuple[str, dict[str, Any]]] | None:
    return intents.plan(intents.read(text, PKG), PKG, TOOLS)


@pytest.mark.parametrize(("text", "expected"), [
    ("Kitchenに左矢印を表示して", [("draw_arrow", {"room_name": "Kitchen", "direction": "left"})]),
    ("draw an up arrow in room2", [("draw_arrow", {"room_name": "Room2", "direction": "up"})]),
    ("Bathroomに右矢印", [("draw_arrow", {"room_name": "Bathroom", "direction": "right"})]),
    ("highlight Room1 and Room2 on 1F in red",
     [("show_map", {"floor_id": "1F", "highlight_rooms": "Room1,Room2", "room_colors": "red"})]),
    ("Room1を赤でハイライトして",
     [("show_map", {"floor_id": "1F", "highlight_rooms": "Room1", "room_colors": "red"})]),
    ("highlight Kitchen", [("highlight_room", {"room_names": "Kitchen"})]),
    ("2Fを表示", [("show_map", {"floor_id": "2F"})]),
    ("show floor 1", [("show_map", {"floor_id": "1F"})]),
    ("show a person in Lobby",
     [("show_map", {"floor_id": "1F", "bitmap_overlays": "person:Lobby"})]),
    ("clear the map", [("clear_map", {})]),
    ("マップをクリアして", [("clear_map", {})]),
    ("矢印をクリアして", [("clear_arrows", {})]),
    ("clear all arrows", [("clear_arrows", {})]),
    ("how many rooms are on 2F?",
     [("sql_engine", {"query": "SELECT COUNT(*) AS rooms FROM rooms WHERE floor_id = '2F'"})]),
    ("SELECT name FROM rooms", [("sql_engine", {"query": "SELECT name FROM rooms"})]),
    ("calculate 1200*1.1", [("calculator", {"expression": "1200*1.1"})]),
    ("1200*1.1を計算して", [("calculator", {"expression": "1200*1.1"})]),
    ("plot room areas", [("run_python", {"code": "ROOM_AREA_PLOT"})]),
    ("hello there", None),
    ("こんにちは", None),
])
def test_requests_become_tool_calls(text: str, expected: Any) -> None:
    assert plan(text) == expected


def test_room_lists_and_unknown_names_are_passed_on() -> None:
    for text in ("list the rooms", "部屋の一覧"):
        [(name, args)] = plan(text)  # type: ignore[misc]
        assert name == "sql_engine" and args["query"].startswith("SELECT name, floor_id")
    assert plan("draw a left arrow in Garage") == [
        ("draw_arrow", {"room_name": "Garage", "direction": "left"})]
    assert plan("show 3F") == [("show_map", {"floor_id": "3F"})]
    assert plan("highlight Room1 on 1F in magenta") == [
        ("show_map", {"floor_id": "1F", "highlight_rooms": "Room1", "room_colors": "magenta"})]
    assert plan("show 5 random coordinates on the map")[0][0] == "show_points"  # type: ignore[index]


def test_no_calculator_plugin_means_no_calculator_call() -> None:
    assert intents.plan(intents.read("calculate 2+2", PKG), PKG, set()) is None


async def test_answers_follow_the_users_language(make_runner: MakeRunner) -> None:
    runner = await make_runner()
    ja = await ask(runner, "Kitchenに左矢印を表示して")
    assert kinds(ja) == ["run_started", "debug", "code", "tool_call", "arrow", "tool_result",
                         "debug", "text", "run_completed"]
    assert ja[2].code == 'draw_arrow(room_name="Kitchen", direction="left")'  # type: ignore
    assert ja[2].step == "Step 1"  # type: ignore[attr-defined]
    assert ja[7].text == "左矢印がKitchenに描かれました。"  # type: ignore[attr-defined]
    en = await ask(runner, "what can you do?")
    assert kinds(en) == ["run_started", "debug", "text", "run_completed"]
    assert en[2].text.startswith("Offline, I can")  # type: ignore[attr-defined]
    assert (await ask(runner, "何ができますか"))[2].text.startswith("オフライン")  # type: ignore


async def test_a_bad_name_gives_an_error_naming_valid_choices(make_runner: MakeRunner) -> None:
    events = await ask(await make_runner(), "show 3F")
    assert kinds(events) == ["run_started", "debug", "code", "tool_call", "error",
                             "tool_result", "debug", "text", "run_completed"]
    assert "valid floors: 1F, 2F" in events[4].message  # type: ignore[attr-defined]
    assert events[5].success is False  # type: ignore[attr-defined]
    assert "valid floors: 1F, 2F" in events[7].text  # type: ignore[attr-defined]


async def test_sql_answer(make_runner: MakeRunner) -> None:
    events = await ask(await make_runner(), "how many rooms are on 2F?")
    assert events[-2].text == "The answer is 6."  # type: ignore[attr-defined]
