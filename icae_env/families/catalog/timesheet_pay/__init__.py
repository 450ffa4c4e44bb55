"""``timesheet-pay``: a timesheet and payroll helper for hourly staff (hours, pay, per-day totals, top, a check).

Texts, decisions and skins are in ``family.yaml``; the golden in ``golden/`` and ``blocks/``. Samplers keep
each house rule where its feature shows it: long weeks and long days only matter to pay, overnight shifts are
frequent in the per-day breakdown, overlapping and over-long shifts only in the check. Public requests use quarter-hour
clock times, short shifts of an odd number of quarter hours and one person, so that every hidden rule stays open.
"""

from __future__ import annotations

import datetime
import random
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["TimesheetPay"]

OPS = {"feature1_hours": "hours", "feature2_pay": "pay", "feature3_daily": "daily", "feature4_top": "top",
       "feature5_check": "check", "feature6_slip": "slip"}  # fmt: skip
_BREAKS = (0, 15, 20, 30, 30, 45, 60)
_EDGE_MINUTES = (7, 8, 22, 23, 37, 38, 52, 53, 1, 59, 14, 16)
#: One invalid value per field of the request or of a shift (a malformed request breaks one of them).
_BREAKERS: dict[str, tuple[Any, ...]] = {
    "op": ("Hours", "payroll", "", None, 3),
    "period": ("", "   ", 14, None),
    "rates": ([18.5], {"x": -1}, {"x": "18.50"}, {"x": 0}, {"x": True}, "18.5"),
    "shifts": ("none", {"employee": "x"}, None, 5),
    "employee": ("", "  ", 7, None),
    "date": ("2026-02-30", "2026/03/02", "03-02-2026", "2026-13-01", "", 20260302),
    "in": ("24:00", "7:05", "08:60", "0800", "", 480, "8.30"),
    "out": ("24:00", "17:5", "17:75", "5pm", "", None),
    "break": (-5, "30", 30.5, 721, True),
}


def _clock(minutes: int) -> str:
    minutes %= 1440
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _shift(name: str, day: datetime.date, start: int, length: int, pause: Any = "absent") -> dict[str, Any]:
    shift: dict[str, Any] = {
        "employee": name,
        "date": day.isoformat(),
        "in": _clock(start),
        "out": _clock(start + length),
    }
    if pause != "absent":
        shift["break"] = pause
    return shift


def _pause(rng: random.Random) -> Any:
    roll = rng.random()
    return rng.choice(_BREAKS) if roll < 0.35 else (None if roll < 0.45 else "absent")


def _start(rng: random.Random, overnight: float) -> int:
    hour = rng.randint(19, 23) if rng.random() < overnight else rng.randint(5, 14)
    minute = rng.randrange(60) if rng.random() < 0.75 else rng.choice((0, 15, 30, 45))
    return hour * 60 + minute


