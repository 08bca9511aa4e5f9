"""The query that computes a question's quantity with every part it asks for, or a plain
sentence saying which part cannot be computed offline.

Every part ``quantity.read`` found is used by the query chosen here (an average is an
AVG, "which room" ranks rooms, "at 14:00" is a WHERE on the hour, a floor narrows the
rooms) or said not to be: no branch answers a nearby quantity instead. A part that does
not change the answer (an hour, for a room's area) is said beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from shokunin.agents.workbench.intents import questions
from shokunin.agents.workbench.intents.mentions import Mentions
from shokunin.agents.workbench.intents.quantity import Quantity

Label = tuple[str, str]  # (English, Japanese)

_CAN = ("I can give the average, total, largest or smallest of room areas, capacities and "
        "the people in the rooms at an hour, and count rooms",
        "部屋の面積・定員・ある時刻の人数の平均、合計、最大、最小と部屋の数なら答えられます")
_MEASURES = {"area_m2": ("room areas", "部屋の面積"), "capacity": ("room capacities", "部屋の定員"),
             "usage": ("the people per capacity", "定員に対する利用率"),
             "people": ("the people in the rooms", "部屋にいる人数"), None: ("the rooms", "部屋")}


@dataclass
class Choice:
    """A query with what its answer is, and a remark said beside the answer; or, with no
    query, the sentence that says why none is run."""

    question: questions.Question | None = None
    remark: Label | None = None
    refusal: Label | None = None


def choose(q: Quantity, m: Mentions) -> Choice | None:
    """The query for ``q`` on the rooms and floors of ``m``; None when the clause names no
    room or floor to compute it on (the planner asks which)."""
    if q.cannot:
        return _cannot(q, m, *q.cannot[0])
    if q.combine == "count":
        if q.measure or q.pick or q.hour is not None or m.rooms:
            extra = q.typed.get("measure") or q.typed.get("pick") or q.typed.get("hour") or (
                ", ".join(m.room_names))
            return _refuse(q, m, (f"I can count the rooms of a floor or of the building, but "
                                  f"not by “{extra}” offline.",
                                  f"数えられるのは階または建物全体の部屋の数だけで、「{extra}」"
                                  "による数え方はオフラインではできません。"))
        return Choice(questions.count(m.floor_ids))
    if q.measure is None:
        if q.pick or q.ranking:  # "which room is the largest", "top 3 rooms": by area
            q.measure = "area_m2"
        else:
            word = q.typed.get("combine", "")
            return _refuse(q, m, (f"{word.capitalize()} of what? I can average or add up room "
                                  "areas, capacities or the people at an hour.",
                                  f"何の{word}ですか？ 部屋の面積・定員・ある時刻の人数の"
                                  f"{word}なら答えられます。"))
    if q.measure == "people":
        return _people(q, m)
    if q.measure == "usage":
        return _usage(q, m)
    return _rooms(q, m, q.measure)


def chart(q: Quantity, m: Mentions, spec: dict[str, Any]) -> Label | None:
    """Complete the chart ``spec`` with the parts of ``q`` it can draw (an hour, the top
    rooms, an average or count per floor); the refusal when a part cannot be drawn."""
    if q.cannot:
        return _cannot(q, m, *q.cannot[0]).refusal
    if q.measure == "usage":
        word = q.typed["measure"]
        return _refusal(q, m, (f"I cannot chart “{word}” offline; ask for it without a chart "
                               "(“at 14:00”).",
                               f"「{word}」はオフラインではグラフにできません。グラフなしで時刻を"
                               "指定して聞いてください（「14時の利用率」など）。"))
    occupancy, per_floor = spec["metric"] == "occupancy", bool(spec.get("per_floor"))
    if q.combine in ("mean", "count") and per_floor and not occupancy:
        spec["combine"] = q.combine
    elif q.combine in ("mean", "count") or (q.combine == "sum" and not (per_floor or
                                                                        occupancy)):
        return _refusal(q, m, (f"I cannot draw “{q.typed['combine']}” as a chart offline: I "
                              "can chart the total, average or number of rooms per floor, room "
                              "areas or capacities, and people by hour or at an hour.",
                              f"「{q.typed['combine']}」はオフラインではグラフにできません（階ごとの"
                              "合計・平均・部屋数、部屋の面積・定員、時間ごとやある時刻の人数なら"
                              "グラフにできます）。"))
    if q.hour is not None and occupancy:
        if spec.get("room") or per_floor:
            return _refusal(q, m, (f"At {q.hour}:00 I can chart the people in each room; for "
                                   "one room or per floor, ask without a chart.",
                                   f"{q.hour}時の人数は部屋ごとのグラフにできます。1部屋や階ごとの"
                                   "人数はグラフなしで聞いてください。"))
        spec["hour"] = q.hour
    if (q.pick or m.top) and not (occupancy and spec.get("hour") is None):
        if per_floor:
            return _refusal(q, m, (f"I can chart each floor, or the “{q.typed.get('pick')}” "
                                   "rooms, not both at once; for the room of each floor, ask "
                                   "without a chart.",
                                   f"階ごとのグラフと「{q.typed.get('pick')}」部屋のグラフは"
                                   "同時には描けません。各階の部屋はグラフなしで聞いてください。"))
        if m.top:
            spec["top"] = m.top
        if q.pick == "min":
            spec["ascending"] = True
    elif q.pick == "min" and occupancy:  # the hourly chart's summary names the peak only
        return _refusal(q, m, ("A chart of people by hour shows every hour and names the "
                              "busiest; for the quietest hour ask “when is it quietest?”.",
                              "時間ごとの人数のグラフは全時間を描き、最も混む時間を示します。"
                              "最も空いている時間は「いつ一番空いている？」と聞いてください。"))
    return None


def _rooms(q: Quantity, m: Mentions, metric: str) -> Choice | None:
    """Area or capacity: a room's, unchanging through the day."""
    floors, rooms = m.floor_ids, m.room_names
    desc, top = q.pick != "min", m.top or 1
    en, ja = questions.METRICS[metric]
    if q.over == "hour":
        return _refuse(q, m, (f"A room's {en} does not change with the time of day, so there "
                              f"is no “{q.typed['over']}” to answer.",
                              f"部屋の{ja}は時刻によって変わらないため、「{q.typed['over']}」"
                              "には答えがありません。"))
    remark = None if q.hour is None else (
        f"(A room's {en} does not change with the hour: {q.hour}:00 makes no difference.)",
        f"（部屋の{ja}は時刻によって変わらないため、{q.hour}時かどうかは関係ありません。）")
    question: questions.Question | None
    if rooms:
        if q.pick:
            question = questions.rank(metric, desc, top, [], rooms)
        elif q.combine == "mean":
            question = questions.mean(metric, [], rooms=rooms)
        elif q.combine == "sum":
            question = questions.total(metric, [], rooms=rooms)
        elif q.ranking:
            question = questions.ranking(metric, desc, [], rooms)
        else:
            question = questions.attribute(metric, rooms)
    elif q.per_floor and q.pick:  # "the largest room on each floor"
        question = questions.rank(metric, desc, top, floors, per_floor=True)
    elif q.per_floor:  # "room areas per floor": each floor's total (average)
        question = (questions.mean(metric, floors, per_floor=True) if q.combine == "mean"
                    else questions.total(metric, floors, per_floor=True))
    elif q.over == "floor" and q.pick:
        question = questions.rank_floors(metric, q.combine or "sum", desc, top, floors)
    elif q.over == "floor" or len(floors) > 1 and q.combine:
        question = (questions.mean(metric, floors, per_floor=True) if q.combine == "mean"
                    else questions.total(metric, floors, per_floor=True))
    elif q.pick:
        question = questions.rank(metric, desc, top, floors)
    elif q.combine == "mean":
        question = questions.mean(metric, floors)
    elif q.combine == "sum" or (floors and not q.each):
        question = questions.total(metric, floors)  # "area of 2F": the floor's
    elif q.ranking or q.over == "room":
        question = questions.ranking(metric, desc, floors)  # "room sizes on 2F": each
    else:
        return None  # "what is the capacity?": of which room
    return Choice(question, remark)


