from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from shokunin.api import create_app
from shokunin.config import Settings
from tests.waiting import wait_until


def _settings(tmp_path: Path) -> Settings:
    return Settings(data_dir=tmp_path / "data", tools_dirs=[tmp_path / "tool"],
                    tool_settings_file=tmp_path / "userdata" / "s.json", sandbox_pool_size=0)


@pytest.mark.kernel
def test_health_serves_while_the_warm_kernels_start_and_says_so(tmp_path: Path) -> None:
    settings = _settings(tmp_path).model_copy(update={"sandbox_pool_size": 1})
    with TestClient(create_app(settings)) as client:
        health = client.get("/health").json()
        assert health["status"] == "ok" and "warm kernels" in health["starting"], health
        wait_until(lambda: client.get("/health").json()["starting"] == [], 120,
                   what="the warm kernels started")  # the pool fills meanwhile
        assert client.get("/api/kernels").json()["pooled"] == 1


def test_health_and_openapi(tmp_path: Path) -> None:
    with TestClient(create_app(_settings(tmp_path))) as client:
        health = client.get("/health").json()
        assert health["status"] == "ok" and health["model"] == "offline"
        # root, or a user namespace: the kernels' filesystem view is built, Python runs
        sandbox = health["sandbox"]
        assert sandbox["python"] == "on" and sandbox["walls"]["filesystem_view"], sandbox
        assert sandbox["walls"]["seccomp"] and sandbox["walls"]["no_network"], sandbox
        assert health["starting"] == []  # no warm pool here: nothing starts in the background
        spec = client.get("/openapi.json").json()
        assert "/health" in spec["paths"]
        assert client.get("/docs").status_code == 200
    assert (tmp_path / "data" / "shokunin.db").exists()


def test_runs_left_running_by_a_dead_process_are_failed_on_start(tmp_path: Path) -> None:
    import asyncio

    from shokunin.store import Store

    settings = _settings(tmp_path)

    async def leave_a_running_run() -> None:
        settings.data_dir.mkdir(parents=True)
        store = await Store.open(settings.resolved_database_url)
        await store.ensure_thread("t", "workbench")
        await store.create_run("r", "t", "workbench", {})
        await store.close()

    asyncio.run(leave_a_running_run())
    with TestClient(create_app(settings)) as client:
        store = client.app.state.engine.store
        run = client.portal.call(store.get_run, "r")
        runner = client.app.state.engine.runner

        async def replay() -> list:
            return [e async for e in runner.stream("r")]

        replayed = client.portal.call(replay)
    assert run.status == "failed" and "restarted" in (run.error or "")
    assert [e.kind for e in replayed] == ["run_failed"]  # a replay of it ends


def test_a_broken_map_is_reported_by_the_face_and_the_server_still_runs(tmp_path: Path) -> None:
    broken = tmp_path / "map"
    broken.mkdir()
    (broken / "map.json").write_text('{"floors": [{"floorId": "1F"}], "bitmaps": []}')
    settings = _settings(tmp_path).model_copy(update={"map_dir": broken})
    with TestClient(create_app(settings)) as client:
        answer = client.get("/api/map")
        assert answer.status_code == 503
        assert any("floors[0]" in p for p in answer.json()["problems"])
        with client.websocket_connect("/ws") as ws:
            first = ws.receive_json()
        assert (first["type"], first["code"]) == ("error", "map_error")
        assert "floors[0]" in first["content"]
        assert client.get("/health").json()["status"] == "ok"


def test_a_broken_map_leaves_requests_that_need_no_map_working(tmp_path: Path) -> None:
    broken = tmp_path / "map"
    broken.mkdir()
    (broken / "map.json").write_text('{"floors": [{"floorId": "1F"}], "bitmaps": []}')
    settings = _settings(tmp_path).model_copy(update={"map_dir": broken})

    def ask(ws: Any, text: str) -> list[dict[str, Any]]:
        ws.send_json({"message": text})
        messages = [ws.receive_json()]
        while not messages[-1].get("done"):
            messages.append(ws.receive_json())
        return messages

    with TestClient(create_app(settings)) as client, client.websocket_connect("/ws") as ws:
        assert ws.receive_json()["code"] == "map_error"
        sum_ = ask(ws, "calculate 1200 * 8%")
        rooms = ask(ws, "部屋の一覧")
        arrow = ask(ws, "draw a left arrow in Kitchen")
    for messages in (sum_, rooms, arrow):
        assert messages[-1]["content"]["run"] == "completed"
        assert not [m for m in messages if m["type"] == "error"]
    assert "96" in next(m["content"] for m in sum_ if m["type"] == "text")
    assert "Kitchen" in next(m["content"] for m in rooms if m["type"] == "text")  # the database
    said = next(m["content"] for m in arrow if m["type"] == "text")
    assert "map" in said and "failed to load" in said
    assert not [m for m in arrow if m["type"] in ("arrow", "code")]