class TimesheetPay(Family):
    """A timesheet and payroll helper; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        year, week = rng.choice((2025, 2026, 2027)), rng.randint(1, 52)
        monday = datetime.date.fromisocalendar(year, week, 1)
        label = rng.choice((f"{year}-W{week:02d}", f"week {week} {year}", f"{year} week {week:02d}"))
        names = rng.sample(plan.skin.pools["names"], 5)
        if kind == "public":
            shifts = self._public(rng, feature, names, monday)
        else:
            shifts = getattr(self, "_" + OPS[feature])(rng, kind, names, monday)
        people = list(dict.fromkeys(s["employee"] for s in shifts))
        rates = {name: self._rate(rng) for name in people}
        if kind != "public" and rng.random() < (0.5 if feature == "feature5_check" else 0.04):
            # someone without a rate: a problem for check, an error for pay and slip
            rates.pop(rng.choice(people or names), None)
        if rng.random() < 0.3:
            rates[names[-1]] = self._rate(rng)  # someone on the rate table without shifts
        data: dict[str, Any] = {"op": OPS[feature], "period": label, "rates": rates, "shifts": shifts}
        if feature == "feature6_slip":
            data["employee"] = self._slip_for(rng, kind, names, people)
        if kind == "malformed":
            return self._break_one(data, rng) if rng.random() < 0.6 else self._messy(data, rng)
        return data

    @staticmethod
    def _slip_for(rng: random.Random, kind: SampleKind, names: list[str], people: list[str]) -> Any:
        """Mostly the full-timer; at the boundary now and then someone without shifts."""
        if kind == "boundary" and rng.random() < 0.2:
            return names[-1]
        if kind == "malformed" and rng.random() < 0.2:
            return rng.choice(("", None, 3, [names[0]]))
        return names[0] if names[0] in people and rng.random() < 0.7 else rng.choice(people or names)

    @staticmethod
    def _rate(rng: random.Random) -> Any:
        return rng.randint(13, 32) if rng.random() < 0.3 else rng.randint(1300, 3299) / 100

    # --- public: one person, quarter-hour clock times, short shifts ------------------------------------------------

    @staticmethod
    def _public(rng: random.Random, feature: str, names: list[str], monday: datetime.date) -> list[dict[str, Any]]:
        if feature == "feature5_check":
            shifts = []
            for offset in sorted(rng.sample(range(7), rng.randint(2, 4))):
                name = rng.choice(names[:2])
                shifts.append(_shift(name, monday + datetime.timedelta(offset), rng.randint(24, 48) * 15,
                                     rng.randint(16, 36) * 15, rng.choice(("absent", 30, 0))))  # fmt: skip
            return shifts
        count = rng.randint(1, 2) if feature == "feature2_pay" else 1
        shifts = []
        for offset in sorted(rng.sample(range(7), count)):
            length = rng.randint(1, 5) * 60 + rng.choice((15, 45))
            pause = rng.choice(("absent", 0, 30)) if length > 60 else "absent"
            shifts.append(
                _shift(names[0], monday + datetime.timedelta(offset), rng.randint(24, 48) * 15, length, pause)
            )
        return shifts

    # --- the features ----------------------------------------------------------------------------------------------

    def _people(self, rng: random.Random, names: list[str], monday: datetime.date, overnight: float,
                most: int = 4) -> list[dict[str, Any]]:  # fmt: skip
        shifts = []
        for name in names[: rng.randint(2, 4)]:
            for offset in rng.sample(range(7), rng.randint(1, most)):
                length = rng.randint(180, 660)
                shifts.append(_shift(name, monday + datetime.timedelta(offset), _start(rng, overnight), length,
                                     _pause(rng)))  # fmt: skip
        self._zero(rng, shifts, 0.12)
        rng.shuffle(shifts)
        return shifts

    @staticmethod
    def _zero(rng: random.Random, shifts: list[dict[str, Any]], chance: float) -> None:
        if shifts and rng.random() < chance:
            shift = rng.choice(shifts)
            shift["out"] = shift["in"]

    def _hours(self, rng: random.Random, kind: SampleKind, names: list[str], monday: datetime.date) -> Any:
        if kind == "boundary":
            return self._edges(rng, names, monday)
        return self._people(rng, names, monday, 0.15)

    def _top(self, rng: random.Random, kind: SampleKind, names: list[str], monday: datetime.date) -> Any:
        shifts = self._hours(rng, kind, names, monday)
        if kind == "boundary" and rng.random() < 0.5 and shifts:  # a tie: someone else works the same shifts
            twin = [{**s, "employee": names[4]} for s in shifts if s["employee"] == shifts[0]["employee"]]
            shifts += twin
        return shifts

    def _daily(self, rng: random.Random, kind: SampleKind, names: list[str], monday: datetime.date) -> Any:
        if kind == "boundary":
            return self._edges(rng, names, monday)
        return self._people(rng, names, monday, 0.4, most=3)

    def _pay(self, rng: random.Random, kind: SampleKind, names: list[str], monday: datetime.date) -> Any:
        if kind == "boundary":
            return self._pay_edges(rng, names, monday)
        shifts = self._people(rng, names[1:], monday, 0.15, most=3)
        days = rng.sample(range(7), rng.randint(4, 6))
        for offset in days:  # a full-timer: long days, often over 40 hours
            length = rng.randint(400, 620)
            shifts.append(_shift(names[0], monday + datetime.timedelta(offset), _start(rng, 0.1), length,
                                 _pause(rng)))  # fmt: skip
        rng.shuffle(shifts)
        return shifts

    def _slip(self, rng: random.Random, kind: SampleKind, names: list[str], monday: datetime.date) -> Any:
        return self._pay(rng, kind, names, monday)

    def _check(self, rng: random.Random, kind: SampleKind, names: list[str], monday: datetime.date) -> Any:
        shifts = self._people(rng, names, monday, 0.3, most=3)
        for _ in range(rng.randint(0, 3)):
            shift = dict(rng.choice(shifts))
            problem = rng.randrange(4)
            if problem == 0:  # a second punch that overlaps (or touches) the first
                shift["in"] = shift["out"] if kind == "boundary" else _clock(_minutes(shift["in"]) + rng.randint(5, 90))
                shift["out"] = _clock(_minutes(shift["in"]) + rng.randint(60, 300))
            elif problem == 1:  # a double shift
                shift["out"] = _clock(_minutes(shift["in"]) + rng.choice((960, 961, rng.randint(962, 1300))))
            elif problem == 2:  # the break covers the shift
                span = (_minutes(shift["out"]) - _minutes(shift["in"])) % 1440
                shift["break"] = min(720, span + rng.choice((0, 0, 5)))
            else:
                shift["out"] = shift["in"]
            shifts.insert(rng.randint(0, len(shifts)), shift)
        return shifts

    # --- boundaries --------------------------------------------------------------------------------------------------

    def _edges(self, rng: random.Random, names: list[str], monday: datetime.date) -> list[dict[str, Any]]:
        """Clock times next to the rounding points, shifts of exactly 6 hours, midnight, zero length, no shifts."""
        if rng.random() < 0.08:
            return []
        shifts = []
        for name in names[: rng.randint(1, 3)]:
            for offset in rng.sample(range(7), rng.randint(1, 3)):
                day = monday + datetime.timedelta(offset)
                start = rng.randint(5, 22) * 60 + rng.choice(_EDGE_MINUTES)
                roll = rng.random()
                if roll < 0.3:
                    shifts.append(_shift(name, day, start, rng.choice((360, 361, 359, 375, 345)), "absent"))
                elif roll < 0.45:
                    shifts.append(_shift(name, day, rng.choice((1433, 1432, 1380, 1320)), rng.randint(60, 600)))
                elif roll < 0.55:
                    shifts.append(_shift(name, day, start, 1440 - start + rng.choice((0, 0, 7, 8)), _pause(rng)))
                elif roll < 0.65:
                    shifts.append(_shift(name, day, start, 0, _pause(rng)))
                else:
                    shifts.append(_shift(name, day, start, rng.randint(200, 600) // 15 * 15 + rng.choice(_EDGE_MINUTES),
                                         rng.choice(("absent", 0, None, 30))))  # fmt: skip
        rng.shuffle(shifts)
        return shifts

    def _pay_edges(self, rng: random.Random, names: list[str], monday: datetime.date) -> list[dict[str, Any]]:
        """Days of exactly 8 hours, weeks of exactly 40, one minute over either."""
        shifts = []
        for name in names[: rng.randint(1, 3)]:
            days = rng.choice((5, 5, 6, 4))
            total = rng.choice((2400, 2401, 2399, 2460, 2700))
            lengths = [total // days] * days
            lengths[0] += total - sum(lengths)
            if rng.random() < 0.4:
                lengths = [rng.choice((480, 481, 479, 540)) for _ in range(days)]
            for offset, length in zip(sorted(rng.sample(range(7), days)), lengths, strict=True):
                start = rng.randint(6, 10) * 60 + rng.choice((0, 0, 15, 30, 7, 8))
                shifts.append(
                    _shift(name, monday + datetime.timedelta(offset), start, length, rng.choice(("absent", 0)))
                )
        self._zero(rng, shifts, 0.15)
        rng.shuffle(shifts)
        return shifts

    # --- malformed requests: one broken field, or messy but valid ----------------------------------------------------

    @staticmethod
    def _messy(data: dict[str, Any], rng: random.Random) -> Any:
        """Explicit null breaks, stray fields, people on the rate table who did not work."""
        for shift in data["shifts"]:
            if "break" not in shift and rng.random() < 0.5:
                shift["break"] = None
            if rng.random() < 0.2:
                shift["note"] = rng.choice(("covered", "late bus", "training"))
        return {**data, "submitted_by": rng.choice(data["shifts"])["employee"] if data["shifts"] else "payroll"}

    @staticmethod
    def _break_one(data: dict[str, Any], rng: random.Random) -> Any:
        if rng.random() < 0.08:
            return rng.choice(([data], json_text(data), data["shifts"]))
        shifts: list[Any] = [dict(s) for s in data["shifts"]]
        if shifts and rng.random() < 0.6:
            index = rng.randrange(len(shifts))
            field = rng.choice(("employee", "date", "in", "out", "break", "break"))
            shifts[index][field] = rng.choice(_BREAKERS[field])
            if rng.random() < 0.1:
                shifts[index] = rng.choice((f"{shifts[index]['employee']} {shifts[index]['date']}", None))
            return {**data, "shifts": shifts}
        field = rng.choice(("op", "period", "rates", "shifts"))
        return {**data, field: rng.choice(_BREAKERS[field])}


def _minutes(text: str) -> int:
    return int(text[:2]) * 60 + int(text[3:])


def json_text(data: Any) -> str:
    """The request as a JSON string (what a confused client sends instead of the object)."""
    import json

    return json.dumps(data)
