"""The offline Advisor's answers to the three requests of issue 36 (and, for issue 37, in
other words), as the origin's React clients send them to ``POST /api/chat`` on a live
server and as they show them: a direct answer to 「価格転嫁はできますか？」, the
cost-calculation step and a request for the user's numbers for 「コスト上昇分を計算して」,
and the step's own process drawn for 「図で説明して」 (a ``diagram`` message, and the PNG
behind ``GET /api/diagrams/latest`` the clients poll)."""

from __future__ import annotations

import httpx
import pytest

from tests.api.advisor.origin_client import chat, open_session, screen
from tests.live_server import LiveServer


def test_can_i_pass_on_prices_is_answered_directly_on_the_clients_screen(
        live_server: LiveServer) -> None:
    session = open_session(live_server.url)
    messages = chat(live_server.url, session, "価格転嫁はできますか？")
    assert messages[-1]["type"] == "done"
    done = messages[-1]["content"]
    assert "はい、価格転嫁はできます。" in done and "出典: price_pass_through_basics.md" in done
    assert "はい、価格転嫁はできます。" in screen(messages).text
    sources = next(m for m in messages if m["type"] == "sources")["sources"]
    assert "price_pass_through_basics.md" in [s["source"] for s in sources]


def test_computing_the_cost_increase_proposes_the_cost_step_then_computes_the_numbers(
        live_server: LiveServer) -> None:
    session = open_session(live_server.url)
    asked = chat(live_server.url, session, "コスト上昇分を計算して")
    assert next(m for m in asked if m["type"] == "step_update")["step"] == "STEP_0_CHECK_3"
    assert "材料費 400円→480円" in asked[-1]["content"]
    computed = chat(live_server.url, session,
                    "材料費 400円→480円、労務費 300円→330円、経費 150円→160円、売値 1,100円")
    assert "calculator" in [m["tool"] for m in computed if m["type"] == "tool_use"]
    assert "+120円" in computed[-1]["content"] and "**1,220円**" in computed[-1]["content"]


def test_draw_it_shows_the_steps_process_as_a_diagram_the_clients_fetch(
        fresh_server: LiveServer) -> None:
    # a server of its own: the shared one's callers see no diagram of this test's
    session = open_session(fresh_server.url)
    chat(fresh_server.url, session, "原価計算のやり方を教えてください")
    messages = chat(fresh_server.url, session, "図で説明して")
    assert "generate_diagram" in [m["tool"] for m in messages if m["type"] == "tool_use"]
    assert [m["type"] for m in messages].count("diagram") == 1
    done = messages[-1]["content"]
    assert "「原価計算の実施」の進め方を図にしました" in done and "JSON" not in done
    latest = httpx.get(f"{fresh_server.url}/api/diagrams/latest",
                       params={"session_id": session}).json()["diagram"]
    png = httpx.get(f"{fresh_server.url}{latest['url']}")
    assert png.headers["content-type"] == "image/png" and png.content.startswith(b"\x89PNG")


# issue 37: the same requests in other words, as a user of the clients types them
@pytest.mark.parametrize("question", ["価格転嫁って可能？", "値上げを取引先にお願いしてもいいの？"])
def test_can_i_pass_on_prices_in_casual_words_is_answered_directly_with_its_source(
        live_server: LiveServer, question: str) -> None:
    messages = chat(live_server.url, open_session(live_server.url), question)
    done = messages[-1]["content"]
    answered = done.split("使用中]*")[-1].strip()  # after the tool markers
    assert answered.startswith("はい") and "判断できませんでした" not in done
    assert "を求めることができます。" in done and "出典: price_pass_through_basics.md" in done


@pytest.mark.parametrize("request_", ["原価がいくら上がったのか知りたい",
                                      "コストアップの影響額を算出したい"])
def test_asking_for_the_cost_increase_in_other_words_proposes_the_cost_step_and_asks_numbers(
        live_server: LiveServer, request_: str) -> None:
    asked = chat(live_server.url, open_session(live_server.url), request_)
    assert next(m for m in asked if m["type"] == "step_update")["step"] == "STEP_0_CHECK_3"
    done = asked[-1]["content"]
    assert "「原価計算の実施」のステップで" in done and "STEP_" not in done
    assert "材料費 400円→480円" in done
    assert "calculator" not in [m.get("tool") for m in asked if m["type"] == "tool_use"]


@pytest.mark.parametrize("request_", ["図示してもらえますか", "フローを図で見せて"])
def test_draw_it_in_other_words_shows_the_steps_process_alone(
        live_server: LiveServer, request_: str) -> None:
    session = open_session(live_server.url)
    chat(live_server.url, session, "原価計算のやり方を教えてください")
    messages = chat(live_server.url, session, request_)
    assert [m["type"] for m in messages].count("diagram") == 1
    assert [m.get("tool") for m in messages if m["type"] == "tool_use"] == ["generate_diagram"]
    assert "「原価計算の実施」の進め方を図にしました" in messages[-1]["content"]


# issue 49, point 5: what the clients show, as they show it
def test_each_tool_shows_once_per_question_on_the_seed_clients_screen(
        live_server: LiveServer) -> None:
    session = open_session(live_server.url)
    for question in ("材料費が1,200円から1,380円に上がりました。値上げ額はいくらですか",
                     "原材料費が上がって困っています。価格転嫁はできますか？"):
        messages = chat(live_server.url, session, question)
        tools = [m["tool"] for m in messages if m["type"] == "tool_use"]
        assert len(tools) == len(set(tools)), tools
        shown = screen(messages).text
        assert all(shown.count(f"*[{tool} を使用中]*") == 1 for tool in tools), shown
    assert "はい、価格転嫁はできます。" in messages[-1]["content"]


def test_a_quoted_table_reaches_the_client_as_table_lines(live_server: LiveServer) -> None:
    messages = chat(live_server.url, open_session(live_server.url),
                    "取引先ごとの取引条件の一覧表はどう作ればいいですか")
    lines = messages[-1]["content"].splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("> | 取引先 |"))
    assert lines[header + 1].startswith("> |---|") and lines[header - 1] == ">"
