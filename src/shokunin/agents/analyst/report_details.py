"""How an answer was computed, in a report file: each decision in words, each cell's code
and what it printed, behind one closed disclosure (「計算の詳細」, "How this was computed")
after the answer, in Markdown (a ``<details>`` block, as Git hosts and notebooks render it)
and in HTML. Nothing inside reads as the answer: a person opens it to check the work."""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

from shokunin import events as ev
from shokunin.agents.analyst.inert_markdown import inert

_WORDS = {
    "ja": {"details": "計算の詳細", "reason": "判断", "run_code": "計算", "output": "出力",
           "failed": "失敗", "decide_run_code": "コードを書いて計算します（{instruction}）",
           "decide_ask": "先に確認します: {question}", "decide_report": "結果から回答をまとめます",
           "cell": "{n} 回目のコード"},
    "en": {"details": "How this was computed", "reason": "Decision", "run_code": "Calculation",
           "output": "Output", "failed": "Failed",
           "decide_run_code": "compute it with code ({instruction})",
           "decide_ask": "ask first: {question}", "decide_report": "answer from the results",
           "cell": "code, run {n}"},
}


def _said(decision: dict[str, object], words: dict[str, str]) -> str:
    action = decision.get("action")
    if action == "run_code":
        instruction = str(decision.get("analysis_instruction") or "").strip()
        return words["decide_run_code"].format(instruction=instruction)
    if action == "ask_clarification":
        return words["decide_ask"].format(question=decision.get("clarification_question") or "")
    return words["decide_report"]


def steps(events: Sequence[ev.BaseEvent], lang: str) -> list[tuple[str, str, str]]:
    """The run's steps in order: ("reason", its name, the decision in words), ("code", its
    name, the code) and ("output" or "failed", its name, what the cell printed or raised)."""
    words = _WORDS["ja" if lang == "ja" else "en"]
    done: list[tuple[str, str, str]] = []
    cells = 0
    for event in events:
        if isinstance(event, ev.Debug) and isinstance(event.content.get("decision"), dict):
            done.append(("reason", words["reason"], _said(event.content["decision"], words)))
        elif isinstance(event, ev.Code):
            cells += 1
            done.append(("code", f"{words['run_code']}: {words['cell'].format(n=cells)}",
                         event.code))
        elif isinstance(event, ev.CodeResult):
            failure = "" if event.ok else f"{event.error_type}: {event.error_message}"
            shown = "\n".join(part for part in (event.stdout.rstrip(), failure) if part)
            if shown:
                done.append(("output" if event.ok else "failed",
                             words["output" if event.ok else "failed"], shown))
    return done


def _fenced(text: str, language: str = "") -> str:
    """``text`` as a fenced code block whose fence no backtick run inside can close."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def markdown(events: Sequence[ev.BaseEvent], lang: str) -> str:
    """The disclosure in Markdown, or "" when the run did nothing to show."""
    done = steps(events, lang)
    if not done:
        return ""
    words = _WORDS["ja" if lang == "ja" else "en"]
    blocks = [f"<details>\n<summary>{words['details']}</summary>"]
    for kind, name, text in done:
        if kind == "reason":
            blocks.append(f"- **{name}**: {inert(' '.join(text.split()))}")
        else:
            blocks.append(f"**{name}**\n\n{_fenced(text, 'python' if kind == 'code' else '')}")
    return "\n\n".join([*blocks, "</details>"])


def page(events: Sequence[ev.BaseEvent], lang: str) -> str:
    """The disclosure as HTML (everything in it escaped), or ""."""
    done = steps(events, lang)
    if not done:
        return ""
    words = _WORDS["ja" if lang == "ja" else "en"]
    decisions = "".join(f"<li><strong>{html.escape(name)}</strong>: {html.escape(text)}</li>"
                        for kind, name, text in done if kind == "reason")
    blocks = "".join(f"<p><strong>{html.escape(name)}</strong></p><pre><code>"
                     f"{html.escape(text)}</code></pre>"
                     for kind, name, text in done if kind != "reason")
    return (f"<details><summary>{html.escape(words['details'])}</summary>"
            f"{f'<ul>{decisions}</ul>' if decisions else ''}{blocks}</details>")
