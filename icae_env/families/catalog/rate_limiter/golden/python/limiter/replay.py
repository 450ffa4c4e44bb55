"""The replay: events in list order through per-key buckets."""

from dataclasses import dataclass, field

from .bucket import Bucket
from .config import is_int
from .rules import ABORT_ON_INVALID, KEYLESS, OVERSIZE_INVALID, evaluation_time, is_late, key_of


@dataclass
class Outcome:
    index: int
    verdict: str = "INVALID"
    problem: str = ""
    t: int = 0
    key: str = ""
    cost: int = 0
    level: int = 0
    retry: object = None
    now: int = 0


@dataclass
class Run:
    outcomes: list = field(default_factory=list)
    buckets: dict = field(default_factory=dict)
    error: object = None


def _problem(raw, limit, latest):
    """The first failing field of one event, or None (and the event's t, cost and key)."""
    if not isinstance(raw, dict):
        return "event", None
    t, cost, key = raw.get("t"), raw.get("cost"), raw.get("key")
    if not is_int(t) or t < 0:
        return "t", None
    cost = 1 if cost is None else cost
    if not is_int(cost) or cost < 1 or (OVERSIZE_INVALID and cost > limit.capacity):
        return "cost", None
    key = KEYLESS if key is None else key
    if not isinstance(key, str) or key == "":
        return "key", None
    if is_late(t, latest):
        return "t", None
    return None, (t, cost, key_of(key))


def replay(limit, events):
    run, latest = Run(), None
    for index, raw in enumerate(events, start=1):
        problem, event = _problem(raw, limit, latest)
        if problem:
            if ABORT_ON_INVALID:
                run.error = f"error: invalid event #{index}: {problem}"
                return run
            run.outcomes.append(Outcome(index, problem=problem))
            continue
        t, cost, key = event
        bucket = run.buckets.get(key)
        now = evaluation_time(t, latest, None if bucket is None else bucket.last)
        latest = now if latest is None else max(latest, now)
        if bucket is None:
            bucket = run.buckets[key] = Bucket(limit, now)
        bucket.advance(now)
        allowed = bucket.take(cost)
        retry = None if allowed else bucket.wait(cost, now)
        verdict = "ALLOW" if allowed else "DENY"
        run.outcomes.append(Outcome(index, verdict, "", t, key, cost, bucket.level, retry, now))
    return run
