"""Answers a person can read (issue 49, point 5): the offline Advisor says はい or いいえ only
from a passage that states it for the question's case, never against a passage it shows;
a question of law is sent where the knowledge base sends people; leading sentences do not
hide the question; quotes that do not speak to the question are left out; each tool runs
once per question; the numbers it says it did not use are the ones it did not use; a
quoted table stays a table.

HELD_OUT are phrasings the rules were not tuned on: only the rules every answer must keep
are checked on them, never a wording."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from shokunin.agents.advisor.offline import quote
from shokunin.events import BaseEvent
from shokunin.runs import Runner
from tests.agents.advisor.conftest import answer, consult

LEGAL = "値上げをお願いしたら『来期から発注を減らす』と言われました。これって法的に問題ないんですか"
ORALLY = "値上げの申し入れは口頭だけで大丈夫ですか"
BARE = "価格転嫁はできますか？"
WITH_CONTEXT = "原材料費が上がって困っています。価格転嫁はできますか？"
# the rule that answers 「価格転嫁はできますか」, and that no other question may borrow
GENERIC_RULE = ("受注者は、コスト上昇を理由に、発注者に取引価格の引上げ（価格転嫁）を求めることが"
                "できます。")
ONE_ITEM = "材料費が1,200円から1,380円に上がりました。値上げ額はいくらですか"
# where the shipped knowledge base sends people with a question of law
CONTACTS = re.compile(r"下請かけこみ寺|公正取引委員会|よろず支援拠点")
INTERNAL = re.compile(r"search_knowledge_base|calculator|generate_diagram|web_search|run_code|"
                      r"\b(?![\w-]+\.md\b)[a-z]+_[a-z_]+\b|Intent|YesNo|Judgement|None|"
                      # a step's id (its title names it) and a search score mean nothing
                      r"STEP_?\d|CHECK_\d|スコア")
NODE = shutil.which("node")
MARKDOWN = Path(__file__).parents[3] / "src" / "shokunin" / "web" / "js" / "markdown.js"
HELD_OUT = ["下請代金を一方的に減らされました。違法ですか",
            "見積書なしで値上げを伝えてもいいですか",
            "取引先から『値上げするなら取引をやめる』と言われました。これは独禁法違反になりますか",
            "電話だけで値上げをお願いしても問題ないですか",
            "人件費が上がった分も価格転嫁できますか",
            "手形で支払うと言われたのですが、違法ではないですか"]


def _reply(events: list[BaseEvent]) -> str:
    """The answer after the line naming the step it answers from, if any."""
    text = answer(events)
    first, _, rest = text.partition("\n\n")
    return rest if first.endswith("の観点でお答えします。") else text


def _starts(events: list[BaseEvent]) -> Counter[str]:
    """How many times each tool started."""
    return Counter(e.name for e in events if e.kind == "tool_call")


def _quoted_chunks(text: str) -> list[str]:
    """The headings of the knowledge-base chunks the answer quotes in its numbered list."""
    return re.findall(r"^\d+\. \*\*(.+?)\*\*〔出典: ", text, re.MULTILINE)


def _first_quote(text: str) -> str:
    return next((line[2:] for line in text.splitlines() if line.startswith("> ")), "")


async def test_a_question_of_law_no_passage_settles_gets_no_yes_and_the_bases_contacts(
        advisor: Runner) -> None:
    text = _reply(await consult(advisor, LEGAL))
    assert not text.startswith(("はい", "いいえ")), text[:200]
    assert GENERIC_RULE not in text  # a passage on asking for a rise answers no question of law
    contacts = [line for line in text.splitlines() if CONTACTS.search(line)]
    assert contacts and all("〔出典: " in line for line in contacts), text
    # quoted as the knowledge base words them, not invented
    assert any(re.search(r"\*\*(下請かけこみ寺|公正取引委員会)\*\*：", line) for line in contacts)


async def test_no_yes_where_a_shown_passage_says_the_opposite(advisor: Runner) -> None:
    text = _reply(await consult(advisor, ORALLY))
    assert not text.startswith("はい") and "大丈夫です" not in text, text[:300]
    # the passage that speaks to 口頭だけ is what the answer rests on
    assert "口頭だけでなく書面" in _first_quote(text)


async def test_leading_sentences_do_not_hide_the_yes_no_question(advisor: Runner) -> None:
    bare = _reply(await consult(advisor, BARE))
    with_context = _reply(await consult(advisor, WITH_CONTEXT, thread="s2"))
    assert bare.startswith("はい、価格転嫁はできます。")
    assert with_context.split("\n\n")[:2] == bare.split("\n\n")[:2]
    after = _reply(await consult(advisor, "価格転嫁はできますか。よろしくお願いします。",
                                 thread="s3"))
    assert after.split("\n\n")[:2] == bare.split("\n\n")[:2]


async def test_quotes_that_do_not_speak_to_the_question_are_left_out(advisor: Runner) -> None:
    legal = _reply(await consult(advisor, LEGAL))
    # today's answer quoted 「発注者に求められる行動」 and a contract section's 「注意点」
    assert _quoted_chunks(legal) == [], legal
    gift = _reply(await consult(advisor, "取引先の担当者にお歳暮を贈ってもいいですか",
                                thread="s2"))
    assert "見つかりませんでした" in gift and _quoted_chunks(gift) == []


async def test_answers_name_steps_by_title_and_show_no_ids_or_scores(advisor: Runner) -> None:
    # in focus (「…の観点でお答えします」), proposed (「このご質問は…」), asked back, drawn
    said = [answer(await consult(advisor, "原価計算のやり方を教えてください")),
            answer(await consult(advisor, "労務費の上昇分も価格転嫁できますか？")),
            answer(await consult(advisor, "価格転嫁のステップを図にしてください")),
            answer(await consult(advisor, "原価を計算したい", thread="s2")),
            answer(await consult(advisor, "こんにちは", thread="s3")),
            answer(await consult(advisor, "価格転嫁の進め方を教えて", thread="s4"))]
    for text in said:
        assert not INTERNAL.search(text), (INTERNAL.search(text), text[:300])
    assert "「**原価計算の実施**」の観点でお答えします。" in said[1]
    assert "このご質問は「" in said[1]  # proposes another step, by its title
    assert "〔出典: " in said[1]


@pytest.mark.parametrize("question", [
    "労務費の上昇分も価格転嫁できますか？",
    "労務費の上昇分も価格に反映できますか",
    "労務費の上昇分を価格転嫁することはできますか"])
async def test_a_yes_for_a_cost_rests_on_a_sentence_naming_that_cost(
        advisor: Runner, question: str) -> None:
    # the review's answer said はい from 「目標（希望額）：原価上昇分を全額反映し、…」, a
    # sentence on a negotiation's target that never names 労務費
    text = _reply(await consult(advisor, question))
    assert "目標（希望額）" not in _first_quote(text), text[:300]
    if text.startswith(("はい", "いいえ")):
        assert "労務費" in _first_quote(text), text[:300]


@pytest.mark.parametrize("question", [
    LEGAL, ORALLY, WITH_CONTEXT,
    ONE_ITEM, "材料費 400円→480円、労務費 300円→330円、経費 150円→160円、売値 1,100円"])
async def test_each_tool_runs_once_per_question(advisor: Runner, question: str) -> None:
    events = await consult(advisor, question)
    assert _starts(events)["search_knowledge_base"] <= 1
    calls = [(e.name, str(e.args)) for e in events if e.kind == "tool_call"]
    assert len(calls) == len(set(calls)), calls  # nothing computed or looked up twice


async def test_one_items_rise_is_computed_once(advisor: Runner) -> None:
    events = await consult(advisor, ONE_ITEM)
    assert _starts(events) == Counter({"calculator": 1, "search_knowledge_base": 1})
    assert "- 材料費: 1,200円 → 1,380円（+180円、+15%）" in answer(events)


async def test_numbers_said_again_are_not_called_unused(advisor: Runner) -> None:
    text = answer(await consult(
        advisor, "原価が1200円から1380円に上がりました。1380円と1200円の差額を、売値1200円に"
                 "上乗せすると利益100円は守れますか"))
    assert "次の数値は計算に使っていません: 100円（" in text, text
    again = answer(await consult(advisor, "原価 1,200円→1,380円です。利益は100円で、来期も100円を"
                                          "目指します", thread="s2"))
    assert "次の数値は計算に使っていません: 100円（" in again, again
    assert "×" not in text or "× 1,380 ÷ 1,200" in text  # numbers formatted


def test_a_quoted_table_keeps_its_rows_and_gets_its_delimiter() -> None:
    header_only = quote("一覧表を作ると（列の例）。\n\n| 取引先 | 品目 | 現行単価 |\n\n"
                        "売上の大きい順に。")
    assert "> | 取引先 | 品目 | 現行単価 |\n> |---|---|---|" in header_only
    glued = quote("前の文です。\n| 費目 | 比率 |\n|---|---|\n| 材料費 | 40% |")
    assert glued == "> 前の文です。\n>\n> | 費目 | 比率 |\n> |---|---|\n> | 材料費 | 40% |"
    # the excerpt's end falls after the header row: its delimiter row still comes with it
    long = quote("説明。" * 129 + "\n\n| a | b |\n|---|---|\n| 1 | 2 |")
    assert "> | a | b |\n> |---|---|\n> …" in long


async def test_a_table_quoted_from_the_knowledge_base_arrives_as_a_table(
        advisor: Runner) -> None:
    text = answer(await consult(advisor, "取引先ごとの取引条件の一覧表はどう作ればいいですか"))
    lines = text.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("> | 取引先 |"))
    assert re.fullmatch(r"> \|(---\|)+", lines[header + 1]), lines[header - 1:header + 3]
    assert lines[header - 1] == ">"  # a blank line before it: no paragraph of pipes


@pytest.mark.parametrize("question", HELD_OUT)
async def test_held_out_questions_keep_the_rules(advisor: Runner, question: str) -> None:
    events = await consult(advisor, question)
    text = _reply(events)
    assert not INTERNAL.search(answer(events)), INTERNAL.search(answer(events))
    assert all(n <= 1 for n in _starts(events).values()), _starts(events)
    if text.startswith(("はい", "いいえ")):
        # a verdict rests on a passage on this case: it holds a word of the question
        # beyond the subject (値上げ, 価格転嫁, 取引先 name no case)
        asked = set(re.findall(r"[\u4e00-\u9fff]{2,}|[\u30a0-\u30ff]{2,}", question)) - {
            "値上", "価格転嫁", "取引先", "違法", "違反", "独禁法", "問題"}
        because = _first_quote(text)
        assert because != GENERIC_RULE
        assert any(word in because for word in asked), (asked, because)
        assert not (text.startswith("はい") and re.search(
            r"だけでなく|避け|べきではありません|できません", because))
    # a question of law; 「…しても問題ないですか」 asks whether the asker may do something
    if re.search(r"違法|違反|独禁法|法的|(?<!ても)(?<!でも)問題ない", question):
        contacts = [line for line in text.splitlines() if CONTACTS.search(line)]
        assert contacts and any("〔出典: " in line for line in contacts), text


@pytest.mark.skipif(NODE is None, reason="node is not on PATH: install Node 20 to run this test")
async def test_the_views_markdown_renders_the_quoted_table_as_a_table(advisor: Runner) -> None:
    text = answer(await consult(advisor, "取引先ごとの取引条件の一覧表はどう作ればいいですか"))
    script = ("import { renderMarkdown } from " + json.dumps(MARKDOWN.as_uri()) + ";\n"
              "let s = ''; process.stdin.on('data', d => s += d);\n"
              "process.stdin.on('end', () => process.stdout.write(renderMarkdown(s)));")
    html = subprocess.run([NODE or "node", "--input-type=module", "-e", script], input=text,
                          capture_output=True, text=True, timeout=60, check=True).stdout
    assert "<th>取引先</th>" in html and "| 取引先 |" not in html
