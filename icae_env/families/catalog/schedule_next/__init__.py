"""``schedule-next``: a cron schedule helper (next runs, field explanations, ranges, day counts, clashes).

Generalises the built-in ``cron-next`` task: its records name the decisions (the Vixie day rule, 0 and 7 as Sunday,
case-insensitive names, no wrap-around, the first error wins, fire times strictly after ``from``, a count of 1 by
default); each becomes a decision with its defensible alternatives. Texts and decisions: ``family.yaml``;
the golden: ``golden/`` and ``blocks/``.
"""

from __future__ import annotations

import datetime
import functools
import random
from collections.abc import Callable
from typing import Any

from icae_env.families.model import Model, load_model
from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["ScheduleNext"]

OPS = {"feature1_next": "next", "feature2_explain": "explain", "feature3_between": "between",
       "feature4_daily": "daily", "feature5_clash": "clash"}  # fmt: skip
MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTHS_FULL = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
               "november", "december")  # fmt: skip
DAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
DAYS_FULL = ("sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday")
#: Items that no house rule accepts, per field (minute, hour, day-of-month, month, day-of-week).
_BAD_ITEMS = (
    ("60", "*/0", "1,,2", "L", "5-", "*/5/2", "abc", "75"),
    ("24", "*/x", "3,", "1-2-3", "?", "30"),
    ("32", "0", "L", "?", "1,,2", "15W"),
    ("13", "0", "*/0", "JANX", "1,,3"),
    ("8", "L", "5#2", "1-2-3", "9", "*/0"),
)
_STAMP = "%Y-%m-%dT%H:%M"
_EDGES = ("0 0 29 2 *", "0 0 30 2 *", "0 0 31 4,6,9,11 *", "59 23 31 12 *", "0 12 29 2 1", "* * * * *",
          "0 0 31 * *", "*/45 */7 */9 */5 */3", "0 0 1-7 * 1", "30 6 31 * 5", "0 23 30 2,4 0", "0 0 13 * 5",
          "15 9 1,15 * 1-5", "0 0 28-31 * 7")  # fmt: skip


def _spell(rng: random.Random, index: int, names: tuple[str, ...], full: tuple[str, ...], forms: str) -> str:
    """Name ``index`` the way people type it: ``forms`` is ``upper`` (JAN), ``short`` (any case) or ``any``."""
    roll = rng.random()
    if forms == "upper" or roll < 0.3:
        return names[index].upper()
    if roll < 0.55 or (forms == "short" and roll < 0.7):
        return names[index]
    if roll < 0.75 or forms == "short":
        return names[index].title()
    return rng.choice((full[index], full[index].upper(), full[index].title()))


def _pair(rng: random.Random, low: int, high: int) -> str:
    first = rng.randint(low, high - 2)
    return f"{first},{rng.randint(first + 2, high)}"


def _pick(rng: random.Random, forms: tuple[Callable[[], str], ...]) -> str:
    """One of ``forms``, built only once chosen (the samplers draw thousands of lines per task)."""
    return rng.choice(forms)()


def _minute(rng: random.Random, sparse: bool) -> str:
    forms: tuple[Callable[[], str], ...] = (
        lambda: str(rng.randrange(60)),
        lambda: _pair(rng, 0, 59),
        lambda: f"*/{rng.choice((10, 15, 20, 30))}",
        lambda: f"{rng.randrange(30)}/{rng.choice((15, 20, 25))}",
        lambda: f"{rng.randrange(5)}-{rng.randint(8, 12)}",
    )
    if not sparse:
        forms += (lambda: "*", lambda: f"{rng.randrange(20)}-{rng.randint(30, 59)}/5")
    return _pick(rng, forms)


def _hour(rng: random.Random, sparse: bool) -> str:
    forms: tuple[Callable[[], str], ...] = (
        lambda: str(rng.randrange(24)),
        lambda: _pair(rng, 0, 23),
        lambda: f"{rng.randint(6, 9)}-{rng.randint(12, 18)}",
        lambda: f"*/{rng.choice((4, 6, 8))}",
    )
    return _pick(rng, forms if sparse else (*forms, lambda: "*"))


