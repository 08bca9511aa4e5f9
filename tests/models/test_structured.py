"""ask_structured against a real OpenAI-compatible wire: a reply the provider SDK cannot
parse is read leniently or comes back unread, never raised."""

from __future__ import annotations

import json

from langchain_core.messages import HumanMessage
from langchain_openai import ChatOpenAI
from pydantic import BaseModel

from shokunin.models import ask_structured
from tests.fake_openai import API_KEY, FakeOpenAI, Reply


class Verdict(BaseModel):
    step: str
    confidence: str


def _model(fake: FakeOpenAI) -> ChatOpenAI:
    return ChatOpenAI(model="fake-gpt", base_url=fake.base_url, api_key=API_KEY,
                      stream_usage=True)  # as models.resolve makes it


async def test_a_clean_json_reply_is_parsed_in_one_call() -> None:
    with FakeOpenAI() as fake:
        fake.script(Reply(json.dumps({"step": "S1", "confidence": "high"})))
        answer = await ask_structured(_model(fake), Verdict, [HumanMessage("q")])
        assert answer.parsed == Verdict(step="S1", confidence="high")
        assert len(fake.requests) == 1


async def test_prose_then_fenced_json_is_read_from_the_second_plain_call() -> None:
    with FakeOpenAI() as fake:
        fake.script(Reply("I think it is S2."),
                    Reply('Sure:\n```json\n{"step": "S2", "confidence": "low"}\n```'))
        answer = await ask_structured(_model(fake), Verdict, [HumanMessage("q")])
        assert answer.parsed == Verdict(step="S2", confidence="low")
        assert "response_format" not in fake.requests[1]  # the second asks as plain text


async def test_prose_twice_comes_back_unread_with_its_text() -> None:
    with FakeOpenAI() as fake:
        fake.script(Reply("no idea"), Reply("still no idea, sorry"))
        answer = await ask_structured(_model(fake), Verdict, [HumanMessage("q")])
        assert answer.parsed is None and answer.text == "still no idea, sorry"
