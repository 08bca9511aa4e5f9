"""The Advisor without a model. It reads what the message asks (``intents``) and does that:

- a yes/no question gets a direct answer taken from the knowledge base, with the sentence
  it rests on and its source (``verdicts``), or says that the base states no verdict;
- a calculation is done with the calculator tool on the user's own numbers
  (``cost_increase``); asked without numbers, it says what it can compute and which numbers
  to send, in which form;
- a picture with data is drawn as a chart; without data, the step's own process (the
  playbook's ``flow``) is drawn as a flowchart by the diagram tool;
- the cost-analysis form's result, sent back by the later origin client, is explained from
  its own figures and its chart data drawn (``cost_report``);
- anything else is answered with quotes from the knowledge base, with their sources.

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
from shokunin.agents.advisor.intents import Intent, read_intent, without_process_words
from shokunin.agents.advisor.knowledge_tool import search_knowledge
from shokunin.agents.advisor.playbook import UNKNOWN, Playbook
from shokunin.agents.advisor.steps import Settled, StepClassifier, StepDetection
from shokunin.agents.advisor.verdicts import direct_answer, in_base_words, restate
from shokunin.errors import ErrorCode, ShokuninError
from shokunin.knowledge import KnowledgeIndex
from shokunin.runs import RunContext

EXCERPT_CHARS = 400
QUOTES = 3
_JAPANESE = re.compile(r"[\u3040-\u30ff\u3400-\u9fff]")
# the words of a request for a picture or a calculation: what is left is its subject
_REQUEST_WORDS = re.compile(
    r"図|グラフ|チャート|可視化|絵|フローチャート|説明|計算|算出|試算|して|ください|下さい|"
    r"ほしい|欲しい|お願い|したい|見せ|描い|書い|作っ|示し|教え|います|ます|です|でした|した|"
    r"で|を|に|は|の|て|も")
_HIRAGANA = re.compile(r"[\u3041-\u309f]")
TOOLS = ("calculator", "generate_diagram")


class CalculationFailed(ShokuninError):
    """The calculator refused an expression; the message is its reason."""

    status = 422
    code = ErrorCode.BAD_REQUEST


def quote(text: str) -> str:
    """The start of a chunk as a Markdown quote, cut at a line end (tables stay tables)."""
    lines, size = [], 0
    for line in text.strip().splitlines():
        if size and size + len(line) > EXCERPT_CHARS:
            lines.append("…")
            break
        lines.append(line)
        size += len(line)
    return "\n".join(f"> {line}" if line.strip() else ">" for line in lines)


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
            focus = (f"{step}「{playbook.title_of(step)}」のステップで、" if step else "")
            done.append(ask_for_numbers(focus))
        bare = bool(done) and (_bare(intent) or (intent.calculation and len(message) <= 30))
        parts: list[str] = []
        if settled.ask and not done and intent.verdict is None:
            if not self.classifier.about_subject(message):
                return self._ask_back(playbook, settled)
            # a question on the whole subject (「価格転嫁の進め方を教えて」): the whole process
            steps = "\n".join(f"{i}. {s.id}: {s.title}" for i, s in enumerate(playbook.steps, 1))
            parts.append(f"「{playbook.title}」は次のステップで進めます。どの段階のご相談かを"
                         f"教えていただければ、そのステップに絞ってお答えします。\n\n{steps}")
        if step and not settled.ask:
            # 「**…**」: bold closes before the bracket, or CommonMark leaves it open
            parts.append(f"{step}「**{playbook.title_of(step)}**」の観点でお答えします。")
        parts += done
        if not bare:
            parts += await self._from_knowledge(ctx, message, intent)
        if settled.proposal:
            parts.append(f"このご質問は {settled.proposal}「{playbook.title_of(settled.proposal)}」"
                         "の内容に近いようです。このステップに切り替えますか？"
                         "（「はい」で切り替えます）")
        return "\n\n".join(parts)

    @staticmethod
    def _ask_back(playbook: Playbook, settled: Settled) -> str:
        steps = "\n".join(f"- {s.id}: {s.title}" for s in playbook.steps)
        near = settled.proposal
        guess = (f"（近いと思われるのは {near}「{playbook.title_of(near)}」です。）\n"
                 if near else "")
        return (f"ご質問が「{playbook.title}」のどの段階のお話か、判断できませんでした。"
                f"{guess}次のどれに近いか、または状況をもう少し教えてください。\n\n{steps}")

    async def _from_knowledge(self, ctx: RunContext, message: str, intent: Intent) -> list[str]:
        # a yes/no question is looked up by what it asks, in the knowledge base's words
        topic = in_base_words(intent.topic).strip() if intent.verdict else ""
        found = await search_knowledge(self.index, ctx, topic or message, QUOTES)
        hits = (found["result"] or {}).get("results", [])
        answer = direct_answer(topic, intent.verdict, hits) if intent.verdict else None
        subject = self.classifier.subject_in(topic)
        if intent.verdict and answer is None and subject:
            # asked of the playbook's own subject (「うちみたいな小さい会社でも価格転嫁できる？」):
            # what the base says of the subject itself, which the user's circumstances
            # (会社, コスト) outrank in a search for the whole question
            again = await search_knowledge(self.index, ctx, subject, QUOTES)
            more = (again["result"] or {}).get("results", [])
            answer = direct_answer(topic, intent.verdict, more)
            hits = more if answer else hits
        if not hits:
            return ["ナレッジベースに該当する記述が見つかりませんでした。モデル未設定のオフライン"
                    "動作では、ナレッジベースにない内容にはお答えできません（SHOKUNIN_MODEL を"
                    "設定すると一般的な助言もできます）。"]
        parts: list[str] = []
        if intent.verdict is not None:
            if answer is None:
                parts.append("このご質問に「はい／いいえ」で答える記述は、ナレッジベースに見つかり"
                             "ませんでした（オフライン動作のため、推測で結論は出しません）。"
                             "関連する記述を引用します。")
            else:
                because = answer.because
                lines = [f"{restate(message, intent.verdict, answer.yes)}ナレッジベースには"
                         f"次のようにあります〔出典: {because.source}「{because.heading}」〕。",
                         f"> {because.text}"]
                if answer.conditions:
                    lines.append("条件・進め方として、次の記述もあります。\n\n" + "\n".join(
                        f"- {c.text}〔出典: {c.source}〕"
                        + "".join(f"\n  - {item}" for item in c.items)
                        for c in answer.conditions))
                parts.append("\n\n".join(lines))
                # the chunks the direct answer already cites are not quoted again
                cited = {c.chunk for c in (answer.because, *answer.conditions)}
                hits = [h for i, h in enumerate(hits) if i not in cited]
        if not hits:
            return [*parts, "（モデル未設定のオフライン動作のため、ナレッジベースの記述をそのまま"
                            "引いてお答えしています。）"]
        parts.append("ナレッジベースの該当箇所です（モデル未設定のオフライン動作のため、要約や"
                     "助言の生成はせず、関連する記述をそのまま引用しています）。")
        for i, hit in enumerate(hits, start=1):
            parts.append(f"{i}. **{hit['heading']}**〔出典: {hit['source']}、"
                         f"スコア {hit['score']:.2f}〕\n\n{quote(hit['text'])}")
        return parts

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
            what = (f"{current.id}「{current.title}」の進め方を図にしました。"
                    f"{len(stages)}つの段階を順に進めます: {' → '.join(stages)}。")
        else:
            stages = [f"{s.id} {s.title}" for s in playbook.steps]
            title = playbook.title
            what = (f"「{playbook.title}」の全体の流れを図にしました（{len(stages)}ステップ）。"
                    + (f"現在は {current.id}「{current.title}」です。" if current else
                       "ご相談の段階が決まると、そのステップの進め方を図にできます。"))
        answer = json.loads(await tool.ainvoke({
            "diagram_type": "flowchart", "title": title, "description": " → ".join(stages)}))
        if answer.get("success"):
            return what
        return f"図を作成できませんでした（{answer.get('error')}）。"
