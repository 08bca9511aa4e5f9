"""WS /ws (seed 000) against a real server: every message type, bad input, order, replay,
cancel, leaving mid-run, queued messages, independent clients, and restarts."""

from __future__ import annotations

import asyncio
import json
import re
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import httpx
import pytest
import websockets
from fastapi.testclient import TestClient
from starlette.middleware import Middleware

from shokunin import events as ev
from shokunin.api import create_app
from shokunin.api.workbench.wire import to_wire
from shokunin.config import Settings
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
    assert [m["content"] for m in sql if m["type"] == "text"] == ["Rooms on 2F: 6."]


async def test_a_message_in_no_language_is_answered_in_the_uis(
        live_server: LiveServer) -> None:
    """A SELECT typed in the Japanese UI gets a Japanese reply; an English sentence there
    still gets an English one (the reply follows the question's language first)."""
    ws = await websockets.connect(live_server.ws_url, max_size=None,
                                  additional_headers={"Cookie": "shokunin_lang=ja"})
    await recv(ws)  # map_definition
    sql = await ask(ws, "SELECT COUNT(*) AS rooms FROM rooms")
    english = await ask(ws, "how many rooms are on 2F?")
    await ws.close()
    assert [m["content"] for m in sql if m["type"] == "text"] == ["答えは 14 です。"]
    assert [m["content"] for m in english if m["type"] == "text"] == ["Rooms on 2F: 6."]


async def test_a_tool_error_goes_to_debug_and_the_reply_says_it_once(
        live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "draw a left arrow in Garage and an up arrow in Garage")
    await ws.close()
    assert "error" not in types(messages)  # no red box: the reply says it
    failures = [m["content"]["tool_error"] for m in messages
                if m["type"] == "debug" and "tool_error" in m["content"]]
    assert [f["tool"] for f in failures] == ["draw_arrow", "draw_arrow"]
    assert "valid rooms: Lobby" in failures[0]["error"]
    [text] = [m["content"] for m in messages if m["type"] == "text"]
    assert text.count("Garage") == 1 and "valid rooms" in text


async def test_a_tool_error_is_said_once_in_japanese_with_no_red_box(
        live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "Garageに左矢印を描いて")
    await ws.close()
    [text] = [m["content"] for m in messages if m["type"] == "text"]
    assert text.startswith("地図に部屋「Garage」はありません（部屋: Lobby")
    assert "error" not in types(messages)


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


async def test_messages_sent_during_a_run_are_echoed_at_once_as_queued_then_run_in_order(
        live_server: LiveServer) -> None:
    ws, _ = await connect(live_server)
    asks = ["2Fを表示", "clear the map", "highlight Kitchen"]
    for text in asks:
        await ws.send(json.dumps({"message": text}))
    messages = []
    while sum(1 for m in messages if m.get("done")) < len(asks):
        messages.append(await recv(ws))
    await ws.close()
    echoes = [m for m in messages if m["type"] == "user_message"]
    assert [m["content"] for m in echoes] == asks  # each message echoed once
    first, *queued = echoes
    assert "queued" not in first and first["run_id"]  # it started at once: its run echoes it
    assert all(m["queued"] is True and "run_id" not in m for m in queued)
    first_done = next(i for i, m in enumerate(messages) if m.get("done"))
    assert all(messages.index(m) < first_done for m in queued)  # not held until the run ends
    starts = [m for m in messages if m["type"] == "debug" and m["content"].get("run") ==
              "started"]
    assert [m["id"] for m in starts] == [m["id"] for m in queued]
    assert [m["content"]["message"] for m in starts] == asks[1:]
    runs = list(dict.fromkeys(m["run_id"] for m in messages if m.get("run_id")))
    assert runs[0] == first["run_id"] and runs[1:] == [m["run_id"] for m in starts]
    shown = [m["type"] for m in messages if m["type"] in ("map", "clear_map", "highlight_room")]
    assert shown == ["map", "clear_map", "highlight_room"]


async def test_replay_after_seq_and_leaving_mid_run(live_server: LiveServer) -> None:
    ws, first = await connect(live_server)
    await ws.send(json.dumps({"message": "Kitchenに左矢印を表示して"}))
    started = await recv(ws)
    await ws.close()  # leave mid-run: the run still completes and is stored
    ws, _ = await connect(live_server, first["thread_id"])  # back on the same thread
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
    [dropped] = [m["content"] for m in rest if m["type"] == "debug" and
                 m["content"].get("cancel") == "queue dropped"]
    queued = [m["id"] for m in [first, *rest] if m.get("queued")]
    assert dropped["dropped"] == 3 and dropped["dropped_ids"] == queued  # the client marks them
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


def test_a_failure_the_user_can_act_on_is_said_alone_in_their_language() -> None:
    failed = ev.RunFailed(error="Cannot reach the model (error 1)", code="model_unreachable",
                          said={"ja": "接続できません", "en": "Cannot reach"}, run_id="r", seq=3)
    for language, text in [("ja", "接続できません"), ("en", "Cannot reach")]:
        error, done = to_wire(failed, language)
        assert error == {"type": "error", "content": text, "code": "model_unreachable",
                         "run_id": "r", "seq": 3}
        assert done["content"]["error"] == "Cannot reach the model (error 1)"


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
            if message.get("done") or (message["type"] == "debug" and message["content"].get(
                    "cancel") == "nothing to cancel" and message["content"]["dropped"] == 1):
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