def _people(q: Quantity, m: Mentions) -> Choice:
    """The people in the rooms, which change by the hour."""
    floors, rooms, hour = m.floor_ids, m.room_names, q.hour
    desc, top = q.pick != "min", m.top or 1
    if q.combine == "sum" and hour is None:
        return _refuse(q, m, ("People are counted at each hour: a total over the day would "
                              "count the same person once an hour. Name an hour (“at 14:00”), "
                              "or ask for the average or the busiest hour.",
                              "人数は1時間ごとの値なので、1日の合計では同じ人を何度も数えてしまいます。"
                              "時刻（「14時」など）を指定するか、平均や最も混む時間を聞いてください。"))
    if hour is not None and q.over == "hour":
        return _refuse(q, m, (f"You named the hour ({hour}:00) and asked “{q.typed['over']}”: "
                              "ask for one of them.",
                              f"時刻（{hour}時）を指定したうえで「{q.typed['over']}」と聞かれて"
                              "います。どちらか一方で聞いてください。"))
    if rooms:
        if q.over == "floor":
            return _refuse(q, m, _not_both(q, ", ".join(rooms)))
        if hour is not None:
            if q.pick:
                return Choice(questions.people_rank("room", desc, top, [], rooms, hour))
            if q.combine == "mean":
                return Choice(questions.people_mean([], rooms, hour, per_room=True))
            if q.combine == "sum":
                return Choice(questions.people_sum(rooms, hour))
            return Choice(questions.people_at(rooms, [], hour))
        if q.pick and (q.over == "hour" or len(rooms) == 1):  # "when is the lounge busiest"
            return Choice(questions.people_hours(rooms, [], q.pick, top))
        if q.pick:  # "which is busier, the lounge or the office": their day's average
            return Choice(questions.people_rank("room", desc, top, [], rooms, None))
        if q.combine == "mean":
            return Choice(questions.people_mean([], rooms, None, per_room=True))
        return Choice(questions.people_hours(rooms, [], None, top))
    if q.per_floor and not (q.pick and hour is not None):
        return _refuse(q, m, ("Room by room and floor by floor, I can name the busiest (or "
                              "quietest) room of each floor at one hour: name it (“at 14:00”).",
                              "階ごとの部屋については、ある時刻に最も混む（空いている）部屋なら"
                              "答えられます。時刻（「14時」など）を指定してください。"))
    if hour is not None:
        if q.pick:
            return Choice(questions.people_rank("floor" if q.over == "floor" else "room", desc,
                                                top, floors, [], hour, q.per_floor))
        if q.combine == "mean":
            if q.over == "floor":
                return _refuse(q, m, _not_both(q, q.typed["combine"]))
            return Choice(questions.people_mean(floors, [], hour, per_room=True))
        if q.each or q.ranking or (q.over == "floor" and not q.combine):
            return Choice(questions.people_each(q.over or "room", floors, hour))
        return Choice(questions.people_at([], floors, hour))  # everyone on the floor(s)
    if q.over == "hour" or (q.pick and q.over is None):  # "when is 2F busiest", "peak"
        if q.combine == "mean":
            return Choice(questions.people_mean(floors, [], None, per_room=False))
        return Choice(questions.people_hours([], floors, q.pick, top))
    if q.pick:  # "which room is the busiest": on average over the day, said so
        return Choice(questions.people_rank(q.over or "room", desc, top, floors, [], None))
    if q.combine == "mean":
        if q.over == "floor":
            return _refuse(q, m, _not_both(q, q.typed["combine"]))
        return Choice(questions.people_mean(floors, [], None, per_room=q.over == "room"))
    if q.each or q.ranking or q.over:
        return _refuse(q, m, ("The people in a room change by the hour: name one (“at "
                              "14:00”), or ask for the busiest room or hour.",
                              "部屋の人数は時刻によって変わります。時刻（「14時」など）を"
                              "指定するか、最も混む部屋や時間を聞いてください。"))
    return Choice(questions.people_hours([], floors, None, top))  # "how many people on 2F"


