"""``rate-limiter``: token-bucket replays of recorded request traces (a held-out family: all its tasks are test).

Generalises the built-in ``token-bucket`` task (exact milli-token arithmetic, per-key buckets, a shared clock, retry
hints, invalid events, a summary): its decisions (how refills are stepped, how a new bucket starts, what a late
timestamp means, whether a denial costs, what an oversize or keyless event is, how keys match, whether one bad event
stops the run, how hints are rounded, how tallies are ordered and counted, where windows start) are drawn per task.
Texts and decisions in ``family.yaml``; the golden in ``golden/`` and ``blocks/``; samplers here.
"""

from __future__ import annotations

import json
import random
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["RateLimiter"]

OPS = {"feature1_replay": "replay", "feature2_retry": "retry", "feature3_keys": "keys", "feature4_summary": "summary",
       "feature5_windows": "windows"}  # fmt: skip
TICKS = (100, 200, 250, 500, 1000)
STEPS = (0, 0, 30, 60, 100, 150, 250, 400, 800)


def _keys(plan: Plan, rng: random.Random, count: int) -> list[str]:
    """Distinct keys from the skin's pool; sometimes one of them also appears with a capital (the same under lower)."""
    keys = rng.sample(list(plan.skin.pools["keys"]), count)
    if rng.random() < 0.35:
        keys.append(rng.choice(keys).capitalize())
    return keys


def _trace(rng: random.Random, keys: list[str], capacity: int, count: int) -> list[dict[str, Any]]:
    """Events in time order: bursts and pauses, mostly cost 1."""
    t, events = rng.randint(0, 600), []
    for _ in range(count):
        t += rng.choice(STEPS)
        cost = 1 if rng.random() < 0.55 else rng.randint(2, capacity)
        events.append({"t": t, "cost": cost, "key": rng.choice(keys)} if cost > 1 or rng.random() < 0.5 else
                      {"t": t, "key": rng.choice(keys)})  # fmt: skip
    return events


def _lag(rng: random.Random, events: list[dict[str, Any]], capacity: int) -> None:
    """A collector lagging behind: a drained key's event arrives after a later event of another key."""
    keys = list(dict.fromkeys(e["key"] for e in events))
    late, other = rng.sample(keys, 2) if len(keys) > 1 else [keys[0], keys[0] + "-b"]
    t = events[-1]["t"] + rng.randint(1, 300)
    behind, ahead = rng.randint(60, 400), rng.randint(500, 1500)
    events += [{"t": t, "cost": capacity, "key": late}, {"t": t + ahead, "key": other},
               {"t": t + behind, "key": late, "cost": rng.randint(1, capacity)}]  # fmt: skip


def _spoil(rng: random.Random, events: list[Any], capacity: int) -> None:
    """At most one of each real-world flaw: a late timestamp, an oversize cost, keyless events, one invalid entry."""
    if rng.random() < 0.4:
        _lag(rng, events, capacity)
    if rng.random() < 0.2:
        rng.choice(events)["cost"] = capacity + rng.randint(1, 2)
    if rng.random() < 0.25:
        for event in rng.sample(events, min(len(events), rng.randint(1, 2))):
            if rng.random() < 0.7:
                del event["key"]
            else:
                event["key"] = None
    if rng.random() < 0.25:
        i = rng.randrange(len(events))
        bad = rng.choice(({"t": -events[i]["t"] - 1}, {"t": str(events[i]["t"])}, {"cost": 0}, {"key": ""}, None))
        events[i] = [events[i]["t"]] if bad is None else {**events[i], **bad}


