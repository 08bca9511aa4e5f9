"""The offline brain's charts: a chart spec read from the sample database into matplotlib
code for the sandbox, and named for the reply.

A spec has a ``metric`` (area_m2, capacity or occupancy) and optionally a ``floor`` or a
``room``; ``per_floor`` (with ``combine``: sum by default, mean or count) draws one bar a
floor; ``hour`` draws the people in each room at that hour; ``top`` and ``ascending``
keep the largest (smallest) rooms, ties included."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shokunin.agents.workbench.tools import run_query

_CODE = """import matplotlib.pyplot as plt

labels = {labels!r}
values = {values!r}
fig, ax = plt.subplots(figsize=(8, 4))
ax.{plot}(labels, values, color="#4C78A8")
ax.set_xlabel({xlabel!r})
ax.set_ylabel({ylabel!r})
ax.set_title({title!r})
plt.xticks(rotation=45, ha="right")
plt.tight_layout()
plt.show()
{summary}"""
_TOTAL = 'print(f"{len(values)} values, {sum(values):g} in total")'
_PEAK = 'print(f"peak: {max(values)} people at {labels[values.index(max(values))]}")'

_UNITS = {"area_m2": "Area (m2)", "capacity": "Capacity (people)", "occupancy": "People"}


def title(spec: dict[str, Any], ja: bool = False) -> str:
    """What the chart shows: "Room areas on 2F", "People in Lounge by hour"."""
    metric, floor, room = spec.get("metric", "area_m2"), spec.get("floor"), spec.get("room")
    hour, top, combine = spec.get("hour"), spec.get("top"), spec.get("combine", "sum")
    if metric == "occupancy" and hour is not None:
        if ja:
            return f"{hour}時の{floor + 'の' if floor else ''}部屋ごとの人数"
        return f"People in each room{' on ' + floor if floor else ''} at {hour}:00"
    if metric == "occupancy":
        where = room or floor
        if ja:
            return f"{where or '建物全体'}の時間ごとの人数"
        return f"People {'in ' + where if where else 'in the building'} by hour"
    word_en = "areas" if metric == "area_m2" else "capacities"
    word_ja = "面積" if metric == "area_m2" else "定員"
    if spec.get("per_floor"):
        if combine == "count":
            return "階ごとの部屋数" if ja else "Rooms per floor"
        if combine == "mean":
            return f"階ごとの部屋の平均{word_ja}" if ja else f"Average room {word_en} per floor"
        return f"階ごとの{word_ja}の合計" if ja else f"Total room {word_en} per floor"
    if top:
        low = spec.get("ascending", False)
        if ja:
            return (f"{floor + 'の' if floor else ''}{word_ja}が{'小さい' if low else '大きい'}"
                    f"部屋（上位{top}）")
        return (f"The {top} rooms with the {'smallest' if low else 'largest'} "
                f"{word_en[:-1] if metric == 'area_m2' else 'capacity'}"
                + (f" on {floor}" if floor else ""))
    if spec.get("rooms"):
        named = list(spec["rooms"])
        return f"{'、'.join(named)}の{word_ja}" if ja else f"{word_en.capitalize()} of " + (
            ", ".join(named))
    if ja:
        return f"{floor + 'の' if floor else ''}部屋の{word_ja}"
    return f"Room {word_en}" + (f" on {floor}" if floor else "")


def _query(spec: dict[str, Any]) -> tuple[str, tuple[Any, ...]]:
    metric, floor, room = spec.get("metric", "area_m2"), spec.get("floor"), spec.get("room")
    if metric == "occupancy" and spec.get("hour") is not None:
        where = " AND r.floor_id = ?" if floor else ""
        return (f"SELECT r.name, o.people FROM occupancy o JOIN rooms r ON r.name = o.room "
                f"WHERE o.hour = ?{where} ORDER BY o.people DESC, r.name",
                (int(spec["hour"]), floor) if floor else (int(spec["hour"]),))
    if metric == "occupancy":
        if room:
            return "SELECT hour, people FROM occupancy WHERE room = ? ORDER BY hour", (room,)
        where = " WHERE r.floor_id = ?" if floor else ""
        return (f"SELECT o.hour, SUM(o.people) FROM occupancy o JOIN rooms r ON r.name = o.room"
                f"{where} GROUP BY o.hour ORDER BY o.hour", (floor,) if floor else ())
    column = "capacity" if metric == "capacity" else "area_m2"
    if spec.get("per_floor"):
        value = {"mean": f"AVG({column})", "count": "COUNT(*)"}.get(
            spec.get("combine", "sum"), f"SUM({column})")
        return (f"SELECT floor_id, {value} FROM rooms GROUP BY floor_id ORDER BY floor_id", ())
    named = [str(r) for r in spec.get("rooms") or []]
    where = (f" WHERE name IN ({', '.join('?' * len(named))})" if named else
             " WHERE floor_id = ?" if floor else "")
    params = tuple(named) if named else (floor,) if floor else ()
    order = "ASC" if spec.get("ascending") else "DESC"
    if spec.get("top"):  # ties kept: two rooms of the same area are both in the top
        return (f"SELECT name, {column} FROM (SELECT name, {column}, RANK() OVER (ORDER BY "
                f"{column} {order}) AS place FROM rooms{where}) WHERE place <= "
                f"{int(spec['top'])} ORDER BY place, name", params)
    return f"SELECT name, {column} FROM rooms{where} ORDER BY {column} {order}, name", params


def chart_code(spec: dict[str, Any], db: Path) -> str:
    """Python for the sandbox that draws the chart ``spec`` asks for, data included."""
    sql, params = _query(spec)
    _cols, rows, _cut = run_query(db, _inline(sql, params))
    occupancy = spec.get("metric") == "occupancy" and spec.get("hour") is None  # by hour
    return _CODE.format(
        labels=[f"{r[0]}:00" if occupancy else str(r[0]) for r in rows],
        values=[r[1] for r in rows], plot="plot" if occupancy else "bar",
        xlabel="Hour" if occupancy else ("Floor" if spec.get("per_floor") else "Room"),
        ylabel="Rooms" if spec.get("combine") == "count" else _UNITS.get(
            spec.get("metric", "area_m2"), "Value"), title=title(spec),
        summary=_PEAK if occupancy else _TOTAL)


def _inline(sql: str, params: tuple[Any, ...]) -> str:
    """run_query takes one SELECT string: the parameters (map names) quoted into it."""
    for value in params:
        sql = sql.replace("?", "'" + str(value).replace("'", "''") + "'", 1)
    return sql
