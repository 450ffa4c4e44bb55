"""``log-summary``: reports over service logs (window rollups, latency percentiles, top services, checks).

Generalises the built-in ``log-rollup`` task: its records name the decisions (ERROR and FATAL count as errors,
exact halves rounded up, nearest-rank percentiles, level aliases, offsets converted to UTC, empty windows omitted,
ties by name, at most five skipped lines listed, case-sensitive service names, a 1m default window); each becomes a
decision with its defensible alternatives. A held-out family: all its tasks are in the test split. Texts and
decisions: ``family.yaml``; the golden: ``golden/`` and ``blocks/``; the samplers here.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import dataclass
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["LogSummary"]

OPS = {"feature1_rollup": "rollup", "feature2_latency": "latency", "feature3_top": "top", "feature4_check": "check",
       "feature5_services": "services"}  # fmt: skip
WINDOWED = ("rollup", "latency")
LEVELS = ("DEBUG", "INFO", "WARN", "ERROR", "FATAL")
_WEIGHTS = (1, 5, 2, 2, 1)
_ALIASES = {"DEBUG": ("debug",), "INFO": ("info", "Info"), "WARN": ("warning", "Warning", "warn"),
            "ERROR": ("err", "Err", "error"), "FATAL": ("critical", "crit", "CRIT", "fatal")}  # fmt: skip
_OFFSETS = ("+01:00", "+02:00", "-05:00", "+05:30", "-03:00", "+09:00", "-08:00", "+03:00")
_MESSAGES = ("GET /orders 200", "POST /login 401", "cache miss", "retry 2 of 3", "upstream timeout", "slow query",
             "queue depth 14", "", "token refreshed", "connection reset by peer")  # fmt: skip
_BAD_LINES = ("garbage line", "{day} 10:00:00 INFO {svc} 12", "{ts} trace {svc} 12", "{ts} INFO {svc} 12.5",
              "{ts} INFO", "{ts} notice {svc} 40", "{ts} INFO {svc} fast", "--- restart {svc} ---",
              "{ts}Z INFO {svc} 10")  # fmt: skip
#: Window lengths a request names; offsets (hours away) only go with the hour-long ones, so windows stay few.
_WINDOWS = ((30, "30s"), (60, "1m"), (120, "2m"), (300, "5m"), (600, "10m"), (900, "15m"), (3600, "1h"))
_HOUR_WINDOWS = ((3600, "1h"), (7200, "2h"), (10800, "3h"))
_EXACT_COUNTS = (1, 2, 4, 5)
_RATE_SHOWS = ("rollup", "services")


@dataclass
class _Event:
    """One log line to write: its UTC moment, level, service and latency (as written)."""

    moment: datetime.datetime
    level: str
    service: str
    latency: str
    zone: str | None = None


def _base(rng: random.Random) -> datetime.datetime:
    return datetime.datetime(rng.randint(2024, 2027), rng.randint(1, 12), rng.randint(1, 28), rng.randrange(24))


def _stamp(rng: random.Random, moment: datetime.datetime, zone: str | None) -> str:
    """The timestamp of ``moment`` as a host writes it (sometimes a fraction; Z, nothing, or its zone's offset)."""
    fraction = f".{rng.randrange(10**3):03d}"[: rng.randint(2, 4)] if rng.random() < 0.2 else ""
    if zone is not None:
        minutes = (int(zone[1:3]) * 60 + int(zone[4:6])) * (1 if zone[0] == "+" else -1)
        return (moment + datetime.timedelta(minutes=minutes)).isoformat() + fraction + zone
    return moment.isoformat() + fraction + rng.choice(("Z", "", "Z"))


def _line(rng: random.Random, event: _Event) -> str:
    parts = [_stamp(rng, event.moment, event.zone), event.level, event.service, event.latency]
    message = rng.choice(_MESSAGES)
    return (" " if rng.random() < 0.85 else "\t").join(parts + ([message] if message else []))


def _spelled(rng: random.Random, level: str, free: bool) -> str:
    """A level as some team writes it (canonical capitals unless ``free``)."""
    return rng.choice(_ALIASES[level]) if free and rng.random() < 0.35 else level


def _service(rng: random.Random, name: str, free: bool) -> str:
    return rng.choice((name.upper(), name.title())) if free and rng.random() < 0.12 else name


def _latency(rng: random.Random, fixed: int | None = None) -> str:
    if rng.random() < 0.2:
        return "-"
    value = fixed if fixed is not None else rng.randint(1, 900)
    return f"{value}ms" if rng.random() < 0.3 else str(value)


def _public_log(op: str, names: list[str], length: int, rng: random.Random) -> str:
    """A simple log: canonical capitals, UTC, no gaps, exact error shares, one latency value, no ties."""
    start, latency = _base(rng), rng.randint(5, 500)
    chosen = rng.sample(names, 3)

    def moment(slot: int) -> datetime.datetime:
        return start + datetime.timedelta(seconds=slot * length + rng.randrange(length))

    if op == "top":  # error events only and distinct counts, so that no counting or tie rule shows
        counts = dict(zip(chosen, (3, 2, 1), strict=True))
        events = [_Event(moment(0), "ERROR", name, _latency(rng)) for name in chosen for _ in range(counts[name])]
    else:
        events = [
            _Event(moment(slot), rng.choice(("INFO", "DEBUG", "ERROR", "INFO")), chosen[0], _latency(rng, latency))
            for slot in range(1 if op == "services" else rng.randint(1, 2))
            for _ in range(rng.choice(_EXACT_COUNTS))
        ]
    lines = [_line(rng, e) for e in sorted(events, key=lambda e: e.moment)]
    if op == "check":
        stamp = start.isoformat()
        lines.insert(rng.randrange(len(lines) + 1), f"{stamp} trace {chosen[0]} 5")
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(("garbage line", f"{stamp} INFO")))
    return "\n".join(lines) + "\n"


