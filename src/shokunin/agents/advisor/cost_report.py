"""The cost-analysis form's result, sent back as a chat message.

The later origin client runs ``POST /api/cost-analysis`` (the ``cost_impact`` tool), then
asks the agent to explain the result: its message holds the result as sections of
「ラベル: 数値」 lines (【コスト高騰前の状況】, 【現在の状況】, 【コスト高騰の影響】,
【参考価格の算出】) and the chart's data as JSON (``{"data": [...], "labels": [...]}``).
Offline, the Advisor reads the figures from there (they were computed by the tool) and says
what they mean; it invents none."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

HEADER = "価格転嫁検討ツール"
_SECTION = re.compile(r"【([^】]+)】")
_LINE = re.compile(r"^\s*([^:：\n]+?)\s*[:：]\s*([+-]?[\d,]+(?:\.\d+)?)\s*(円|%)?"
                   r"(?:\s*\(([+-]?[\d.]+)%\))?")
_JSON = re.compile(r"\{[^{}]*\"labels\"[^{}]*\}|\{[^{}]*\"data\"[^{}]*\}", re.S)


@dataclass(frozen=True)
class CostReport:
    """The figures of one cost-analysis result, by section and label."""

    sections: dict[str, dict[str, tuple[float, float | None]]]

    def value(self, section: str, label: str) -> float | None:
        found = self.sections.get(section, {}).get(label)
        return found[0] if found else None

    def rate(self, section: str, label: str) -> float | None:
        found = self.sections.get(section, {}).get(label)
        return found[1] if found else None


def read_report(message: str) -> CostReport | None:
    """The cost-analysis result in ``message``; None when the message holds none."""
    if HEADER not in message:
        return None
    sections: dict[str, dict[str, tuple[float, float | None]]] = {}
    current: dict[str, tuple[float, float | None]] | None = None
    for line in message.splitlines():
        header = _SECTION.fullmatch(line.strip())
        if header:
            current = sections.setdefault(header.group(1), {})
            continue
        match = _LINE.match(line)
        if current is not None and match:
            label, number, _unit, rate = match.groups()
            current[label.strip()] = (float(number.replace(",", "")),
                                      float(rate) if rate else None)
    figures = ("コスト高騰前の状況", "現在の状況")
    if not all(sections.get(name) for name in figures):
        return None
    return CostReport(sections)


def chart_data(message: str) -> dict[str, float] | None:
    """A chart's data given as JSON ``{"labels": [...], "data": [...]}`` (the form of
    Chart.js and of the later client), as label -> value; None when there is none."""
    for block in _JSON.findall(message):
        try:
            parsed = json.loads(block)
        except ValueError:
            continue
        labels, data = parsed.get("labels"), parsed.get("data")
        if (isinstance(labels, list) and isinstance(data, list) and labels
                and len(labels) == len(data)
                and all(isinstance(v, int | float) and not isinstance(v, bool) for v in data)):
            return {str(label): float(value) for label, value in zip(labels, data, strict=True)}
    return None


def explain(report: CostReport) -> str:
    """What the figures say, in the user's language, from the figures alone."""
    before, now = "コスト高騰前の状況", "現在の状況"
    lines = ["価格転嫁検討ツールの分析結果の要点です（数値はツールの計算結果です）。"]
    rate_before, rate_now = report.value(before, "利益率"), report.value(now, "利益率")
    if rate_before is not None and rate_now is not None:
        change = "下がりました" if rate_now < rate_before else (
            "上がりました" if rate_now > rate_before else "変わっていません")
        lines.append(f"- 利益率は {rate_before:.2f}% から {rate_now:.2f}% に{change}"
                     f"（{rate_now - rate_before:+.2f} ポイント）。")
    profit = report.value(now, "利益")
    if profit is not None and profit < 0:
        lines.append(f"- 現在は {-profit:,.0f}円の赤字です。")
    cost_rate = report.rate("コスト高騰の影響", "総コスト")
    sales_rate = report.rate("コスト高騰の影響", "売上高")
    if cost_rate is not None and sales_rate is not None:
        lines.append(f"- 総コストは {cost_rate:+.2f}%、売上高は {sales_rate:+.2f}% 変わりました。")
    reference = next((v for k, (v, _) in report.sections.get("参考価格の算出", {}).items()
                      if "参考価格" in k), None)
    gap = next(((v, r) for k, (v, r) in report.sections.get("参考価格の算出", {}).items()
                if "差額" in k), None)
    if reference is not None:
        text = f"- 高騰前の利益率を保つための参考価格（売上）は {reference:,.0f}円です"
        if gap is not None:
            text += f"。現在との差は {gap[0]:+,.0f}円" + (
                f"（{gap[1]:+.2f}%）" if gap[1] is not None else "")
        lines.append(text + "。")
    if cost_rate is not None and sales_rate is not None:
        needed = cost_rate > sales_rate or (profit is not None and profit < 0)
        lines.append("")  # a paragraph after the list
        lines.append("総コストの伸びが売上の伸びを上回り、利益率が下がっているため、価格転嫁が"
                     "必要と考えられます。参考価格との差を、値上げ幅を考える目安にしてください。"
                     if needed else
                     "売上の伸びが総コストの伸びに追いついており、数値の上では価格転嫁の必要性は"
                     "高くありません。")
    return "\n".join(lines)
