"""The Advisor offline on its labelled question set (bench/advisor_questions.yaml): step
accuracy of the offline classifier (a question labelled UNKNOWN is right when nothing is
detected), and the knowledge search's hit rate: the labelled source file among the top 3
chunks. Also the confidence the classifier gave its right and wrong answers.

Then its answers, each question asked of the whole offline agent (shipped playbook,
knowledge base and tools): how often a tool ran twice with the same input, how many
knowledge-base chunks each answer quotes and whether the labelled source is among them;
and its verdicts on the yes/no questions of bench/advisor_verdicts.yaml: right, a wrong
はい/いいえ (the opposite, or one where the knowledge base settles nothing), or none where
one was due.

    python bench/advisor_questions.py [--show-misses]
"""

from __future__ import annotations

import argparse
import asyncio
import re
import tempfile
from collections import Counter
from pathlib import Path

import yaml
from rich.console import Console
from rich.table import Table

from shokunin.agents.advisor import StepClassifier, load_playbook
from shokunin.config import Settings
from shokunin.knowledge import KnowledgeIndex

QUESTIONS = Path(__file__).with_name("advisor_questions.yaml")
VERDICTS = Path(__file__).with_name("advisor_verdicts.yaml")


async def _answers(questions: list[str]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each question's answer and its tool calls (name, arguments), each on its own thread."""
    from shokunin.agents.advisor import advisor_agent
    from shokunin.runs import MemoryBus, Runner, RunServices
    from shokunin.store import Store, close_checkpointer, open_checkpointer
    from shokunin.tools import ToolRegistry

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        settings = Settings(data_dir=folder / "data", model="offline")
        store = await Store.open(f"sqlite+aiosqlite:///{folder / 'events.db'}")
        checkpointer = await open_checkpointer(store)
        runner = Runner(store, MemoryBus(), folder / "workspaces", RunServices(
            settings=settings, tools=ToolRegistry.from_settings(settings, log_unavailable=False),
            checkpointer=checkpointer))
        agent = advisor_agent(settings, checkpointer)
        runner.register(agent)
        out = []
        try:
            for i, question in enumerate(questions):
                run_id = await runner.start("advisor", f"q{i}", {"message": question})
                events = [e async for e in runner.stream(run_id)]
                out.append(("".join(getattr(e, "text", "") for e in events if e.kind == "text"),
                            [(e.name, repr(e.args)) for e in events if e.kind == "tool_call"]))
        finally:
            await runner.shutdown()
            await agent.aclose()
            await close_checkpointer(checkpointer)
            await store.close()
    return out


def _said(text: str) -> str:
    """The answer's verdict: yes, no or none."""
    first, _, rest = text.partition("\n\n")
    text = rest if first.endswith("の観点でお答えします。") else text
    return "yes" if text.startswith("はい") else "no" if text.startswith("いいえ") else "none"


def answer_tables(questions: list[dict], console: Console, show: bool) -> None:
    answered = asyncio.run(_answers([q["question"] for q in questions]))
    twice = sum(len(calls) != len(set(calls)) for _, calls in answered)
    quoted = [re.findall(r"^\d+\. \*\*.+?\*\*〔出典: ([^、〕]+)", text, re.M)
              for text, _ in answered]
    labelled = [(q["source"], sources) for q, sources in zip(questions, quoted, strict=True)
                if q.get("source")]
    table = Table(title=f"Advisor offline answers, {len(questions)} labelled questions")
    for column in ("a tool ran twice", "chunks quoted per answer", "answers quoting none",
                   "labelled source quoted"):
        table.add_column(column, justify="right")
    table.add_row(str(twice), f"{sum(map(len, quoted)) / len(quoted):.2f}",
                  str(sum(not q for q in quoted)),
                  f"{sum(s in q for s, q in labelled)}/{len(labelled)}")
    console.print(table)
    verdicts = __import__("yaml").safe_load(VERDICTS.read_text(encoding="utf-8"))
    said = [_said(text) for text, _ in asyncio.run(_answers([v["question"] for v in verdicts]))]
    table = Table(title=f"Verdicts on {len(verdicts)} labelled yes/no questions")
    for column in ("questions", "right", "wrong はい/いいえ", "none where one was due"):
        table.add_column(column, justify="right")
    for label, tuned in (("tuned on", True), ("held out", False)):
        rows = [(v, s) for v, s in zip(verdicts, said, strict=True)
                if bool(v.get("tuned")) == tuned]
        table.add_row(f"{label}: {len(rows)}", str(sum(v["verdict"] == s for v, s in rows)),
                      str(sum(s != "none" and v["verdict"] != s for v, s in rows)),
                      str(sum(s == "none" and v["verdict"] != "none" for v, s in rows)))
    console.print(table)
    if show:
        for v, s in zip(verdicts, said, strict=True):
            if v["verdict"] != s:
                console.print(f"verdict {s} for {v['verdict']}: {v['question']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show-misses", action="store_true")
    args = parser.parse_args()
    settings = Settings()
    questions = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))
    console = Console()
    with tempfile.TemporaryDirectory() as tmp:
        index = KnowledgeIndex(Path(tmp) / "kb.sqlite")
        index.ingest(settings.knowledge_dir)
        classifier = StepClassifier(load_playbook(settings.advisor_playbook), index)
        per_step: dict[str, Counter[str]] = {}
        confidence: Counter[tuple[str, bool]] = Counter()
        misses = []
        for item in questions:
            label, question = item["step"], item["question"]
            detection = classifier.detect(question)
            right = detection.step == label
            confidence[(detection.confidence, right)] += 1
            counts = per_step.setdefault(label, Counter())
            counts["questions"] += 1
            counts["step right"] += right
            if not right:
                misses.append(f"step {detection.step} ({detection.confidence}) for {label}: "
                              f"{question}")
            if item.get("source"):
                top = [h.source for h in index.search(question, 3)]
                counts["with source"] += 1
                counts["source in top 3"] += item["source"] in top
                if item["source"] not in top:
                    misses.append(f"source {item['source']} not in {top}: {question}")
        index.close()
    table = Table(title=f"Advisor offline, {len(questions)} labelled questions")
    for column in ("step", "questions", "step right", "source in top 3"):
        table.add_column(column, justify="right")
    total: Counter[str] = Counter()
    for step, counts in per_step.items():
        total.update(counts)
        table.add_row(step, str(counts["questions"]), str(counts["step right"]),
                      f"{counts['source in top 3']}/{counts['with source']}"
                      if counts["with source"] else "-")
    table.add_row("all", str(total["questions"]),
                  f"{total['step right']} ({total['step right'] / total['questions']:.0%})",
                  f"{total['source in top 3']}/{total['with source']} "
                  f"({total['source in top 3'] / total['with source']:.0%})")
    console.print(table)
    console.print("confidence of right / wrong steps: " + ", ".join(
        f"{level} {confidence[(level, True)]}/{confidence[(level, False)]}"
        for level in ("high", "medium", "low")))
    if args.show_misses:
        for miss in misses:
            console.print(f"miss: {miss}")
    answer_tables(questions, console, args.show_misses)


if __name__ == "__main__":
    main()