class _Messy:
    """The draws of one messy log: its start, services, windows, hosts in other zones, and whether spellings vary."""

    def __init__(self, op: str, names: list[str], length: int, kind: SampleKind, rng: random.Random,
                 zoned: bool) -> None:  # fmt: skip
        self.op, self.length, self.rng = op, length, rng
        self.start, self.free = _base(rng), kind != "boundary" or rng.random() < 0.5
        most = {"top": len(names), "services": 6}.get(op, 4)
        self.services = rng.sample(names, rng.randint(4 if op == "top" else 1, most))
        if op == "top":  # several instances of one service, as pods name themselves
            self.services += [f"{rng.choice(self.services)}-{k}" for k in range(1, rng.randint(1, 4))]
        self.slots = sorted(rng.sample(range(12), rng.randint(1, 5)))
        if kind == "boundary":
            self.slots = rng.choice(([0], [0, 11], self.slots))
        away = rng.sample(self.services, min(len(self.services), rng.randint(1, 2))) if zoned and self.free else []
        self.zones = {service: rng.choice(_OFFSETS) for service in away}  # their hosts stamp local time

    def event(self, slot: int, level: str, service: str, plain: bool = False) -> _Event:
        rng, loose = self.rng, self.free and not plain
        moment = self.start + datetime.timedelta(seconds=slot * self.length + rng.randrange(self.length))
        zone = None if plain else self.zones.get(service)
        return _Event(moment, _spelled(rng, level, loose), _service(rng, service, loose), _latency(rng), zone)

    def events(self) -> list[_Event]:
        rng, top = self.rng, self.op == "top"
        weights, counts = ((1, 3, 2, 4, 1), (1, 1, 2, 2, 3, 4)) if top else (_WEIGHTS, (0, 1, 2, 3))
        events = [self.event(rng.choice(self.slots), rng.choices(LEVELS, weights)[0], service)
                  for service in self.services for _ in range(rng.choice(counts))]  # fmt: skip
        if self.op in _RATE_SHOWS and rng.random() < 0.4:  # one window of 16 events, 1, 5 or 9 errors: halves show
            errors = rng.choice((1, 5, 9))
            slot = rng.choice([k for k in range(12) if k not in self.slots])
            levels = ["ERROR" if i < errors else rng.choice(("INFO", "DEBUG")) for i in range(16)]
            events += [self.event(slot, level, self.services[0], plain=True) for level in levels]
        events.sort(key=lambda e: e.moment)
        if len(events) > 3 and rng.random() < 0.3:  # a host that flushed late
            events.append(events.pop(rng.randrange(len(events) // 2)))
        return events

    def text(self) -> str:
        rng = self.rng
        lines = [_line(rng, e) for e in self.events()]
        bad = rng.choice((0, 1, 2, 7)) if self.op == "check" or rng.random() < 0.3 else 0
        stamp = self.start.isoformat()
        for _ in range(bad):
            text = rng.choice(_BAD_LINES).format(ts=stamp, day=stamp[:10], svc=rng.choice(self.services))
            lines.insert(rng.randrange(len(lines) + 1), text)
        for _ in range(rng.choice((0, 0, 1, 2))):
            lines.insert(rng.randrange(len(lines) + 1), rng.choice(("", "   ", "\t")))
        ending = "\r\n" if rng.random() < 0.15 else "\n"
        return ending.join(lines) + (ending if rng.random() < 0.8 else "")


def _break(data: dict[str, Any], rng: random.Random) -> None:
    """A malformed request; every variant keeps drawn content (the title, the log's lines)."""
    choice = rng.randrange(6)
    if choice == 0:  # the log sent as a list of lines, under another key, or as a line count
        lines = data.pop("log").splitlines()
        shapes = ({"log": lines}, {"lines": lines}, {"log": len(lines), "host": lines[0] if lines else ""})
        data.update(rng.choice(shapes))
    elif choice == 1 and data["op"] in WINDOWED:
        data["window"] = rng.choice(("0m", "05m", "25h", "1d", "5M", "1.5h", "5 minutes", 5, None))
    elif choice == 1 and data["op"] == "top":
        data["n"] = rng.choice((0, 21, "3", True, 2.5, None))
    elif choice == 2:
        data["op"] = rng.choice(("roll-up", "Top", "summary", None))
    else:  # a log most of whose lines cannot be read
        lines = data["log"].split("\n")
        for index in rng.sample(range(len(lines)), max(1, len(lines) // 2)):
            lines[index] = rng.choice(_BAD_LINES).format(ts="2024-02-30T10:00:00", day="2024-02-30", svc="api")
        data["log"] = "\n".join(lines)


class LogSummary(Family):
    """Service-log reports; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``: op, a drawn title, the log, and the op's options."""
        op = OPS[feature]
        title = rng.choice(plan.skin.pools["titles"]).format(n=rng.randint(1, 9999))
        data: dict[str, Any] = {"op": op, "title": title}
        names = list(plan.skin.pools["names"])
        if kind == "public":
            length, window = rng.choice(_WINDOWS)
            if op in WINDOWED:
                data["window"] = window
            data["log"] = _public_log(op, names, length, rng)
        else:
            data["log"] = self._messy(data, names, kind, rng)
        if op == "top" and (kind == "public" or rng.random() < 0.5):
            data["n"] = rng.randint(1, 3) if kind == "public" else rng.randint(1, 12)
        if kind == "malformed":
            _break(data, rng)
        return data

    @staticmethod
    def _messy(data: dict[str, Any], names: list[str], kind: SampleKind, rng: random.Random) -> str:
        """A messy log; a windowed request whose hosts stamp offsets uses hour-long windows (few empty ones)."""
        op, offsets = data["op"], rng.random() < 0.5
        if op not in WINDOWED:
            length = rng.choice(_WINDOWS)[0]
        elif offsets:
            length, data["window"] = rng.choice(_HOUR_WINDOWS)
        elif rng.random() < 0.6:
            length, data["window"] = rng.choice(_WINDOWS)
        else:  # no window given: events a minute apart at most, whatever the default is
            length = 60
        return _Messy(op, names, length, kind, rng, offsets).text()