async def test_a_lone_surrogate_is_refused_and_leaves_no_run_behind(
    live_server: LiveServer,
) -> None:
    """Found by fuzzing: "\\ud800" (a valid JSON escape, not encodable text) got server_error
    and, on an existing thread, left a run 'running' with no events."""
    thread = uuid.uuid4().hex
    ws, _ = await connect(live_server, thread)
    await ask(ws, "clear the map")  # the thread exists now
    for bad in ('{"message": "\\ud800"}', '{"message": "a\\udfffb"}',
                '{"run_id": "\\ud800", "after": 0}'):
        await ws.send(bad)
        message = await recv(ws)
        assert (message["type"], message["code"]) == ("error", "bad_request"), bad
    assert types(await ask(ws, "clear the map"))[0] == "user_message"  # goes on
    await ws.close()
    import sqlite3

    con = sqlite3.connect(live_server.data_dir / "shokunin.db")
    try:
        statuses = [s for (s,) in con.execute(
            "SELECT status FROM runs WHERE thread_id = ?", (thread,))]
    finally:
        con.close()
    assert statuses == ["completed", "completed"]


async def test_replay_after_the_last_event_still_ends_with_the_runs_status(
    live_server: LiveServer,
) -> None:
    ws, _ = await connect(live_server)
    messages = await ask(ws, "highlight Kitchen")
    run_id, last = messages[-1]["run_id"], messages[-1]["seq"]
    for after in (last, last + 100):
        await ws.send(json.dumps({"run_id": run_id, "after": after}))
        assert await reply(ws) == [messages[-1]]  # just the closing debug
    await ws.close()


async def test_replay_is_limited_to_the_connections_thread(live_server: LiveServer) -> None:
    mine, _ = await connect(live_server)
    run_id = (await ask(mine, "highlight Kitchen"))[0]["run_id"]
    theirs, _ = await connect(live_server)
    await theirs.send(json.dumps({"run_id": run_id, "after": 0}))
    answer = await recv(theirs)
    assert (answer["type"], answer["code"]) == ("error", "not_found")
    assert answer["content"] == f"no run {run_id!r}"
    await mine.send(json.dumps({"run_id": run_id, "after": 0}))
    assert (await reply(mine))[-1]["content"]["run"] == "completed"
    await mine.close()
    await theirs.close()


# -- scoping by principal (CONTRACTS.md, Auth) and errors that tell no server detail. A
# pure-ASGI wrapper sets the principal as the auth middleware does, from a test-only query
# parameter, so one app serves several principals.

def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                    tool_settings_file=tmp_path / "userdata" / "s.json", sandbox_pool_size=0)


class _PrincipalFromQuery:
    """Stands in for the auth middleware on /ws: the principal is the ``as`` parameter."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket":
            who = parse_qs(scope["query_string"].decode()).get("as")
            if who:
                scope.setdefault("state", {})["principal"] = who[0]
        await self.app(scope, receive, send)


def with_principal(app: Any) -> Any:
    # Innermost, after the perimeter's auth middleware (which sets no principal: auth is off).
    app.user_middleware.append(Middleware(_PrincipalFromQuery))
    return app


def until_done(ws: Any) -> list[dict[str, Any]]:
    out = []
    while not (out and out[-1].get("done")):
        out.append(ws.receive_json())
    return out


@pytest.fixture
def client(tmp_path: Path) -> Any:
    app = create_app(_settings(tmp_path))
    with TestClient(with_principal(app)) as client:
        client.app_state = app.state  # type: ignore[attr-defined]
        yield client


def test_a_key_sees_only_its_own_threads_and_runs(client: Any) -> None:
    with client.websocket_connect("/ws?thread=alice-t&as=key:alice") as ws:
        assert ws.receive_json()["thread_id"] == "alice-t"
        ws.send_json({"message": "clear the map"})
        run_id = until_done(ws)[0]["run_id"]
    with client.websocket_connect("/ws?thread=alice-t&as=key:bob") as ws:
        refused = ws.receive_json()
        assert (refused["type"], refused.get("code")) == ("error", "not_found")
        first = ws.receive_json()
        assert first["type"] == "map_definition" and first["thread_id"] != "alice-t"
        ws.send_json({"run_id": run_id, "after": 0})
        assert ws.receive_json()["code"] == "not_found"
    for who in ("key:alice", "admin"):
        with client.websocket_connect(f"/ws?thread=alice-t&as={who}") as ws:
            assert ws.receive_json()["thread_id"] == "alice-t"
            ws.send_json({"run_id": run_id, "after": 0})
            assert until_done(ws)[-1]["content"]["run"] == "completed"
    store = client.app_state.engine.store
    thread = client.portal.call(store.get_thread, "alice-t")
    assert thread.owner == "key:alice"


def test_a_server_failure_shows_an_id_not_the_exception(
    client: Any, caplog: pytest.LogCaptureFixture
) -> None:
    runner = client.app_state.engine.runner

    async def broken_start(*args: Any, **kwargs: Any) -> str:
        raise OSError("/srv/shokunin/data/shokunin.db: disk I/O error")

    runner.start = broken_start
    with client.websocket_connect("/ws") as ws:
        ws.receive_json()
        ws.send_json({"message": "clear the map"})
        error = ws.receive_json()
    assert (error["type"], error["code"]) == ("error", "internal")  # as HTTP says it
    assert "/srv" not in error["content"] and "OSError" not in error["content"]
    error_id = re.search(r"error ([0-9a-f]{12})", error["content"]).group(1)
    assert any(error_id in r.getMessage() and "disk I/O" in (r.exc_text or "")
               for r in caplog.records)