def _dom(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return "*"
    high = lambda: str(rng.randint(29, 31))  # noqa: E731
    return _pick(rng, (high, high, lambda: str(rng.randint(1, 28)), lambda: _pair(rng, 1, 31),
                       lambda: f"{rng.randint(27, 29)}-31", lambda: "*/10", lambda: "13"))  # fmt: skip


def _month(rng: random.Random, forms: str) -> str:
    if rng.random() < 0.45:
        return "*"
    start = rng.randrange(10)
    name = lambda k: _spell(rng, start + k, MONTHS, MONTHS_FULL, forms)  # noqa: E731
    return _pick(rng, (lambda: name(0), lambda: f"{name(0)}-{name(2)}", lambda: str(start + 1),
                       lambda: f"{start + 1}-{start + 3}", lambda: f"{start + 1},{start + 3}",
                       lambda: "2,4"))  # fmt: skip


def _dow(rng: random.Random, forms: str) -> str:
    if rng.random() < 0.2:
        return "*"
    first = rng.randrange(5)
    name = lambda k: _spell(rng, first + k, DAYS, DAYS_FULL, forms)  # noqa: E731
    return _pick(rng, (lambda: f"{rng.randint(1, 2)}-{rng.randint(4, 5)}", lambda: f"{first + 1}",
                       lambda: f"{first + 1},{first + 2}", lambda: f"{name(0)}-{name(2)}", lambda: name(0),
                       lambda: "*/2", lambda: rng.choice(("0", "7", "6,7", "5-7", "0-2", "1,7", "7,3"))))  # fmt: skip


#: The kinds of risky forms, per decision they test: wrapping ranges, weekday numbers 0 and 7, names typed freely.
_RISKS = {"wrap": (0, 1, 3), "weekday_numbers": (2, 2), "names": (4, 5, 6)}


def _risky(rng: random.Random, fields: list[str], focus: frozenset[str] = frozenset()) -> None:
    """Give one field a form that only some of the house rules accept (more often the kinds ``focus`` names)."""
    roll = rng.choice((0, 1, 2, 2, 3, 4, 5, 6) + sum((_RISKS[name] for name in sorted(focus) if name in _RISKS), ()))
    if roll == 0:
        fields[1] = f"{rng.randint(20, 23)}-{rng.randint(1, 4)}"
    elif roll == 1:
        late = _spell(rng, rng.randint(9, 11), MONTHS, MONTHS_FULL, "short")
        fields[3] = f"{late}-{MONTHS[rng.randrange(3)]}"
    elif roll == 2:
        fields[4] = rng.choice(("0", "7", "6,7", "0,3", "5-7", "0-4", "7", "1,7"))
    elif roll == 3:
        fields[4] = f"{rng.randint(5, 6)}-{rng.randint(1, 2)}" if rng.random() < 0.5 else "FRI-MON"
    elif roll == 6:
        index = rng.choice((3, 4))
        full = MONTHS_FULL if index == 3 else DAYS_FULL
        fields[index] = rng.choice(full).title() if rng.random() < 0.6 else rng.choice(full).upper()
    else:
        index = 3 if roll == 4 else 4
        names, full = (MONTHS, MONTHS_FULL) if index == 3 else (DAYS, DAYS_FULL)
        first = rng.randrange(len(names) - 2)
        spelled = [_spell(rng, first + k, names, full, "any") for k in range(3)]
        fields[index] = rng.choice((spelled[0], f"{spelled[0]}-{spelled[2]}", f"{spelled[0]},{spelled[1]}"))


def _expression(rng: random.Random, sparse: bool, names: str = "any_case", focus: frozenset[str] = frozenset()) -> str:
    """A cron line; its plain fields spell names the way the house rule ``names`` accepts, risky ones may not.

    ``focus`` names the decisions the line should exercise most (those the task does not leave at the default).
    """
    forms = {"upper_only": "upper", "full_names": "any"}.get(names, "short")
    fields = [_minute(rng, sparse), _hour(rng, sparse), _dom(rng), _month(rng, forms), _dow(rng, forms)]
    for _ in range(rng.choice((1, 1, 2) if focus & set(_RISKS) else (0, 1, 1, 2))):
        _risky(rng, fields, focus)
    if "day_rule" in focus and rng.random() < 0.6:  # both day fields restricted: the day rule shows
        fields[2] = fields[2].lstrip("*/") or str(rng.randint(1, 28))
        fields[4] = fields[4].lstrip("*/") or DAYS[rng.randrange(1, 6)].upper()
    return " ".join(fields)


def _overlapping(rng: random.Random, expr: str) -> str:
    """A second expression that shares some minutes with ``expr``."""
    fields = expr.split()
    fields[0] = rng.choice((fields[0], "*/5", "0-30"))
    fields[1] = rng.choice(("*", fields[1]))
    fields[2], fields[4] = rng.choice((("*", "*"), ("*", rng.choice(("1-5", "SAT,SUN", "MON"))), (fields[2], "*")))
    return " ".join(fields)


def _public_expression(rng: random.Random, explain: bool) -> str:
    minute = rng.choice((str(5 * rng.randrange(12)), f"{5 * rng.randrange(5)},{5 * rng.randint(6, 11)}"))
    hour = rng.choice((str(rng.randrange(24)), _pair(rng, 0, 23)))
    if explain:
        dom, month = rng.choice((str(rng.randint(1, 28)), _pair(rng, 1, 28))), MONTHS[rng.randrange(12)].upper()
        return f"{minute} {hour} {dom} {month} {DAYS[rng.randrange(7)].upper()}"
    days = rng.choice(("* *", f"{rng.randint(1, 28)} *", "* MON-FRI", f"* {DAYS[rng.randrange(7)].upper()}"))
    return f"{minute} {rng.choice((hour, '*/6', '9-17'))} {days.split()[0]} * {days.split()[1]}"


def _moment(rng: random.Random, month_end: bool = False) -> datetime.datetime:
    """A random moment (with ``month_end``, often in the last days of a month shorter than 31 days)."""
    if month_end and rng.random() < 0.5:
        month = rng.choice((2, 4, 6, 9, 11))
        return datetime.datetime(rng.randint(2024, 2031), month, rng.randint(24, 28), rng.randrange(24), 0)
    return datetime.datetime(rng.randint(2024, 2031), rng.randint(1, 12), rng.randint(1, 28), rng.randrange(24),
                             rng.randrange(60))  # fmt: skip


def _month_end_expression(rng: random.Random, expr: str) -> str:
    """``expr`` at a few minutes a day, on days some months lack, on every weekday."""
    fields = expr.split()
    fields[0], fields[1] = str(rng.randrange(60)), rng.choice((str(rng.randrange(24)), _pair(rng, 0, 23)))
    fields[2] = rng.choice(("29", "30", "31", "29-31", "30,31", f"{rng.randint(1, 28)},31", "31", "30"))
    fields[4] = "*"
    if rng.random() < 0.6:
        fields[3] = "*"
    return " ".join(fields)


def _short_month_end(rng: random.Random) -> datetime.datetime:
    """A moment in the last days of a month shorter than 31 days."""
    month = rng.choice((2, 2, 4, 6, 9, 11))
    return datetime.datetime(rng.randint(2024, 2031), month, rng.randint(20, 28), rng.randrange(24), rng.randrange(60))


def _break_expr(expr: str, rng: random.Random) -> str:
    fields = expr.split()
    if rng.random() < 0.08:
        return rng.choice((" ".join(fields[:4]), f"{expr} *", "", "@daily"))
    for index in rng.sample(range(5), rng.choice((1, 2, 2, 3))):
        bad = [rng.choice(_BAD_ITEMS[index]) for _ in range(rng.choice((1, 1, 2)))]
        fields[index] = ",".join(bad if len(bad) == 1 else [bad[0], fields[index], bad[1]])
    if rng.random() < 0.5:  # and a form only some house rules accept, which may be the first problem or not
        _risky(rng, fields)
    return " ".join(fields)


@functools.lru_cache(maxsize=64)
def _model(family: Family, values: tuple[tuple[str, str], ...]) -> Model:
    """The task's own golden (the samplers ask it which lines are valid and when they fire)."""
    return load_model(family.sources(dict(values)))


def _chance(focus: frozenset[str], decision: str, base: float, focused: float) -> float:
    """``focused`` when the task leaves ``decision`` off its default (``focus``), else ``base``."""
    return focused if decision in focus else base


class ScheduleNext(Family):
    """Cron schedules; texts and decisions in ``family.yaml``."""

    def _valid(self, plan: Plan, expr: str) -> bool:
        """Whether the task's own rules accept ``expr``."""
        return "error:" not in _model(self, tuple(sorted(plan.values.items())))({"op": "explain", "expr": expr})

    def _fire_time(self, plan: Plan, expr: str, start: datetime.datetime, nth: int) -> str | None:
        """The ``nth`` fire time of ``expr`` after ``start`` under the task's own rules (None when there is none)."""
        request = {"op": "next", "expr": expr, "from": start.strftime(_STAMP), "count": nth}
        lines = _model(self, tuple(sorted(plan.values.items())))(request).splitlines()
        last = lines[-1] if len(lines) > nth else ""
        return last.split()[0] if last[:1].isdigit() else None

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        op = OPS[feature]
        data: dict[str, Any] = {"op": op, "name": f"{rng.choice(plan.skin.pools['names'])}-{rng.randint(1, 999)}"}
        if kind == "public":
            return self._public(data, rng)
        focus = frozenset(n for n, v in plan.values.items() if v != self.decision(n).naive)
        sparse = op in ("between", "clash")
        for _ in range(4):  # mostly lines the house rules accept (the ablations may not)
            data["expr"] = _expression(rng, sparse, plan.values.get("names", "any_case"), focus)
            if rng.random() < 0.4 or self._valid(plan, data["expr"]):
                break
        if kind == "boundary" and rng.random() < 0.5:
            data["expr"] = rng.choice(_EDGES)
        month_end = kind == "typical" and op != "explain" and rng.random() < _chance(focus, "out_of_month", 0.3, 0.5)
        if month_end:  # a day some months lack, from late in a short month on: the rule for missing days shows
            data["expr"], start = _month_end_expression(rng, data["expr"]), _short_month_end(rng)
        else:
            start = _moment(rng, month_end=True)
        if kind == "boundary" and rng.random() < 0.3:
            start = datetime.datetime(rng.choice((2024, 2027, 2096, 2099)), 12, 31, 23, 59)
        self._settings(plan, data, start, (kind, focus, month_end), rng)
        if kind == "malformed":
            self._break(data, rng)
        return data

    def _public(self, data: dict[str, Any], rng: random.Random) -> dict[str, Any]:
        start = _moment(rng).replace(minute=5 * rng.randrange(12) + 2)
        data["expr"] = _public_expression(rng, data["op"] == "explain")
        if data["op"] == "daily":
            data.update({"expr": f"{rng.randrange(60)} {rng.randrange(24)} * * *", "days": rng.randint(1, 7)})
            data["from"] = start.date().isoformat()
        elif data["op"] != "explain":
            data["from"], data["count"] = start.strftime(_STAMP), rng.randint(1, 4)
        if data["op"] == "between":
            del data["count"]
            data["to"] = (start + datetime.timedelta(days=rng.randint(0, 2), hours=rng.randint(1, 20))).strftime(_STAMP)
        if data["op"] == "clash":
            data["other"] = f"{rng.choice(('*/10', '0,30', '*/15'))} * * * *"
        return data

    def _settings(self, plan: Plan, data: dict[str, Any], start: datetime.datetime,
                  how: tuple[SampleKind, frozenset[str], bool], rng: random.Random) -> None:  # fmt: skip
        (kind, focus, month_end), op = how, data["op"]
        if op == "daily":
            days = (1, 31) if kind == "boundary" else (7, 10, 14)
            data["from"], data["days"] = start.date().isoformat(), rng.choice(days)
            return
        if op == "clash":
            data["other"] = _overlapping(rng, data["expr"])
        broken = _chance(focus, "error_mode", 0.35, 0.6) if op == "explain" else 0.1
        if kind == "typical" and rng.random() < broken:
            data["expr"] = _break_expr(data["expr"], rng)
        if op == "explain":
            return
        data["from"] = start.strftime(_STAMP)
        if month_end:
            self._month_end_settings(data, start, rng)
            return
        if rng.random() < _chance(focus, "start_rule", 0.7, 0.9):  # start on a fire time: the start rule shows
            hit = self._fire_time(plan, data["expr"], start, 1)
            data["from"] = hit or data["from"]
        if op == "between":
            end = datetime.datetime.fromisoformat(data["from"]) + datetime.timedelta(days=rng.randint(1, 3))
            data["to"] = end.strftime(_STAMP)
            hit = self._fire_time(plan, data["expr"], datetime.datetime.fromisoformat(data["from"]), rng.randint(2, 4))
            if hit and rng.random() < _chance(focus, "range_end", 0.75, 0.95) and hit <= data["to"]:
                data["to"] = hit  # the range ends on a fire time: the range end shows
        elif rng.random() < _chance(focus, "count_default", 0.4, 0.15):
            data["count"] = rng.randint(1, 100) if kind == "boundary" else rng.randint(2, 8)

    @staticmethod
    def _month_end_settings(data: dict[str, Any], start: datetime.datetime, rng: random.Random) -> None:
        """A range or a count that reaches past the end of the short month ``start`` is in."""
        if data["op"] == "between":
            data["to"] = (start + datetime.timedelta(days=rng.randint(5, 12))).strftime(_STAMP)
        elif rng.random() < 0.5:
            data["count"] = rng.randint(2, 6)

    @staticmethod
    def _break(data: dict[str, Any], rng: random.Random) -> None:
        choice = rng.randrange(16)
        if choice < 4 or choice > 7 or data["op"] == "explain":
            data["expr"] = _break_expr(data["expr"], rng)
        elif choice == 4:
            data[rng.choice(("expr", "from"))] = rng.choice((None, 42, "2024-02-30T10:00", "2024-03-01 10:00",
                                                             "1969-12-31T23:59"))  # fmt: skip
        elif choice == 5:
            data["op"] = rng.choice(("nxt", "NEXT", "list", None))
        elif choice == 6 and data["op"] in ("next", "clash"):
            data["count"] = rng.choice((0, 101, "3", True, 2.5))
        elif choice == 6 and data["op"] == "daily":
            data["days"] = rng.choice((0, 32, "7", None))
        elif choice == 7 and data["op"] == "between":
            start = datetime.datetime.fromisoformat(data["from"])
            data["to"] = (start + datetime.timedelta(days=rng.choice((-1, 32)))).strftime(_STAMP)
        else:
            data["expr"] = _break_expr(data["expr"], rng)
