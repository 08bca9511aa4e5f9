"""OfflineBrain through the real graph and tools (sandbox-free): the calls it makes, the
map events they produce, and replies in the user's language that say what was not done.
The grammar itself is pinned by the request table in test_offline_grammar.py."""

from __future__ import annotations

import pytest
from langchain_core.messages import AIMessage, ToolMessage

from shokunin.agents.workbench import intents
from shokunin.agents.workbench.offline_brain import OfflineBrain
from shokunin.config import Settings
from shokunin.maps import MapPackage
from shokunin.tools.registry import ToolRegistry
from tests.agents.conftest import MakeRunner, ask, kinds


def texts(events: list) -> list[str]:
    return [e.text for e in events if e.kind == "text"]


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
    assert "Offline, I understand" in en[2].text  # type: ignore[attr-defined]
    assert "“Models” page" in en[2].text  # type: ignore[attr-defined]
    assert "オフラインでは" in (await ask(runner, "何ができますか"))[2].text  # type: ignore


async def test_three_clauses_make_three_calls_with_their_own_arguments(
        make_runner: MakeRunner) -> None:
    events = await ask(await make_runner(), "draw an arrow up in Room1 and a left arrow in "
                                            "the kitchen, then highlight the lounge area")
    arrows = [(e.room, e.direction) for e in events if e.kind == "arrow"]  # type: ignore
    assert arrows == [("Room1", "up"), ("Kitchen", "left")]
    assert [e.rooms for e in events if e.kind == "highlight_room"] == [["Lounge"]]  # type: ignore
    assert texts(events) == ["Drew an up arrow in Room1.\nDrew a left arrow in Kitchen.\n"
                             "Highlighted Lounge."]
    results = [e.result for e in events if e.kind == "tool_result"]  # type: ignore[attr-defined]
    assert results[0] == "Drew an up arrow in Room1."  # what a model reads, too


async def test_a_partial_request_says_what_was_not_done(make_runner: MakeRunner) -> None:
    events = await ask(await make_runner(), "書庫をハイライトして、ピザを注文して")
    [reply] = texts(events)
    done, cannot, *_hint = reply.split("\n")
    assert done == "Archiveをハイライトしました。"
    assert cannot == "「ピザを注文して」は理解できませんでした。"
    assert "「モデル」の画面でモデルを設定すると答えられます" in reply


async def test_an_unknown_floor_is_said_not_counted_as_the_building(
        make_runner: MakeRunner) -> None:
    events = await ask(await make_runner(), "how many rooms are on the fifth floor?")
    assert kinds(events) == ["run_started", "debug", "text", "run_completed"]
    assert texts(events)[0].startswith("The map has no floor “fifth floor” (floors: 1F, 2F).")


async def test_an_arrow_without_a_direction_is_asked_for_not_sent_empty(
        make_runner: MakeRunner) -> None:
    events = await ask(await make_runner(), "draw an arrow in the kitchen")
    assert "tool_call" not in kinds(events)
    assert texts(events)[0].startswith("Which way should the arrow in Kitchen point")


async def test_database_questions_are_answered_from_the_sample_database(
        make_runner: MakeRunner) -> None:
    runner = await make_runner()
    assert texts(await ask(runner, "how many rooms are on 2F?")) == ["Rooms on 2F: 6."]
    assert texts(await ask(runner, "2Fの面積の合計は？")) == ["2Fの面積の合計: 1,300 m²。"]
    assert texts(await ask(runner, "where is the archive?")) == ["Where Archive is: 2F, 2階."]
    assert texts(await ask(runner, "when is the lounge busiest?")) == [
        "The busiest hour of Lounge, and the people then: 13:00, 15 people."]
    [largest] = texts(await ask(runner, "2階で一番広い部屋は？"))  # a tie: both rooms
    assert "| Bathroom | 2F | 262.5 |" in largest and "| MeetingRoom | 2F | 262.5 |" in largest
    [rooms] = texts(await ask(runner, "list the rooms on the second floor"))
    assert "Lounge" in rooms and "Kitchen" not in rooms


def test_identical_tool_failures_are_one_sentence() -> None:
    pkg = MapPackage.load(Settings().map_dir)
    brain = OfflineBrain(pkg, Settings().sample_db)
    plan = intents.plan("draw a left arrow in Room1 and Room2", pkg, set())
    calls = [{"name": n, "args": a, "id": f"c{i}", "type": "tool_call"}
             for i, (n, a) in enumerate(plan.calls)]
    error = "Error: unknown room 'Garage'; valid rooms: Lobby, Kitchen"
    since = [AIMessage(content="", tool_calls=calls),
             *[ToolMessage(content=error, tool_call_id=c["id"], status="error") for c in calls]]
    assert brain._answer(plan, since) == (
        "The map has no room “Garage” (valid rooms: Lobby, Kitchen).")


async def test_a_room_the_map_lacks_is_named_once_in_the_users_language(
        make_runner: MakeRunner) -> None:
    runner = await make_runner()
    [en] = texts(await ask(runner, "draw a left arrow in Garage"))
    assert en.startswith("The map has no room “Garage” (valid rooms: Lobby, Kitchen,")
    [ja] = texts(await ask(runner, "3階を表示して"))
    assert ja == "地図に階「3階」はありません（階: 1F, 2F）。"


@pytest.mark.parametrize(("request_text", "title", "labels"), [
    ("plot room areas on 2F", "Room areas on 2F", "['Bathroom', 'MeetingRoom', 'Lounge'"),
    ("chart the capacity of each room", "Room capacities", "'Lobby', 'Office'"),
    ("plot total area per floor", "Total room areas per floor", "['1F', '2F']"),
    ("graph the occupancy of the lounge", "People in Lounge by hour", "['8:00', '9:00'"),
    ("chart people by hour in the building", "People in the building by hour", "'8:00'"),
])
def test_charts_draw_what_was_asked(request_text: str, title: str, labels: str) -> None:
    pkg = MapPackage.load(Settings().map_dir)
    [(name, args)] = intents.plan(request_text, pkg, {"run_python"}).calls
    code = OfflineBrain(pkg, Settings().sample_db)._fill(name, args)["code"]
    assert f"ax.set_title({title!r})" in code and labels in code
    compile(code, "chart", "exec")


async def test_a_percentage_keeps_its_percent_sign(make_runner: MakeRunner,
                                                   tmp_path) -> None:  # noqa: ANN001
    runner = await make_runner()
    runner.services.tools = ToolRegistry.from_settings(
        Settings(data_dir=tmp_path / "data"), log_unavailable=False)
    assert texts(await ask(runner, "what is 15% of 2400?")) == ["2400 * 15% = 360"]
    assert texts(await ask(runner, "2400の15%を計算して")) == ["2400 * 15% = 360"]
    [zero] = texts(await ask(runner, "1/0を計算して"))
    assert zero == "計算できませんでした: 0 で割ることはできません。"


def test_a_chart_runs_and_says_what_it_shows(capsys: pytest.CaptureFixture[str]) -> None:
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    pkg = MapPackage.load(Settings().map_dir)
    [(name, args)] = intents.plan("ラウンジの人数をグラフにして", pkg, {"run_python"}).calls
    exec(OfflineBrain(pkg, Settings().sample_db)._fill(name, args)["code"], {})  # noqa: S102
    assert capsys.readouterr().out == "peak: 15 people at 13:00\n"
