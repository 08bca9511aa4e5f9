"""What a question about the building asks to compute, read into its parts.

A quantity has parts: what is measured (a room's area or capacity, or the people in it,
which change by the hour), how values are combined (average, total, count) or picked (the
most, the fewest), what each answer is about (a room, a floor, an hour), and when (one
hour of the day; the rooms, floors and hours named are the clause's ``Mentions``). Each
part keeps the words typed for it, so that a part no query can use is named in the reply
(inquiry.py), never dropped: "average room size" is not answered with the total, nor
"the busiest room at 12:00" with the whole building. Words inside a name the clause
mentions do not count ("area" in "the lounge area", "top" in "top floor").
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from shokunin.agents.workbench.intents.lexicon import (
    CAPACITY_RANK_WORDS,
    COUNT_ROOMS_WORDS,
    KEYWORDS,
    MAX_WORDS,
    MEAN_WORDS,
    OVER_FLOOR_WORDS,
    OVER_HOUR_WORDS,
    OVER_ROOM_WORDS,
    PEOPLE_WORDS,
    PER_FLOOR_WORDS,
    PER_ROOM_WORDS,
    SIZE_WORDS,
    SMALLEST_WORDS,
    TIME_SPAN_WORDS,
    UNKNOWN_MEASURE_JA,
    UNKNOWN_MEASURE_WORDS,
    UNSUPPORTED_WORDS,
    USAGE_WORDS,
)
from shokunin.agents.workbench.intents.mentions import Mentions
from shokunin.maps import spans

Words = tuple[tuple[str, ...], tuple[str, ...]]  # (English, Japanese)
Find = Callable[[Words], "str | None"]  # the first of the words typed, outside the names

_RANKING = (("rank", "ranking", "ranked", "sort", "sorted", "order of", "in order"),
            ("ランキング", "順に", "順で", "順位", "並べ"))
# A condition on the values ("more than 10 people", 「200㎡以上」): a filter, not computed.
_COMPARISON = re.compile(
    r"(?<![a-z])(?:(?:more|less|larger|bigger|smaller|greater|fewer|higher|lower|busier|"
    r"quieter|wider) than|at least|at most|over|under|above|below|exceeding|exceeds) ?"
    r"\d{1,9}(?:\.\d{1,9})?"
    r"|(?<![a-z])(?:more|less|larger|bigger|smaller|greater|fewer|higher|lower|busier|"
    r"quieter|wider) than(?![a-z])"
    r"|より|以上|以下|未満|を超え|超える|を越え")
_RATE_JA = re.compile(UNKNOWN_MEASURE_JA)
# A time the hour patterns did not read as one whole hour ("9:30", "25:00", 「2時半」)
_CLOCK = re.compile(r"(?<![0-9])\d{1,2}:(?!00(?![0-9]))\d{2}|(?<![0-9])\d{1,2} ?時 ?\d{1,2} ?分"
                    r"|(?<![0-9])\d{1,3}(?::00| ?(?:am|pm|時))(?![0-9])")


@dataclass
class Quantity:
    """The parts of what a clause asks to compute; ``typed`` holds each part's words."""

    measure: str | None = None  # "area_m2", "capacity", "people" or "usage" (people ÷
    # capacity); None for a measure word no query computes ("temperature"), named in cannot
    combine: str | None = None  # "mean", "sum" or "count": many values made one
    pick: str | None = None  # "max" or "min": the rows with the most (fewest)
    over: str | None = None  # "room", "floor" or "hour": what each answer row is
    each: bool = False  # "per room", 「階ごと」: one answer per ``over``, all of them
    per_floor: bool = False  # "the largest room on each floor": rooms picked within each floor
    ranking: bool = False  # "rank the rooms by area": every row, in order
    hour: int | None = None
    typed: dict[str, str] = field(default_factory=dict)
    cannot: list[tuple[str, str]] = field(default_factory=list)  # (what, as typed)

    @property
    def asks(self) -> bool:
        """Whether the clause asks to compute something at all."""
        return bool(self.measure or self.combine or self.pick or self.ranking or self.cannot)


