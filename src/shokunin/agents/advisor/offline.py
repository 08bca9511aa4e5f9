"""The Advisor without a model. It reads what the message asks (``intents``) and does that:

- a yes/no question gets a direct answer only from a sentence of the knowledge base that
  states it for the question's case, quoted with its source (``verdicts``); else what the
  sentences that speak to the case say, and that none settles it; a question of law also
  gets the places the knowledge base sends people to (``referral``);
- a calculation is done with the calculator tool on the user's own numbers
  (``cost_increase``); asked without numbers, it says what it can compute and which numbers
  to send, in which form;
- a picture with data is drawn as a chart; without data, the step's own process (the
  playbook's ``flow``) is drawn as a flowchart by the diagram tool;
- the cost-analysis form's result, sent back by the later origin client, is explained from
  its own figures and its chart data drawn (``cost_report``);
- anything else is answered with quotes from the knowledge base, with their sources.

The knowledge base is searched once per question, and only the chunks that speak to the
question are quoted (``relevance``).

It says plainly that it quotes rather than advises, and never answers another question than
the one asked: what it cannot do offline, it names."""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import AnyMessage
from langchain_core.tools import BaseTool

from shokunin.agents.advisor.cost_increase import OFFER, ask_for_numbers, cost_increase
from shokunin.agents.advisor.cost_report import chart_data, explain, read_report
from shokunin.agents.advisor.intents import Intent, YesNo, read_intent, without_process_words
from shokunin.agents.advisor.knowledge_tool import search_knowledge
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.agents.advisor.referral import Referral
from shokunin.agents.advisor.relevance import (
    Focus,
    Specificity,
    in_base_words,
    sources_section,
)
from shokunin.agents.advisor.steps import Settled, StepClassifier, StepDetection
from shokunin.agents.advisor.verdicts import Judgement, judge, restate
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.knowledge import KnowledgeIndex
from shokunin.runs import RunContext

EXCERPT_CHARS = 400
QUOTES = 3  # quoted at most
SEARCHED = 5  # chunks searched, of which those that speak to the question are quoted
QUOTED_SHARE = 0.6  # of the share of a question's words the best chunk holds, for another
MIN_SHARE = 0.2  # and at least this share of them, by weight
CASE_SHARE = 0.45  # of a yes/no question's words (by weight) a chunk holds to be quoted
REFERRALS = 3  # places to consult named for a question of law
SAID = 2  # sentences quoted that speak to a yes/no question no sentence settles
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
# the words of a request for a picture or a calculation: what is left is its subject
_REQUEST_WORDS = re.compile(
    r"図|グラフ|チャート|可視化|絵|フローチャート|説明|計算|算出|試算|して|ください|下さい|"
    r"ほしい|欲しい|お願い|したい|見せ|描い|書い|作っ|示し|教え|います|ます|です|でした|した|"
    r"で|を|に|は|の|て|も")
_HIRAGANA = re.compile(r"[\u3041-\u309f]")
_ROW = re.compile(r"^\s*\|.*\|\s*$")  # a table's row
_DELIMITER = re.compile(r"^\s*\|?\s*:?-{2,}:?\s*(\|\s*:?-{2,}:?\s*)*\|?\s*$")
TOOLS = ("calculator", "generate_diagram")


class CalculationFailed(ShokuninError):
    """The calculator refused an expression; the message is its reason."""

    status = 422
    code = ErrorCode.BAD_REQUEST


def _table_rows(lines: list[str]) -> list[str]:
    """Lines with every table a table: a row of pipes that no delimiter row follows (a
    document's header row listing columns) gets one, and a blank line before it (else it
    continues the paragraph above as one line of pipes)."""
    out: list[str] = []
    for i, line in enumerate(lines):
        row = _ROW.match(line)
        starts = row and not (out and _ROW.match(out[-1]))
        if starts and out and out[-1].strip():
            out.append("")
        out.append(line)
        if starts and not (i + 1 < len(lines) and _DELIMITER.match(lines[i + 1])):
            out.append("|" + "---|" * max(1, line.strip().strip("|").count("|") + 1))
    return out


def quote(text: str) -> str:
    """The start of a chunk as a Markdown quote, cut at a line end: a table stays a table
    (its header row is never cut from its delimiter row)."""
    lines, size = [], 0
    for line in _table_rows(text.strip().splitlines()):
        if size and size + len(line) > EXCERPT_CHARS and not _DELIMITER.match(line):
            lines.append("…")
            break
        lines.append(line)
        size += len(line)
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


