"""The cost increase computed from the user's own numbers, each figure by the calculator
tool (so the run shows every call and its exact result): per item the increase and its
rate, the totals, and with a selling price the prices that keep the profit amount or the
profit rate; or, from items' shares of the cost and their rises, the cost's own rise."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable

from shokunin.agents.advisor.intents import Intent

_QUANTITY = re.compile(r"\d[\d,]*(?:\.\d+)?\s*(?:万円|千円|円|kg|g|t|トン|個|本|枚|台|人|時間|分|"
                       r"か月|ヶ月|月|年|%|割|ロット)?")
Calculate = Callable[[str], Awaitable[str]]  # an expression -> its exact value, as text

NUMBERS_FORM = (
    "- 費目ごとの前回と現在の金額（1個あたり、円）: 「材料費 400円→480円、労務費 300円→330円、"
    "経費 150円→160円」\n"
    "- あれば現在の売値: 「売値 1,100円」\n"
    "- または費目の原価に占める割合と上昇率: 「材料費は原価の4割で2割上昇、労務費は原価の3割で"
    "5%上昇」")
CAN_DO = (
    "あなたの数字を電卓ツールで計算し、費目ごとの増加額と上昇率、合計（原価）の増加額と上昇率、"
    "売値があれば利益額を維持する売値と利益率を維持する売値をお出しします。")


def _plain(value: str) -> str:
    """``480.0`` -> ``480``; other values as the calculator gave them."""
    return value[:-2] if value.endswith(".0") else value


async def cost_increase(intent: Intent, calculate: Calculate) -> str:
    """The computation the numbers in ``intent`` allow, as Markdown (``intent.numbers``)."""
    parts: list[str] = []
    if intent.changes:
        rows = ["| 費目 | 前回 | 現在 | 増加額 | 上昇率 |", "|---|---:|---:|---:|---:|"]
        for change in intent.changes:
            before, after = f"{change.before}", f"{change.after}"
            diff = _plain(await calculate(f"{after} - {before}"))
            rate = (_plain(await calculate(f"round(({after} - {before}) / {before} * 100, 1)"))
                    if change.before else "—")
            rows.append(f"| {change.label} | {before}円 | {after}円 | {diff}円 | {rate}% |")
        total_before = _plain(await calculate(
            " + ".join(str(c.before) for c in intent.changes)))
        total_after = _plain(await calculate(" + ".join(str(c.after) for c in intent.changes)))
        total_diff = _plain(await calculate(f"{total_after} - {total_before}"))
        total_rate = _plain(await calculate(
            f"round(({total_after} - {total_before}) / {total_before} * 100, 1)"))
        rows.append(f"| **合計** | {total_before}円 | {total_after}円 | **{total_diff}円** | "
                    f"**{total_rate}%** |")
        parts.append("お送りいただいた数値から、コスト上昇分を計算しました（電卓ツール）。\n\n"
                     + "\n".join(rows))
        if intent.price is not None:
            keep_amount = _plain(await calculate(f"{intent.price} + {total_diff}"))
            keep_rate = _plain(await calculate(
                f"round({intent.price} * {total_after} / {total_before}, 0)"))
            raise_rate = _plain(await calculate(
                f"round(({keep_amount} - {intent.price}) / {intent.price} * 100, 1)"))
            parts.append(
                f"現在の売値 {intent.price}円 に対して:\n"
                f"- 利益**額**を維持する売値: {intent.price} + {total_diff} = **{keep_amount}円**"
                f"（{raise_rate}% の値上げ）\n"
                f"- 利益**率**を維持する売値: {intent.price} × {total_after} ÷ {total_before} ≒ "
                f"**{keep_rate}円**\n"
                "（上の合計に含めた費目だけで計算しています。ほかに上がった費目があれば加えて"
                "ください。）")
        else:
            parts.append("現在の売値（「売値 1,100円」など）を教えていただければ、利益額・利益率を"
                         "維持する売値も計算します。")
    if intent.rises:
        lines = []
        for r in intent.rises:
            part = _plain(await calculate(f"{r.share} * {r.rise} / 100"))
            lines.append(f"- {r.label}: 原価の{r.share}% × {r.rise}% 上昇 = {part}%")
        terms = " + ".join(f"{r.share} * {r.rise} / 100" for r in intent.rises)
        rise = _plain(await calculate(f"round({terms}, 2)"))
        listed = "\n".join(lines)
        parts.append(f"原価への影響を計算しました（電卓ツール）。\n\n{listed}\n\n"
                     f"原価は合計で **{rise}%** 上がります。利益率を維持するには、売値も同じ"
                     f" {rise}% の値上げが目安です（挙げていない費目は変わらないものとして"
                     "計算しています）。")
    unused = _QUANTITY.findall(intent.rest)
    if parts and unused:  # every number of the question is accounted for
        parts.append(f"次の数値は計算に使っていません: {'、'.join(u.strip() for u in unused)}"
                     "（使い方が読み取れませんでした。「材料費 400円→480円」の形で送って"
                     "いただければ計算に含めます）。")
    if not parts and intent.expression:
        expression = intent.expression.translate(str.maketrans("×÷＋－＊／（）", "*/+-*/()"))
        expression = expression.replace(",", "").strip()
        value = _plain(await calculate(expression))
        parts.append(f"計算: `{expression}` = **{value}**（電卓ツール）")
    return "\n\n".join(parts)


def ask_for_numbers(step: str) -> str:
    """What the Advisor can compute with the user's numbers, and which numbers in which form."""
    return (f"{step}コスト上昇分の計算をお手伝いできます。{CAN_DO}\n\n"
            f"次のような形で数字を送ってください（概算で構いません）:\n{NUMBERS_FORM}")
