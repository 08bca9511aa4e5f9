"""Seed 000's automatic highlight_room: the rooms the agent's reply names are highlighted
after the reply, unless the run already set the map (or the reply lists many rooms)."""

from __future__ import annotations

from tests.api.workbench.test_workbench_ws import ask, connect, types
from tests.live_server import LiveServer


async def test_rooms_named_in_the_reply_are_highlighted_after_it(
        live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "会議室はどこですか")
    await ws.close()
    kinds = types(messages)
    assert kinds.index("highlight_room") > kinds.index("text")
    highlight = next(m for m in messages if m["type"] == "highlight_room")
    assert highlight["content"] == {"rooms": ["MeetingRoom"]}
    assert highlight["run_id"] == messages[0]["run_id"]


async def test_a_run_that_set_the_map_gets_no_second_highlight(
        live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    highlighted = await ask(ws, "highlight Kitchen")
    arrow = await ask(ws, "Kitchenに左矢印を表示して")
    await ws.close()
    assert types(highlighted).count("highlight_room") == 1  # the tool's, not a repeat
    assert "highlight_room" not in types(arrow)


async def test_a_reply_listing_many_rooms_highlights_none(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "部屋の一覧")
    await ws.close()
    assert "highlight_room" not in types(messages)
