"""A database answer written for a person: the answer first, in their language, numbers
formatted (1,300 m², 216.7 m², 25 people / 25人, 13:00, 62.5%) and columns named in words.

The offline brain's queries name their columns for what they hold (intents/questions.py);
a column it does not know (a SELECT typed by the user) keeps its name and its values.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

# column: (English, Japanese, unit)
_COLUMNS: dict[str, tuple[str, str, str | None]] = {
    "name": ("Room", "部屋", None), "room": ("Room", "部屋", None),
    "floor_id": ("Floor", "階", None), "floor_name": ("Floor name", "階の名前", None),
    "kind": ("Kind", "種類", None), "hour": ("Hour", "時刻", "hour"),
    "rooms": ("Rooms", "部屋数", "count"),
    "area_m2": ("Area", "面積", "m2"), "total_area_m2": ("Total area", "面積の合計", "m2"),
    "mean_area_m2": ("Average area", "平均面積", "m2"),
    "capacity": ("Capacity", "定員", "people"),
    "total_capacity": ("Total capacity", "定員の合計", "people"),
    "mean_capacity": ("Average capacity", "平均定員", "people"),
    "people": ("People", "人数", "people"), "mean_people": ("Average people", "平均人数", "people"),
    "usage_pct": ("People per capacity", "利用率", "percent"),
}
_HEADER_UNITS = {"m2": (" (m²)", "（m²）")}


def number(value: float | int) -> str:
    """``1,300``, ``216.7``, ``9.1``: a whole number as one, else one decimal place
    (rounded half up, as people round)."""
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{Decimal(repr(float(value))).quantize(Decimal('0.1'), ROUND_HALF_UP):,}"


def _numeric(text: str) -> Decimal | None:
    try:
        return Decimal(text)
    except InvalidOperation:
        return None


def _value(column: str, text: str, ja: bool, with_unit: bool) -> str:
    unit = _COLUMNS.get(column, ("", "", "raw"))[2]
    if unit == "raw":
        return text
    if not text:  # NULL: an average or total of no rows
        return "データなし" if ja else "no data"
    value = _numeric(text)
    if value is None:
        return text
    if unit == "hour":
        return f"{int(value)}:00"
    shown = number(float(value))
    if unit == "percent":  # a share reads as one with its sign, in a table too
        return f"{shown}%"
    if not with_unit:
        return shown
    if unit == "m2":
        return f"{shown} m²"
    if unit == "people":
        return f"{shown}人" if ja else f"{shown} {'person' if shown == '1' else 'people'}"
    return shown


def _header(column: str, ja: bool) -> str:
    known = _COLUMNS.get(column)
    if known is None:
        return column
    unit = _HEADER_UNITS.get(known[2] or "")
    return (known[1] + (unit[1] if unit else "")) if ja else (known[0] + (unit[0] if unit else ""))


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().removeprefix("|").removesuffix("|").split("|")]


def table_answer(ja: bool, table: str, about: tuple[str, str] | None) -> str:
    """``table`` (sql_engine's Markdown) as the reply's words: one value or one row as a
    sentence after its label, several rows as a table with headers in words."""
    lines = table.splitlines()
    label = (about[1] if ja else about[0]) if about else None
    if len(lines) < 2 or not lines[0].startswith("|"):
        return f"{label}: {table}" if label else table
    columns = _cells(lines[0])
    rows = [_cells(r) for r in lines[2:] if r.startswith("|")]
    rest = [r for r in lines[2:] if not r.startswith("|")]  # "(truncated: …)"
    if not rows and label:
        return f"{label}: 該当するデータがありません。" if ja else f"{label}: no data."
    if len(rows) == 1 and not rest:
        cells = [_value(c, v, ja, with_unit=True) for c, v in zip(columns, rows[0], strict=False)]
        if len(cells) == 1:
            if label:
                return f"{label}: {cells[0]}。" if ja else f"{label}: {cells[0]}."
            return f"答えは {cells[0]} です。" if ja else f"The answer is {cells[0]}."
        if label:
            if len(cells) > 1 and rows[0][0] in label:  # the row's name is in the label already
                cells = cells[1:]
            return f"{label}: {'、'.join(cells)}。" if ja else f"{label}: {', '.join(cells)}."
    shown = ["| " + " | ".join(_header(c, ja) for c in columns) + " |",
             "|" + "---|" * len(columns)]
    shown += ["| " + " | ".join(_value(c, v, ja, with_unit=False)
                                for c, v in zip(columns, row, strict=False)) + " |"
              for row in rows]
    body = "\n".join([*shown, *rest])
    if label:
        return f"{label}:\n\n{body}"
    return f"結果です:\n\n{body}" if ja else f"Here is the result:\n\n{body}"