def _speaking(focus: Focus, hits: list[dict[str, Any]], case: bool) -> list[int]:
    """The hits that speak to the question, by rank; one that merely shares its subject
    (価格転嫁) or a word of it does not. Of a yes/no question (``case``), a hit holds
    nearly half of the words of its case, by weight; of another, it holds most of what the
    best hit holds of its words (a long question's circumstances, 「20年前に結んだ」, are
    in no chunk). A document's list of its sources speaks to no question."""
    texts = ["" if sources_section(h["heading"])
             else in_base_words(f"{h['heading']}\n{h['text']}") for h in hits]
    shares = [focus.share(text) for text in texts]
    if case:
        return [i for i, share in enumerate(shares) if share >= CASE_SHARE]
    enough = max(MIN_SHARE, QUOTED_SHARE * max(shares, default=0.0))
    return [i for i, share in enumerate(shares) if share >= enough]


def plugins(ctx: RunContext, names: set[str]) -> dict[str, BaseTool]:
    """The run's registered tools of these names, adapted so each call is told to the run."""
    registry = ctx.services.tools
    if registry is None:
        return {}
    from shokunin.agents.tool_adapter import as_langchain_tools

    return {t.name: t for t in as_langchain_tools(registry, ctx) if t.name in names}


def _bare(intent: Intent) -> bool:
    """Whether the message is only a request (「図で説明して」, 「フローを図示してもらえますか」)
    or numbers to compute with, with no question of its own to look up. A subject is named
    in kanji, katakana or Latin letters: what is left in hiragana is grammar (もらえ, か)."""
    rest = _REQUEST_WORDS.sub("", re.sub(r"[\W\d_]", "", intent.rest))
    if intent.diagram is not None:
        rest = without_process_words(rest)
    return len(_HIRAGANA.sub("", rest)) < 2


