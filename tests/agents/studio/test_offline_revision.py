"""An offline revision says what it changed in the draft, never what it was asked (issue
48.2): an explicit replacement is made in the body; other feedback is said to be not
reflected, with what would reflect it."""

from __future__ import annotations

from shokunin.agents.studio.brains import Job, OfflineBrain
from shokunin.engine import Engine
from tests.agents.studio.conftest import CONCEPT, pending, settle, started


def _job(feedback: str) -> Job:
    return Job("character", "character_specs", "キャラクター設定", "雨の街", CONCEPT,
               feedback=feedback, attempt=1)


def _body(content: dict) -> str:
    return "\n".join(s["body"] for s in content["sections"])


async def test_free_feedback_is_not_titled_as_reflected_when_the_body_is_unchanged() -> None:
    before = await OfflineBrain().produce(_job(""))
    after = await OfflineBrain().produce(_job("敵をもっと増やして"))
    assert "を反映" not in after.summary
    assert "指摘「敵をもっと増やして」は本文に反映していません" in after.summary
    assert "オフラインでは本文を書き換えられません" in after.summary
    [*sections, answer] = after.content["sections"]
    assert sections == before.content["sections"]  # the draft itself is the same
    assert "敵 2 種" in _body(after.content)
    assert answer["heading"] == "レビューへの対応" and "SHOKUNIN_MODEL" in answer["body"]


async def test_an_explicit_replacement_is_made_in_the_body_and_said() -> None:
    after = await OfflineBrain().produce(_job("「敵 2 種」を「敵 3 種」にしてください"))
    body = _body(after.content)
    assert "敵 3 種" in body and "敵 2 種。" not in body
    assert after.summary.endswith("(修正 1 回目: 「敵 2 種」を「敵 3 種」に変更)")
    missing = await OfflineBrain().produce(_job("「ドラゴン」を「竜」に"))
    assert "「ドラゴン」は本文にないため変更なし" in missing.summary
    mixed = await OfflineBrain().produce(_job("敵 2 種 → 敵 4 種\nもっと明るい雰囲気に"))
    assert "敵 4 種" in _body(mixed.content)
    assert "「敵 2 種」を「敵 4 種」に変更。ほかの指摘は本文に反映していません" in mixed.summary


async def test_a_requested_change_through_the_pipeline_reads_the_new_draft(
        services: Engine) -> None:
    studio = services.studio
    project, first = await started(services)
    await studio.resolve(first["id"], "changes_requested", "もっと明るく")
    await settle(services, project["id"])
    [second] = await pending(services, project["id"])
    assert "を反映" not in second["output"]["summary"]
    assert "本文に反映していません" in second["output"]["summary"]
    await studio.resolve(second["id"], "changes_requested",
                         "「核となる遊びを一つ」を「核となる遊びを二つ」に")
    await settle(services, project["id"])
    [third] = await pending(services, project["id"])
    assert "「核となる遊びを一つ」を「核となる遊びを二つ」に変更" in third["output"]["summary"]
    outputs = await studio.records.outputs(agent_id=first["agent_id"])
    assert "核となる遊びを二つ" in _body(outputs[-1]["content"])
