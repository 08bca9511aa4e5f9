"""The cost increase computed from the user's own numbers: per item the increase and its
rate, the totals, and with a selling price the prices that keep the profit amount or the
profit rate; or, from items' shares of the cost and their rises, the cost's own rise.
Rates, shares and rounded prices come from the calculator tool (the run shows each call
and its exact result); sums and differences of the amounts are exact Decimal arithmetic.
Lists, not tables: the seed's client renders no Markdown tables."""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from decimal import Decimal

from shokunin.agents.advisor.intents import Intent

_QUANTITY = re.compile(r"\d[\d,]*(?:\.\d+)?\s*(?:万円|千円|円|kg|g|t|トン|個|本|枚|台|人|時間|分|"
                       r"か月|ヶ月|月|年|%|割|ロット)?")
Calculate = Callable[[str], Awaitable[str]]  # an expression -> its exact value, as text

OFFER = "コスト上昇分の計算"  # what the Advisor computes for a request without numbers
NUMBERS_FORM = (
    "- 費目ごとの前回と現在の金額（1個あたり、円）: 「材料費 400円→480円、労務費 300円→330円、"
    "経費 150円→160円」\n"
    "- あれば現在の売値: 「売値 1,100円」\n"
    "- または費目の原価に占める割合と上昇率: 「材料費は原価の4割で2割上昇、労務費は原価の3割で"
    "5%上昇」")
CAN_DO = (
    "あなたの数字を電卓ツールで計算し、費目ごとの増加額と上昇率、合計（原価）の増加額と上昇率、"
    "売値があれば利益額を維持する売値と利益率を維持する売値をお出しします。")


def _yen(amount: Decimal) -> str:
    """1100 -> 「1,100円」."""
    if amount == amount.to_integral_value():
        amount = amount.quantize(Decimal(1))
    return f"{amount:,}円"


def _number(amount: Decimal) -> str:
    """1380 -> 「1,380」."""
    return _yen(amount)[:-1]


def _plain(value: str) -> str:
    """``480.0`` -> ``480``; other values as the calculator gave them."""
    return value[:-2] if value.endswith(".0") else value


async def cost_increase(intent: Intent, calculate: Calculate) -> str:
    """The computation the numbers in ``intent`` allow, as Markdown (``intent.numbers``)."""
    parts: list[str] = []
    if intent.changes:
        lines = []
        for change in intent.changes:
            rate = (await calculate(f"round(({change.after} - {change.before}) / "
                                    f"{change.before} * 100, 1)") if change.before else "—")
            lines.append(f"- {change.label}: {_yen(change.before)} → {_yen(change.after)}"
                         f"（+{_yen(change.after - change.before)}、+{_plain(rate)}%）")
        before = sum((c.before for c in intent.changes), Decimal(0))
        after = sum((c.after for c in intent.changes), Decimal(0))
        if len(intent.changes) > 1:  # one item's total is the item: its rate is computed
            total_rate = _plain(await calculate(
                f"round(({after} - {before}) / {before} * 100, 1)"))
            lines.append(f"- **合計: {_yen(before)} → {_yen(after)}"
                         f"（+{_yen(after - before)}、+{total_rate}%）**")
        parts.append("お送りいただいた数値から、コスト上昇分を計算しました（上昇率と売値は電卓"
                     "ツール）。\n\n" + "\n".join(lines))
        if intent.price is not None:
            price, diff = intent.price, after - before
            keep_rate = await calculate(f"round({price} * {after} / {before}, 0)")
            raise_rate = _plain(await calculate(f"round({diff} / {price} * 100, 1)"))
            parts.append(
                f"現在の売値 {_yen(price)} に対して:\n"
                f"- 利益の**額**を維持する売値: {_yen(price)} + {_yen(diff)} = "
                f"**{_yen(price + diff)}**（{raise_rate}% の値上げ）\n"
                f"- 利益の**率**を維持する売値: {_yen(price)} × {_number(after)} ÷ "
                f"{_number(before)} ≒ "
                f"**{_yen(Decimal(keep_rate))}**\n\n"
                "（挙げていただいた費目だけで計算しています。ほかに上がった費目があれば加えて"
                "ください。）")
        else:
            parts.append("現在の売値（「売値 1,100円」など）を教えていただければ、利益の額・率を"
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
    unused = _unused(intent)
    if parts and unused:  # every number of the question is accounted for
        parts.append(f"次の数値は計算に使っていません: {'、'.join(unused)}"
                     "（使い方が読み取れませんでした。「材料費 400円→480円」の形で送って"
                     "いただければ計算に含めます）。")
    if not parts and intent.expression:
        expression = intent.expression.translate(str.maketrans("×÷＋－＊／（）", "*/+-*/()"))
        expression = expression.replace(",", "").strip()
        value = _plain(await calculate(expression))
        parts.append(f"計算: `{expression}` = **{value}**（電卓ツール）")
    return "\n\n".join(parts)


def _value(quantity: str) -> tuple[Decimal, str]:
    """「1,380円」 -> (1380, "円"), 「2万円」 -> (20000, "円"), 「2割」 -> (20, "%"): a value in
    the unit the computation uses; a bare number keeps no unit."""
    found = re.match(r"(\d[\d,]*(?:\.\d+)?)\s*(.*)", quantity.strip())
    assert found is not None
    number, unit = Decimal(found.group(1).replace(",", "")), found.group(2)
    scale = {"万円": 10000, "千円": 1000, "割": 10}.get(unit, 1)
    return number * scale, {"万円": "円", "千円": "円", "割": "%"}.get(unit, unit)


def _unused(intent: Intent) -> list[str]:
    """The numbers of the question the computation did not use, each once: a number said
    again (「1,380円と1,200円の差」 after 「1,200円から1,380円に」) or the difference the
    computation gives (「180円上がった」) was used."""
    yen = {v for c in intent.changes for v in (c.before, c.after, c.after - c.before)}
    if intent.changes:
        yen |= {sum((c.after - c.before for c in intent.changes), Decimal(0)),
                sum((c.before for c in intent.changes), Decimal(0)),
                sum((c.after for c in intent.changes), Decimal(0))}
    if intent.price is not None:
        yen.add(intent.price)
    rates = {v for r in intent.rises for v in (r.share, r.rise)}
    used = {"円": yen, "%": rates, "": yen | rates}
    out: list[str] = []
    seen: set[tuple[Decimal, str]] = set()
    for quantity in _QUANTITY.findall(intent.rest):
        value = _value(quantity)
        if value in seen or value[0] in used.get(value[1], set()):
            continue
        seen.add(value)
        out.append(quantity.strip())
    return out


def ask_for_numbers(step: str) -> str:
    """What the Advisor can compute with the user's numbers, and which numbers in which form."""
    return (f"{step}{OFFER}をお手伝いできます。{CAN_DO}\n\n"
            f"次のような形で数字を送ってください（概算で構いません）:\n{NUMBERS_FORM}")