def _usage(q: Quantity, m: Mentions) -> Choice:
    """People ÷ capacity: room by room, at one hour (people change by the hour)."""
    word = q.typed["measure"]
    if q.hour is None:
        return _refuse(q, m, (f"The people in a room change by the hour: name one for "
                              f"“{word}” (“at 14:00”).",
                              f"部屋の人数は時刻によって変わります。「{word}」は時刻"
                              "（「14時」など）を指定して聞いてください。"))
    extra = (q.typed.get("combine") or q.typed.get("pick")
             or (q.typed.get("over") if q.over in ("hour", "floor") or q.per_floor else None))
    if extra:
        return _refuse(q, m, (f"I can give “{word}” room by room at one hour, not by "
                              f"“{extra}” offline.",
                              f"「{word}」は部屋ごと・時刻ごとなら答えられますが、「{extra}」"
                              "による計算はオフラインではできません。"))
    return Choice(questions.usage(m.room_names, m.floor_ids, q.hour))


def _not_both(q: Quantity, other: str) -> Label:
    over = q.typed.get("over", "")
    return (f"I cannot answer “{over}” together with “{other}” offline: ask for one.",
            f"「{over}」と「{other}」を同時に扱うことはオフラインではできません。"
            "どちらか一方で聞いてください。")


