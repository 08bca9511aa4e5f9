"""WS /ws (seed 000) against a real server: every message type, bad input, order, replay,
cancel, leaving mid-run, queued messages, independent clients, and restarts."""

from __future__ import annotations

import asyncio
import json
import uuid
from typing import Any

import httpx
import pytest
import websockets

from shokunin import events as ev
from shokunin.api.workbench_wire import to_wire
from tests.live_server import LiveServer

TIMEOUT = 20.0
Conn = websockets.ClientConnection


async def recv(ws: Conn) -> dict[str, Any]:
    return json.loads(await asyncio.wait_for(ws.recv(), TIMEOUT))


async def connect(server: LiveServer, thread: str | None = None) -> tuple[Conn, dict]:
    url = server.ws_url + (f"?thread={thread}" if thread else "")
    ws = await websockets.connect(url, max_size=None)
    first = await recv(ws)
    return ws, first


async def reply(ws: Conn) -> list[dict[str, Any]]:
    """Messages up to and including the run's closing ``debug`` with ``done``."""
    out = []
    while True:
        message = await recv(ws)
        out.append(message)
        if message.get("done"):
            return out


async def ask(ws: Conn, text: str) -> list[dict[str, Any]]:
    await ws.send(json.dumps({"message": text}))
    return await reply(ws)


def types(messages: list[dict[str, Any]]) -> list[str]:
    return [m["type"] for m in messages]


async def test_map_definition_on_connect_and_over_http(live_server: LiveServer) -> None:
    ws, first = await connect(live_server)
    await ws.close()
    assert first["type"] == "map_definition"
    assert "run_id" not in first and first["thread_id"]
    floors = first["content"]["floors"]
    assert [f["floorId"] for f in floors] == ["1F", "2F"]
    assert {"floorId", "floorName", "floorImage", "coordinateSystem", "rectangles"} <= set(
        floors[0])
    assert httpx.get(f"{live_server.url}/api/map").json() == first["content"]
    image = httpx.get(f"{live_server.url}/api/map/assets/{floors[0]['floorImage']}")
    assert image.status_code == 200 and image.headers["content-type"] == "image/png"
    bitmap = first["content"]["bitmaps"][0]["bitmapFile"]
    assert httpx.get(f"{live_server.url}/api/map/assets/{bitmap}").status_code == 200
    for bad in ("map.json", "..%2Fmap.json", "nope.png", "..%2F..%2Fconfig.py"):
        assert httpx.get(f"{live_server.url}/api/map/assets/{bad}").status_code == 404


async def test_arrow_request_follows_the_seed_sequence(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "Kitchenに左矢印を表示して")
    await ws.close()
    assert types(messages) == ["user_message", "debug", "code", "arrow", "debug", "text",
                               "debug"]
    assert messages[0]["content"] == "Kitchenに左矢印を表示して"
    debug = messages[1]["content"]
    assert set(debug) >= {"agent_response", "parsed_outputs", "output_count"}
    assert debug["output_count"] == len(debug["parsed_outputs"]) == 1
    assert messages[2] == messages[2] | {
        "content": 'draw_arrow(room_name="Kitchen", direction="left")', "language": "python",
        "step": "Step 1"}
    assert messages[3]["content"] == {"room": "Kitchen", "direction": "left"}
    assert messages[5]["content"] == "左矢印がKitchenに描かれました。"
    assert messages[6]["content"]["run"] == "completed"
    run_ids = {m["run_id"] for m in messages}
    assert len(run_ids) == 1 and messages[6]["content"]["run_id"] in run_ids
    assert [m["seq"] for m in messages] == sorted(m["seq"] for m in messages)


@pytest.mark.parametrize(("text", "kind", "content"), [
    ("highlight Room1 and Room2 on 1F in red", "map", None),
    ("2Fを表示", "map", None),
    ("highlight Kitchen", "highlight_room", {"rooms": ["Kitchen"]}),
    ("矢印をクリアして", "clear_arrows", {}),
    ("マップをクリアして", "clear_map", {}),
])
async def test_map_commands(live_server: LiveServer, text: str, kind: str, content: Any) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, text)
    await ws.close()
    assert types(messages)[:4] == ["user_message", "debug", "code", kind]
    if content is not None:
        assert messages[3]["content"] == content
    else:
        assert set(messages[3]["content"]) == {"floorId", "timestamp", "rectangles", "overlays"}
    assert messages[5]["type"] == "text"