def read(text: str, kinds: frozenset[str], m: Mentions) -> Quantity:
    """The quantity ``text`` (one clause, whose names are ``m``) asks for."""
    low = text.lower()

    def first(words: Words) -> str | None:
        for word in (*words[0], *words[1]):
            if word in low:
                for start, end in spans(low, word):
                    if all(end <= s or start >= e for s, e in m.taken):
                        return text[start:end]
        return None

    q = Quantity()
    _measure(q, kinds, first)
    if word := first(USAGE_WORDS):  # 「定員に対する利用率」: a measure of its own
        q.measure, q.typed["measure"] = "usage", word
    elif word := _unknown_measure(text, m, first):  # not the capacity it mentions either
        q.measure, q.typed["measure"] = None, word
        q.cannot.append(("measure", word))
    if word := first(MEAN_WORDS):
        q.combine, q.typed["combine"] = "mean", word
    if word := first(KEYWORDS["total"]):
        _combine(q, "sum", word)
    if word := first(COUNT_ROOMS_WORDS):
        _combine(q, "count", word)
    if word := first(SMALLEST_WORDS):
        q.pick, q.typed["pick"] = "min", word
    elif word := first(MAX_WORDS) or (f"top {m.top}" if m.top else None):
        q.pick, q.typed["pick"] = "max", word
    if word := first(_RANKING):
        q.ranking, q.typed["ranking"] = True, word
    _over(q, first)
    _time(q, low, m, first)
    if word := first(UNSUPPORTED_WORDS):
        q.cannot.append(("statistic", word))
    if hit := _COMPARISON.search(low):
        q.cannot.append(("condition", text[hit.start():hit.end()]))
    return q


def _measure(q: Quantity, kinds: frozenset[str], first: Find) -> None:
    capacity = first(CAPACITY_RANK_WORDS) or ("capacity" in kinds and first(
        KEYWORDS["capacity"]))
    people = first(PEOPLE_WORDS) or ("occupancy" in kinds and first(KEYWORDS["occupancy"]))
    area = first(KEYWORDS["area"]) or first(SIZE_WORDS)
    for measure, word in (("capacity", capacity), ("people", people), ("area_m2", area)):
        if word:
            q.measure, q.typed["measure"] = measure, word
            return


def _unknown_measure(text: str, m: Mentions, first: Find) -> str | None:
    for hit in _RATE_JA.finditer(text):
        if all(hit.end() <= s or hit.start() >= e for s, e in m.taken):
            return hit.group(0)
    return first(UNKNOWN_MEASURE_WORDS)


def _combine(q: Quantity, combine: str, word: str) -> None:
    if q.combine is not None and q.combine != combine:  # "the average total": not one query
        q.cannot.append(("combination", f"{q.typed['combine']} / {word}"))
        return
    q.combine, q.typed["combine"] = combine, word


def _over(q: Quantity, first: Find) -> None:
    hour, floor = first(OVER_HOUR_WORDS), first(OVER_FLOOR_WORDS)
    per_floor, per_room, room = first(PER_FLOOR_WORDS), first(PER_ROOM_WORDS), first(
        OVER_ROOM_WORDS)
    if hour:
        q.over, q.typed["over"] = "hour", hour
        q.each = hour.lower() in {"by hour", "per hour", "hourly", "each hour", "時間ごと",
                                  "時間別", "毎時"}
    elif per_floor and room and not per_room and not floor:  # "largest room per floor"
        q.over, q.typed["over"], q.per_floor = "room", f"{room} / {per_floor}", True
    elif per_floor or floor:
        q.over, q.typed["over"], q.each = "floor", per_floor or floor or "", bool(per_floor)
    elif per_room or room:
        q.over, q.typed["over"], q.each = "room", per_room or room or "", bool(per_room)
    if q.over == "hour" and (per_room or per_floor):  # "which room, at which hour": two rows
        q.cannot.append(("two groupings", f"{hour} / {per_room or per_floor}"))


def _time(q: Quantity, low: str, m: Mentions, first: Find) -> None:
    if len(m.hours) > 1:
        q.cannot.append(("hours", ", ".join(f"{h}:00" for h in m.hours)))
    elif m.hours:
        q.hour = m.hours[0]
        q.typed["hour"] = f"{q.hour}:00"
    clock = [c.group(0) for c in _CLOCK.finditer(low)]
    if clock and (not m.hours or any(":" in c and not c.endswith(":00") or "分" in c
                                     for c in clock)):
        q.cannot.append(("time", clock[0]))
    if q.measure in ("people", "usage") and (word := first(TIME_SPAN_WORDS)):
        q.cannot.append(("time", word))
