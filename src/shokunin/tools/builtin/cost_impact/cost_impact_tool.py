"""
価格転嫁検討ツール
The impact of a cost rise, from six figures of a company's accounts before the rise and now
(sales, cost of sales, other expenses): totals, profit and margin on each side, what changed
(amount and rate), the price that would keep the margin from before the rise, the gap to
today's sales, and whether a price pass-through is needed. The Advisor's
``POST /api/cost-analysis`` answers the origin client's form with it.

The arithmetic is decimal (a yen figure stays exact); the answer's numbers are JSON numbers,
since the origin client formats them with ``toLocaleString`` and ``toFixed``.
"""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError, model_validator

TOOL_NAME = "価格転嫁検討ツール"
TOOL_DESCRIPTION = ("コスト高騰前と現在の売上高・売上原価・販管費から、利益率の変化、"
                    "高騰前の利益率を保つ参考価格と価格転嫁の必要性を計算します "
                    "(impact of a cost rise and the price that keeps the margin).")
TOOL_ICON = "📊"

MAX_AMOUNT = 10**15  # 1,000兆円: above it a yen figure is no longer exact as a JSON number
HUNDRED = Decimal(100)
LABELS = {
    "before_sales": "コスト高騰前の売上高",
    "before_cost": "コスト高騰前の売上原価",
    "before_expenses": "コスト高騰前の販管費・その他経費",
    "current_sales": "現在の売上高",
    "current_cost": "現在の売上原価",
    "current_expenses": "現在の販管費・その他経費",
}


class FiguresError(ValueError):
    """Figures the analysis cannot use; the message says, in Japanese, what to enter."""


def _amount(value: Any) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal):
        raise ValueError("数値で入力してください")
    if isinstance(value, float) and not math.isfinite(value):
        raise ValueError("有限の数値で入力してください")
    if value < 0:
        raise ValueError("0以上の金額を入力してください（マイナスは使えません）")
    if value > MAX_AMOUNT:
        raise ValueError("1,000兆円以下の金額を入力してください")
    return Decimal(str(value))  # the float's shortest text: 0.1 stays 0.1


Amount = Annotated[Decimal, BeforeValidator(_amount)]


class Figures(BaseModel):
    """The six yen figures, each zero or more; both sales above zero."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    before_sales: Amount
    before_cost: Amount
    before_expenses: Amount
    current_sales: Amount
    current_cost: Amount
    current_expenses: Amount

    @model_validator(mode="after")
    def _comparable(self) -> Figures:
        for field in ("before_sales", "current_sales"):
            if getattr(self, field) == 0:
                raise ValueError(f"{LABELS[field]}は0より大きい金額を入力してください"
                                 "（売上高が0では利益率を計算できません）")
        if self.before_cost + self.before_expenses == 0:
            raise ValueError("コスト高騰前の売上原価か販管費・その他経費を入力してください"
                             "（高騰前のコストが0では、高騰前の利益率を保つ価格を計算できません）")
        return self


def figures(args: dict[str, Any]) -> Figures:
    """The validated figures; FiguresError naming each field that is wrong, in Japanese."""
    try:
        return Figures.model_validate(args)
    except ValidationError as exc:
        raise FiguresError(" / ".join(_problem(error) for error in exc.errors())) from None


def _problem(error: Any) -> str:
    field = str(error["loc"][0]) if error["loc"] else ""
    label = LABELS.get(field, field)
    if error["type"] == "missing":
        return f"{label}（{field}）を入力してください"
    if error["type"] == "extra_forbidden":
        return f"{field} は使えない項目です（使える項目: {', '.join(LABELS)}）"
    message = str(error.get("ctx", {}).get("error") or error["msg"])
    message = message.removeprefix("Value error, ")
    return f"{label}: {message}" if label else message


def _side(sales: Decimal, cost: Decimal, expenses: Decimal) -> dict[str, Decimal]:
    total = cost + expenses
    profit = sales - total
    return {"sales": sales, "cost": cost, "expenses": expenses, "total_cost": total,
            "profit": profit, "profit_rate": profit / sales * HUNDRED}


def _change(before: Decimal, current: Decimal) -> dict[str, Decimal]:
    # A rate against a negative base (a loss) is taken against its size, so that a loss
    # growing reads as a fall; against zero there is no rate, and 0 is what the client shows.
    amount = current - before
    return {"amount": amount, "rate": amount / abs(before) * HUNDRED if before else Decimal(0)}


def analyze(given: Figures) -> dict[str, Any]:
    """The analysis, in the origin's result form (``before``, ``current``, ``changes``,
    ``reference_price``, ``price_gap``, ``price_gap_rate``) plus ``needs_pass_through`` and
    its ``judgement`` in words."""
    before = _side(given.before_sales, given.before_cost, given.before_expenses)
    current = _side(given.current_sales, given.current_cost, given.current_expenses)
    changes = {key: _change(before[key], current[key])
               for key in ("sales", "cost", "expenses", "total_cost", "profit")}
    # The price whose margin over today's total cost is the margin before the rise:
    # total / (1 - margin), i.e. today's total cost times before's sales per yen of cost.
    reference = current["total_cost"] * before["sales"] / before["total_cost"]
    gap = reference - current["sales"]
    # With both bases above 0, the margin falls exactly when total cost grows faster than
    # sales: (1 + cost rate) / (1 + sales rate) > 1.
    needed = changes["total_cost"]["rate"] > changes["sales"]["rate"]
    judgement = (f"総コストの増加率（{changes['total_cost']['rate']:.2f}%）が売上高の増加率"
                 f"（{changes['sales']['rate']:.2f}%）を上回り、利益率が"
                 f"{before['profit_rate']:.2f}%から{current['profit_rate']:.2f}%に下がっています。"
                 "価格転嫁を検討することをお勧めします。" if needed else
                 "売上高の伸びが総コストの伸びに追いついており、利益率は保たれています。")
    return _numbers({
        "before": before, "current": current, "changes": changes,
        "reference_price": reference, "price_gap": gap,
        "price_gap_rate": gap / current["sales"] * HUNDRED,
        "needs_pass_through": needed, "judgement": judgement,
    })


def _numbers(value: Any) -> Any:
    if isinstance(value, Decimal):
        return float(value)
    if isinstance(value, dict):
        return {key: _numbers(item) for key, item in value.items()}
    return value


def get_function_declaration() -> dict:
    # No "minimum" here: a negative figure is the tool's own error, in Japanese, as a result.
    return {
        "name": "cost_impact",
        "description": "Analyse the impact of a cost rise from a company's figures before the "
                       "rise and now (yen): totals, profit and margin on each side, each change "
                       "(amount and %), the reference price that keeps the margin from before "
                       "the rise, its gap to current sales, and whether a price pass-through "
                       "is needed. Sales must be above 0.",
        "parameters": {
            "type": "object",
            "properties": {field: {"type": "number", "description": f"{label}（円, 0以上）"}
                           for field, label in LABELS.items()},
            "required": list(LABELS),
            "additionalProperties": False,
        },
    }


def execute(args: dict, context: dict) -> dict:
    try:
        given = figures(args)
    except FiguresError as exc:
        return {"success": False, "error": str(exc)}
    return {"success": True, "result": analyze(given)}