async def test_legacy_points_map_and_sql(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    points = await ask(ws, "Show me 5 random coordinates on the map")
    sql = await ask(ws, "how many rooms are on 2F?")
    await ws.close()
    legacy = next(m for m in points if m["type"] == "map")["content"]
    assert len(legacy["points"]) == 5 and {"lat", "lon"} == set(legacy["points"][0])
    assert "description" in legacy
    assert [m["content"] for m in sql if m["type"] == "text"] == ["The answer is 6."]


async def test_unknown_room_gives_error_and_text_naming_choices(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "draw a left arrow in Garage")
    await ws.close()
    assert types(messages) == ["user_message", "debug", "code", "error", "debug", "text",
                               "debug"]
    assert "valid rooms: Lobby" in messages[3]["content"]
    assert "valid rooms" in messages[5]["content"]


async def test_bad_input_gets_errors_and_the_connection_goes_on(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    for bad in ["not json", "[1, 2]", "{}", json.dumps({"message": 5}),
                json.dumps({"message": ""}), json.dumps({"message": None}),
                json.dumps({"run_id": 3}), json.dumps({"message": "x" * 70_000}),
                b"\xff\xfe"]:
        await ws.send(bad)
        message = await recv(ws)
        assert message["type"] == "error", bad
        assert isinstance(message["content"], str) and message["content"]
    assert "too large" in (await _error_for(ws, "y" * 100_000))
    assert types(await ask(ws, "clear the map"))[:4] == ["user_message", "debug", "code",
                                                          "clear_map"]
    await ws.send(json.dumps({"run_id": "nope", "after": 0}))
    assert (await recv(ws))["content"] == "no run 'nope'"
    await ws.close()


async def _error_for(ws: Conn, text: str) -> str:
    await ws.send(json.dumps({"message": text}))
    message = await recv(ws)
    assert message["type"] == "error"
    return message["content"]


async def test_messages_queue_in_order(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    asks = ["2Fを表示", "clear the map", "highlight Kitchen"]
    for text in asks:
        await ws.send(json.dumps({"message": text}))
    replies = [await reply(ws) for _ in asks]
    await ws.close()
    assert [r[0]["content"] for r in replies] == asks
    assert [r[3]["type"] for r in replies] == ["map", "clear_map", "highlight_room"]


async def test_replay_after_seq_and_leaving_mid_run(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    await ws.send(json.dumps({"message": "Kitchenに左矢印を表示して"}))
    started = await recv(ws)
    await ws.close()  # leave mid-run: the run still completes and is stored
    ws, _ = await connect(live_server)
    await ws.send(json.dumps({"run_id": started["run_id"], "after": 2}))
    replayed = await reply(ws)
    await ws.close()
    # Every message after seq 2, in order (tool_call/tool_result events have no message).
    seqs = [m["seq"] for m in replayed]
    assert seqs == sorted(set(seqs)) and seqs[0] == 3
    assert types(replayed) == ["code", "arrow", "debug", "text", "debug"]
    assert replayed[-1]["content"]["run"] == "completed"


async def test_cancel_stops_the_run_and_drops_the_queue(fresh_server: LiveServer) -> None:
    ws, _ = await connect(fresh_server)
    await ws.send(json.dumps({"cancel": True}))
    assert (await recv(ws))["content"]["cancel"] == "nothing to cancel"
    # A plot starts a cold sandbox kernel (about a second): cancel lands while it runs.
    await ws.send(json.dumps({"message": "plot room areas"}))
    for _ in range(3):
        await ws.send(json.dumps({"message": "clear the map"}))
    first = await recv(ws)
    assert first["type"] == "user_message"
    await ws.send(json.dumps({"cancel": True}))
    rest = await reply(ws)
    assert rest[-1]["content"]["run"] == "cancelled"
    assert {"type": "error", "content": "Cancelled", "code": "cancelled"}.items() <= \
        rest[-2].items()
    await ws.send(json.dumps({"message": "highlight Kitchen"}))
    after = await reply(ws)
    assert after[0]["content"] == "highlight Kitchen"  # the queued "clear the map"s were dropped
    await ws.close()


async def test_two_clients_are_independent(live_server: LiveServer) -> None:
    a, _ = await connect(live_server)
    b, _ = await connect(live_server)
    await a.send(json.dumps({"message": "highlight Kitchen"}))
    await b.send(json.dumps({"message": "2Fを表示"}))
    ra, rb = await asyncio.gather(reply(a), reply(b))
    await a.close()
    await b.close()
    assert ra[0]["content"] == "highlight Kitchen" and rb[0]["content"] == "2Fを表示"
    assert {m["run_id"] for m in ra}.isdisjoint({m["run_id"] for m in rb})


async def test_thread_survives_a_restart(fresh_server: LiveServer) -> None:
    thread = uuid.uuid4().hex
    ws, first = await connect(fresh_server, thread)
    assert first["thread_id"] == thread
    before = await ask(ws, "highlight Kitchen")
    await ws.close()
    fresh_server.restart()
    ws, _ = await connect(fresh_server, thread)
    await ws.send(json.dumps({"run_id": before[0]["run_id"], "after": 0}))
    assert types(await reply(ws)) == types(before)
    after = await ask(ws, "clear the map")
    await ws.close()
    assert after[-1]["content"]["run"] == "completed"
    import sqlite3

    # The server's one checkpointer keeps the thread in the store's own database.
    assert not (fresh_server.data_dir / "checkpoints.db").exists()
    con = sqlite3.connect(fresh_server.data_dir / "shokunin.db")
    try:
        rows = con.execute("SELECT COUNT(DISTINCT checkpoint_id) FROM checkpoints WHERE "
                           "thread_id = ?", (thread,)).fetchone()[0]
    finally:
        con.close()
    assert rows >= 2  # one checkpoint per turn (durability "exit"), both in this thread


async def test_bad_thread_id_gets_a_new_thread(live_server: LiveServer) -> None:
    ws, first = await connect(live_server, "..%2Fescape")
    second = await recv(ws)
    await ws.close()
    assert first["type"] == "error" and "bad thread id" in first["content"]
    assert second["type"] == "map_definition" and second["thread_id"] != "../escape"


def test_translator_covers_every_seed_type() -> None:
    tagged = {"run_id": "r", "seq": 3}
    cases: list[tuple[ev.BaseEvent, list[dict[str, Any]]]] = [
        (ev.Image(data_base64="aGk=", format="png", path="plot.png", **tagged),
         [{"type": "image", "content": "aGk=", "format": "png", "path": "plot.png", **tagged}]),
        (ev.MapShow(content={"points": [{"lat": 1.0, "lon": 2.0}], "description": "d"},
                    **tagged),
         [{"type": "map", "content": {"points": [{"lat": 1.0, "lon": 2.0}],
                                      "description": "d"}, **tagged}]),
        (ev.RunFailed(error="boom", **tagged),
         [{"type": "error", "content": "Error processing request: boom", **tagged},
          {"type": "debug", "done": True, "content": {"run": "failed", "run_id": "r",
                                                      "error": "boom"}, **tagged}]),
        (ev.Error(message="bad"), [{"type": "error", "content": "bad"}]),
        (ev.ToolCall(call_id="c", name="x", **tagged), []),
    ]
    for event, expected in cases:
        assert to_wire(event) == expected


async def test_calculator_plugin(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "calculate 1200*1.1")
    await ws.close()
    assert messages[2]["content"] == 'calculator(expression="1200*1.1")'
    assert [m["content"] for m in messages if m["type"] == "text"] == ["1200*1.1 = 1320"]


async def test_cancel_right_after_the_message_still_ends_the_run(live_server: LiveServer) -> None:
    """A cancel racing the start of a run either drops the queued message (and says so) or
    ends the run; either way the connection answers the next message. (The Runner's own
    test pins the case of a run cancelled before its first step.)"""
    ws, _ = await connect(live_server)
    for _ in range(5):
        await ws.send(json.dumps({"message": "2Fを表示"}))
        await ws.send(json.dumps({"cancel": True}))
        while True:
            message = await recv(ws)
            if message.get("done") or message["content"] == {"cancel": "nothing to cancel",
                                                            "dropped": 1}:
                break
    assert types(await ask(ws, "clear the map"))[0] == "user_message"  # still answering
    await ws.close()


async def test_junk_that_used_to_kill_the_connection(live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    await ws.send("[" * 5000)  # nests deeper than json.loads can recurse
    assert (await recv(ws))["code"] == "bad_json"
    await ws.send(json.dumps({"run_id": "x", "after": 10**23}))  # beyond a 64-bit seq
    assert (await recv(ws))["code"] == "bad_request"
    assert types(await ask(ws, "clear the map"))[0] == "user_message"
    await ws.close()


async def test_clients_racing_to_start_one_new_thread(live_server: LiveServer) -> None:
    """Four connections on one new thread send at once: every one is answered, in turn."""
    thread = uuid.uuid4().hex
    conns = [(await connect(live_server, thread))[0] for _ in range(4)]
    replies = await asyncio.gather(*(ask(ws, "2Fを表示") for ws in conns))
    assert [r[-1]["content"]["run"] for r in replies] == ["completed"] * 4
    for ws in conns:
        await ws.close()