class RateLimiter(Family):
    """Token-bucket replays; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        if kind == "public":
            return self._public(plan, feature, rng)
        capacity = rng.randint(2, 6)
        data: dict[str, Any] = {
            "op": OPS[feature],
            "capacity": capacity,
            "refill_rate": 0 if rng.random() < 0.08 else rng.randint(1, 4),
        }
        if rng.random() < 0.85:
            data["tick_ms"] = rng.choice(TICKS)
        if rng.random() < 0.35:
            data["initial"] = rng.randint(0, capacity)
        if feature == "feature5_windows":
            data["window_ms"] = rng.choice((250, 500, 1000, 2000))
        keys = _keys(plan, rng, rng.randint(1, 3))
        if kind == "boundary":
            data["events"] = self._boundary(rng, data, keys)
        else:
            data["events"] = _trace(rng, keys, capacity, rng.randint(6, 12))
            _spoil(rng, data["events"], capacity)
        return self._break(data, rng) if kind == "malformed" else data

    @staticmethod
    def _public(plan: Plan, feature: str, rng: random.Random) -> dict[str, Any]:
        """One lowercase key, times in order from 0, whole ticks, enough tokens for every event."""
        capacity = rng.randint(5, 10)
        key, t, events = rng.choice(plan.skin.pools["keys"]), 0, []
        for _ in range(rng.randint(2, 4)):
            events.append({"t": t, "key": key})
            t += rng.choice((100, 250, 300, 500))
        data = {"op": OPS[feature], "capacity": capacity, "refill_rate": rng.randint(1, 3), "initial": capacity}
        if feature == "feature5_windows":
            data["window_ms"] = rng.choice((500, 1000))
        return {**data, "events": events}

    @staticmethod
    def _boundary(rng: random.Random, data: dict[str, Any], keys: list[str]) -> list[Any]:
        capacity, shape = data["capacity"], rng.randrange(5)
        start = rng.randint(1, 9) * data.get("tick_ms", 100) + rng.choice((0, 1, 37))
        if shape == 0:  # a burst at one instant, one more than fits
            return [{"t": start, "key": keys[0]} for _ in range(capacity + 1)]
        if shape == 1:  # a starved newcomer: nothing to start with and no time to refill
            data["initial"] = 0
            return [{"t": start, "key": keys[0]}, {"t": start + 1, "key": keys[-1] + "2"}, {"t": start + 2}]
        if shape == 2:  # exactly on tick boundaries, the whole bucket at once
            tick = data.get("tick_ms", 100)
            return [{"t": start + i * tick, "cost": capacity, "key": rng.choice(keys)} for i in range(4)]
        if shape == 3:  # no refill at all
            data["refill_rate"] = 0
            return _trace(rng, keys, capacity, capacity + 2)
        if rng.random() < 0.3:  # an empty trace, labelled with where it was recorded (an unknown field, ignored)
            data["source"] = f"{keys[0]}-{rng.randint(100, 99_999)}"
            return []
        return [{"t": start, "cost": capacity, "key": keys[0]}]

    @staticmethod
    def _break(data: dict[str, Any], rng: random.Random) -> Any:
        """A malformed request (the settings, the op, the input itself), or a messy but valid one."""
        choice = rng.randrange(10)
        if choice == 0:
            return [data["op"], data["events"]]
        if choice == 1:
            data["op"] = rng.choice(("simulate", "Replay", "run"))
        elif choice == 2:
            data["capacity"] = rng.choice((0, -3, str(data["capacity"]), True, None))
        elif choice == 3:
            data["refill_rate"] = rng.choice((-1, "2", 1.5))
        elif choice == 4:
            data["tick_ms"] = rng.choice((0, 2.5, "100"))
        elif choice == 5:
            data["initial"] = data["capacity"] + rng.randint(1, 3)
        elif choice == 6:
            if rng.random() < 0.6:  # one event instead of a list, or the list quoted as a string (drawn content)
                data["events"] = data["events"][0] if rng.random() < 0.5 else json.dumps(data["events"])
            data.pop("window_ms", None)
        else:  # messy but valid: unknown fields, nulls for optional ones
            data[rng.choice(("comment", "source", "version"))] = rng.choice(("trace 7", 3, None))
            data["tick_ms"] = data.get("tick_ms") if rng.random() < 0.5 else None
            for event in data["events"][:2]:
                if isinstance(event, dict):
                    event["region"] = "eu-1"
        return data
