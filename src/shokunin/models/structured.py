"""Structured output that survives a model which does not give clean JSON.

``with_structured_output`` trusts the provider: a local OpenAI-compatible server that
ignores ``response_format``, or a model that wraps its JSON in a fenced block or answers in
prose, makes the provider SDK raise while parsing (a ``ValueError``), and the whole run
fails on an internal classification. ``ask_structured`` asks the same way and reads a reply
that did not parse leniently (a fenced block, or the first JSON object in the text); when
the SDK raised, so the reply is lost, it asks once more for plain JSON and reads that.
What still cannot be read comes back as ``None`` with the reply's text, so the caller
decides (the Advisor looks for a step id in it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AnyMessage, HumanMessage
from langgraph.constants import TAG_NOSTREAM
from pydantic import BaseModel, ValidationError

T = TypeVar("T", bound=BaseModel)
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


@dataclass(frozen=True)
class Structured(Generic[T]):
    """The parsed answer (None when it could not be read), the reply's text, and its token
    usage (``usage_metadata`` of the reply, when the provider gave it)."""

    parsed: T | None
    text: str
    usage: dict[str, Any]


async def ask_structured(model: BaseChatModel, schema: type[T],
                         messages: list[AnyMessage]) -> Structured[T]:
    """Ask ``model`` for a ``schema`` object; never raises for an unreadable reply."""
    try:
        answer = await model.with_structured_output(schema, include_raw=True).ainvoke(messages)
    except ValueError:  # the SDK could not parse the reply (ValidationError is one too)
        answer = None
    if isinstance(answer, dict):
        raw = answer.get("raw")
        text = str(getattr(raw, "content", "") or "")
        usage = dict(getattr(raw, "usage_metadata", None) or {})
        parsed = answer.get("parsed")
        if parsed is not None:
            return Structured(_as(schema, parsed), text, usage)
        return Structured(read_json(schema, text), text, usage)
    # The SDK raised, so the reply's text is lost: once more as plain text (its tokens are
    # no answer text), read leniently.
    reply = await model.with_config(tags=[TAG_NOSTREAM]).ainvoke([*messages, HumanMessage(
        "Reply with one JSON object only, no prose, with these fields: "
        f"{json.dumps(schema.model_json_schema()['properties'], ensure_ascii=False)}")])
    text = str(reply.content)
    usage = dict(getattr(reply, "usage_metadata", None) or {})
    return Structured(read_json(schema, text), text, usage)


def read_json(schema: type[T], text: str) -> T | None:
    """``schema`` read from ``text``: the whole text, a fenced block, or the first JSON
    object in it; None when none fits."""
    candidates = [text.strip(), *(m.group(1).strip() for m in _FENCE.finditer(text))]
    start = text.find("{")
    if start >= 0:
        try:
            obj, _ = json.JSONDecoder().raw_decode(text[start:])
            candidates.append(json.dumps(obj))
        except ValueError:
            pass
    for candidate in candidates:
        try:
            return schema.model_validate_json(candidate)
        except ValidationError:
            continue
    return None


def _as(schema: type[T], parsed: Any) -> T | None:
    if isinstance(parsed, schema):
        return parsed
    try:
        return schema.model_validate(parsed)
    except ValidationError:
        return None