def _cannot(q: Quantity, m: Mentions, what: str, typed: str) -> Choice:
    reasons: dict[str, Label] = {
        "measure": (f"I cannot compute “{typed}” offline: {_CAN[0]}.",
                    f"「{typed}」はオフラインでは計算できません（{_CAN[1]}）。"),
        "statistic": (f"I cannot compute the “{typed}” offline ({_CAN[0]}).",
                      f"「{typed}」はオフラインでは計算できません（{_CAN[1]}）。"),
        "condition": (f"I cannot pick rooms by a condition (“{typed}”) offline: ask for the "
                      "largest, smallest, average or total, or type a SELECT query.",
                      f"「{typed}」のような条件での絞り込みはオフラインではできません"
                      "（最大・最小・平均・合計を聞くか、SELECT 文を入力してください）。"),
        "combination": (f"I can compute one of “{typed.replace(' / ', '” and “')}” at a time, "
                        "not both.",
                        f"「{typed.replace(' / ', '」と「')}」は一度に一方しか計算できません。"),
        "hours": (f"I can answer for one hour at a time ({typed}): ask for each.",
                  f"一度に答えられるのは1つの時刻です（{typed}）。時刻ごとに聞いてください。"),
        "time": (f"The occupancy data has the people at each whole hour of one day, so I "
                 f"cannot answer for “{typed}”; name an hour such as 14:00.",
                 f"在室データは1日の1時間ごとの人数なので、「{typed}」には答えられません。"
                 "「14時」のように時刻を指定してください。"),
        "two groupings": (f"I can answer “{typed.replace(' / ', '” or “')}”, not both at "
                          "once: ask for one.",
                          f"「{typed.replace(' / ', '」と「')}」を同時には答えられません。"
                          "どちらか一方で聞いてください。"),
    }
    return _refuse(q, m, reasons[what])


def _refuse(q: Quantity, m: Mentions, reason: Label) -> Choice:
    return Choice(refusal=_refusal(q, m, reason))


def _refusal(q: Quantity, m: Mentions, reason: Label) -> Label:
    """``reason``, after what was understood: the measure and where it was asked for."""
    what_en, what_ja = _MEASURES[q.measure]
    names = m.room_names or m.floor_ids
    where_en = f" ({', '.join(names)})" if names else ""
    where_ja = f"（{'、'.join(names)}）" if names else ""
    return (f"I read this as a question about {what_en}{where_en}. {reason[0]}",
            f"{what_ja}{where_ja}についての質問と理解しました。{reason[1]}")