class OfflineBrain:
    name = "offline"

    def __init__(self, playbook: Playbook, index: KnowledgeIndex) -> None:
        self.classifier = StepClassifier(playbook, index)
        self.index = index
        self.specificity = Specificity(index)
        self.referral = Referral(index)

    async def detect(self, message: str, playbook: Playbook,
                     history: list[AnyMessage]) -> StepDetection:
        intent = read_intent(message)
        # a request that needs a tool is about a step that recommends that tool
        needs = {"calculator"} if intent.calculation or intent.numbers else set()
        detection = self.classifier.detect(message, needs=needs)
        if intent.calculation and not intent.numbers and detection.confidence != "high":
            # asked without numbers and naming no step clearly, what is computed is the cost
            # increase: its step is the playbook's step for that calculation
            # (「コストアップの影響額を算出したい」 is not STEP_5's)
            offered = self.classifier.detect(OFFER, needs=needs)
            return offered.model_copy(update={"reasoning": (
                f"数値のない計算のご依頼のため、{OFFER}として判定: {offered.reasoning}")})
        return detection

    async def answer(self, ctx: RunContext, message: str, playbook: Playbook,
                     settled: Settled, profile: dict[str, Any],
                     history: list[AnyMessage]) -> str:
        if not _JAPANESE.search(message):
            return ("Offline (no model configured), the Advisor reads questions in Japanese "
                    f"against its Japanese knowledge base and playbook ({playbook.title}); I "
                    "found nothing in yours to go on. Ask in Japanese, or set SHOKUNIN_MODEL "
                    "for answers in English.")
        intent = read_intent(message)
        tools = plugins(ctx, set(TOOLS))
        step = settled.step if settled.step and settled.step != UNKNOWN else None
        report = read_report(message)
        if report is not None:  # the tool computed the figures: say what they mean
            parts = [explain(report)]
            given = chart_data(message)
            if given and "generate_diagram" in tools:
                parts.append(await self._chart(tools["generate_diagram"],
                                               "コスト高騰前と現在の比較", given))
            return "\n\n".join(parts)
        done: list[str] = []
        if intent.diagram is not None:
            done.append(await self._picture(tools.get("generate_diagram"), intent, message,
                                            playbook, step))
        if intent.numbers:
            done.append(await self._compute(tools.get("calculator"), intent))
        elif intent.calculation:
            focus = (f"「{playbook.title_of(step)}」のステップで、" if step else "")
            done.append(ask_for_numbers(focus))
        bare = bool(done) and (_bare(intent) or (intent.calculation and len(message) <= 30))
        parts: list[str] = []
        if settled.ask and not done and intent.verdict is None:
            if not self.classifier.about_subject(message):
                return self._ask_back(playbook, settled)
            # a question on the whole subject (「価格転嫁の進め方を教えて」): the whole process
            steps = "\n".join(f"{i}. {s.title}" for i, s in enumerate(playbook.steps, 1))
            parts.append(f"「{playbook.title}」は次のステップで進めます。どの段階のご相談かを"
                         f"教えていただければ、そのステップに絞ってお答えします。\n\n{steps}")
        # a step is named by its title: its id (STEP_0_CHECK_2) is for the event's data only
        if step and not settled.ask:
            # 「**…**」: bold closes before the bracket, or CommonMark leaves it open
            parts.append(f"「**{playbook.title_of(step)}**」の観点でお答えします。")
        parts += done
        if not bare:
            parts += await self._from_knowledge(ctx, message, intent)
        if settled.proposal:
            parts.append(f"このご質問は「{playbook.title_of(settled.proposal)}」のステップ"
                         "の内容に近いようです。このステップに切り替えますか？"
                         "（「はい」で切り替えます）")
        return "\n\n".join(parts)

    @staticmethod
    def _ask_back(playbook: Playbook, settled: Settled) -> str:
        steps = "\n".join(f"- {s.title}" for s in playbook.steps)
        near = settled.proposal
        guess = (f"（近いと思われるのは「{playbook.title_of(near)}」です。）\n"
                 if near else "")
        return (f"ご質問が「{playbook.title}」のどの段階のお話か、判断できませんでした。"
                f"{guess}次のどれに近いか、または状況をもう少し教えてください。\n\n{steps}")

    async def _from_knowledge(self, ctx: RunContext, message: str, intent: Intent) -> list[str]:
        question = intent.question
        # a yes/no question is looked up by what it asks of, in the knowledge base's words:
        # the sentences before it are its circumstances (「原材料費が上がって困っています。」)
        query = in_base_words(question.case).strip() if question else ""
        found = await search_knowledge(self.index, ctx, query or message, SEARCHED)
        hits = (found["result"] or {}).get("results", [])
        focus = self.specificity.focus(question.case if question else message)
        parts: list[str] = []
        cited: set[int] = set()
        if question is not None:
            judgement = judge(question, focus, hits)
            parts.append(self._judged(question, judgement))
            shown = ([judgement.because, *judgement.conditions] if judgement.because
                     else judgement.spoken[:SAID])
            cited = {f.chunk for f in shown if f is not None}
            if question.kind == "legality":
                parts += self._referral(question.case)
        quoted = [hits[i] for i in _speaking(focus, hits, question is not None)
                  if i not in cited][:QUOTES]
        if not quoted:
            if not parts:
                return ["ナレッジベースに該当する記述が見つかりませんでした。モデル未設定の"
                        "オフライン動作では、ナレッジベースにない内容にはお答えできません"
                        "（モデルを設定すると一般的な助言もできます）。"]
            return [*parts, "（モデル未設定のオフライン動作のため、ナレッジベースの記述をそのまま"
                            "引いてお答えしています。）"]
        parts.append("ナレッジベースの該当箇所です（モデル未設定のオフライン動作のため、要約や"
                     "助言の生成はせず、関連する記述をそのまま引用しています）。")
        for i, hit in enumerate(quoted, start=1):
            # the search score stays in the tool's result: it means nothing to a reader
            parts.append(f"{i}. **{hit['heading']}**〔出典: {hit['source']}〕\n\n"
                         f"{quote(hit['text'])}")
        return parts

    @staticmethod
    def _judged(question: YesNo, judgement: Judgement) -> str:
        """The answer to a yes/no question: the verdict with the sentence it rests on, or
        what the sentences that speak to it say, and that none settles it."""
        if judgement.because is not None and judgement.yes is not None:
            because = judgement.because
            lines = [f"{restate(question, judgement.yes)}ナレッジベースには次のようにあります"
                     f"〔出典: {because.source}「{because.heading}」〕。", f"> {because.text}"]
            if judgement.conditions:
                lines.append("条件・進め方として、次の記述もあります。\n\n" + "\n".join(
                    f"- {c.text}〔出典: {c.source}〕"
                    + "".join(f"\n  - {item}" for item in c.items)
                    for c in judgement.conditions))
            return "\n\n".join(lines)
        lines = ["このご質問に「はい／いいえ」で答える記述は、ナレッジベースに見つかりません"
                 "でした（オフライン動作のため、推測で結論は出しません）。"]
        said = judgement.spoken[:SAID]
        if judgement.disputed:
            lines[0] = ("ナレッジベースには、このご質問について結論の異なる記述があるため、"
                        "「はい／いいえ」ではお答えしません（オフライン動作のため、推測で結論は"
                        "出しません）。")
        if said:
            lines.append("このご質問にかかわる記述には、次のようにあります。")
            lines += [f"> {f.text}〔出典: {f.source}「{f.heading}」〕" for f in said]
        return "\n\n".join(lines)

    def _referral(self, case: str) -> list[str]:
        """Where the knowledge base sends a question of law, in its own words."""
        places = self.referral.for_question(case, REFERRALS)
        if not places:
            return []
        return ["法律上の問題にあたるかどうかの相談先として、ナレッジベースは次の窓口を"
                "挙げています。\n\n" + "\n".join(
                    f"- {p.text}〔出典: {p.source}「{p.heading}」〕" for p in places)]

    @staticmethod
    async def _compute(calculator: BaseTool | None, intent: Intent) -> str:
        if calculator is None:
            return ("電卓ツールが使えないため、計算できませんでした（ツールの設定を"
                    "確認してください）。")

        async def calculate(expression: str) -> str:
            answer = json.loads(await calculator.ainvoke({"expression": expression}))
            if not answer.get("success"):
                raise CalculationFailed(f"`{expression}`: {answer.get('error')}")
            result = answer["result"]
            return str(result.get("value", result) if isinstance(result, dict) else result)

        try:
            return await cost_increase(intent, calculate)
        except CalculationFailed as failed:
            return f"計算できませんでした（{failed}）。"

    async def _picture(self, tool: BaseTool | None, intent: Intent, message: str,
                       playbook: Playbook, step: str | None) -> str:
        if tool is None:
            return "図生成ツールが使えないため、図は作成できませんでした。"
        sentences = [s.strip() for s in re.split(r"[。\n]", message) if s.strip()]
        given = chart_data(message)
        if given and intent.diagram in ("bar", "line"):
            title = next((s for s in sentences if not re.search(r"[\d{}\[\]\"]", s)), "")
            title = re.sub(r"[をの]?(グラフ|図|チャート|可視化).*$", "", title)[:30] or "図"
            return await self._chart(tool, title, given, intent.diagram)
        data = [s for s in sentences if re.search(r"\d", s)]
        if data and intent.diagram in ("bar", "line"):
            # the sentences holding numbers are the data; the first without is the title
            # ("原価の内訳をグラフにしてください" -> 原価の内訳)
            title = next((s for s in sentences if not re.search(r"\d", s)), "")
            title = re.sub(r"[をの]?(グラフ|図|チャート|可視化).*$", "", title)[:30] or "図"
            answer = json.loads(await tool.ainvoke({
                "diagram_type": intent.diagram, "title": title, "description": "\n".join(data)}))
            if answer.get("success"):
                return f"図を作成しました（図生成ツール）。{answer['result']['summary']}"
            return ("お送りいただいた数値からグラフを作れませんでした。「- 材料費: 450」のように、"
                    "1行に項目と数値を1つずつ書いてください。")
        if intent.diagram in ("bar", "line") and not _bare(intent):
            # a chart of something named (「原価の内訳を円グラフに」) needs its numbers
            return ("グラフを描くには数値が必要です。次のように、1行に項目と数値を1つずつ書いて"
                    "送ってください（図生成ツールで描きます）。\n- 材料費: 450\n- 労務費: 300\n"
                    "- 経費: 150")
        return await self._draw_flow(tool, playbook, step)

    @staticmethod
    async def _chart(tool: BaseTool, title: str, data: dict[str, float],
                     kind: str = "bar") -> str:
        """A chart of data given as labels and values."""
        answer = json.loads(await tool.ainvoke({
            "diagram_type": kind, "title": title,
            "description": json.dumps(data, ensure_ascii=False)}))
        if answer.get("success"):
            return f"図を作成しました（図生成ツール）。{answer['result']['summary']}"
        return f"図を作成できませんでした（{answer.get('error')}）。"

    @staticmethod
    async def _draw_flow(tool: BaseTool, playbook: Playbook, step: str | None) -> str:
        """The step's own process, or the playbook's steps when no step is in focus."""
        current = playbook.step(step)
        if current is not None and current.flow:
            title, stages = f"{current.id} {current.title}の進め方", current.flow
            what = (f"「{current.title}」の進め方を図にしました。"
                    f"{len(stages)}つの段階を順に進めます: {' → '.join(stages)}。")
        else:
            stages = [f"{s.id} {s.title}" for s in playbook.steps]
            title = playbook.title
            what = (f"「{playbook.title}」の全体の流れを図にしました（{len(stages)}ステップ）。"
                    + (f"現在は「{current.title}」です。" if current else
                       "ご相談の段階が決まると、そのステップの進め方を図にできます。"))
        answer = json.loads(await tool.ainvoke({
            "diagram_type": "flowchart", "title": title, "description": " → ".join(stages)}))
        if answer.get("success"):
            return what
        return f"図を作成できませんでした（{answer.get('error')}）。"
