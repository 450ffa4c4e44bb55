"""The Python golden of ``rate-limiter``: a fixed core, and one building block per (decision, value)."""

from __future__ import annotations

CORE = {
    "limiter/__init__.py": '''"""Token-bucket replays: decisions, retry hints, per-key tallies, a summary, windows."""

from .app import handle

__all__ = ["handle"]
''',
    "limiter/config.py": '''"""The limit's settings, checked field by field: the first bad field is the error."""

from dataclasses import dataclass


def is_int(value):
    """JSON integers only (booleans are not numbers)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class Limit:
    capacity: int
    refill_rate: int
    tick_ms: int
    initial: object
    window_ms: object


def _optional(data, name, default):
    value = data.get(name)
    return default if value is None else value


def read_limit(data, op):
    """The limit, or the name of the first field that is not as documented."""
    capacity = data.get("capacity")
    if not is_int(capacity) or capacity < 1:
        return "capacity"
    rate = data.get("refill_rate")
    if not is_int(rate) or rate < 0:
        return "refill_rate"
    tick = _optional(data, "tick_ms", 1)
    if not is_int(tick) or tick < 1:
        return "tick_ms"
    initial = data.get("initial")
    if initial is not None and (not is_int(initial) or not 0 <= initial <= capacity):
        return "initial"
    window = data.get("window_ms")
    if op == "windows" and (not is_int(window) or window < 1):
        return "window_ms"
    if not isinstance(data.get("events"), list):
        return "events"
    return Limit(capacity, rate, tick, initial, window)
''',
    "limiter/bucket.py": '''"""One token bucket in exact milli-tokens (R tokens a second = R milli-tokens a ms)."""

from .rules import after_deny, refill, start_level, wait_ms

MILLI = 1000


class Bucket:
    def __init__(self, limit, now):
        self.limit, self.created, self.last = limit, now, now
        self.level = (start_level(limit.capacity) if limit.initial is None else limit.initial) * MILLI
        self.allowed = self.denied = 0

    def advance(self, now):
        if now > self.last:
            gained = refill(self.last, now, self.created, self.limit)
            self.level = min(self.limit.capacity * MILLI, self.level + gained)
            self.last = now

    def take(self, cost):
        """Whether ``cost`` tokens are there (then they are taken)."""
        if cost <= self.limit.capacity and cost * MILLI <= self.level:
            self.level -= cost * MILLI
            self.allowed += 1
            return True
        self.level = after_deny(self.level)
        self.denied += 1
        return False

    def wait(self, cost, now):
        """Milliseconds until ``cost`` tokens will be there, None when never."""
        if cost > self.limit.capacity or self.limit.refill_rate == 0:
            return None
        return wait_ms(cost * MILLI - self.level, now, self.created, self.limit)
''',
    "limiter/replay.py": '''"""The replay: events in list order through per-key buckets."""

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
''',
    "limiter/reports.py": '''"""The five reports over a replay."""

from .rules import counted_keys, order_keys, retry_text, window_origin


def tokens(milli):
    return f"{milli // 1000}.{milli % 1000:03d}"


def replay_lines(data, limit, run):
    lines = []
    for o in run.outcomes:
        if o.verdict == "INVALID":
            lines.append(f"#{o.index} INVALID {o.problem}")
        else:
            lines.append(f"#{o.index} t={o.t} key={o.key} {o.verdict} cost={o.cost} left={tokens(o.level)}")
    return lines or ["no events"]


def retry_lines(data, limit, run):
    lines = []
    for o in run.outcomes:
        if o.verdict == "DENY":
            wait = "never" if o.retry is None else retry_text(o.retry)
            lines.append(f"#{o.index} t={o.t} key={o.key} retry_after={wait}")
    return lines or ["no denied requests"]


def key_lines(data, limit, run):
    stats = [(key, b.allowed, b.denied) for key, b in run.buckets.items()]
    return [f"{key}: allowed={a} denied={d}" for key, a, d in order_keys(stats)] or ["no keys"]


def summary_lines(data, limit, run):
    done = [o for o in run.outcomes if o.verdict != "INVALID"]
    allowed = [o for o in done if o.verdict == "ALLOW"]
    stats = [(key, b.allowed, b.denied) for key, b in run.buckets.items()]
    return [
        f"allowed={len(allowed)} denied={len(done) - len(allowed)} invalid={len(run.outcomes) - len(done)} "
        f"keys={counted_keys(stats)} consumed={sum(o.cost for o in allowed)}"
    ]


def window_lines(data, limit, run):
    done = [o for o in run.outcomes if o.verdict != "INVALID"]
    if not done:
        return ["no requests"]
    origin, width, windows = window_origin(done[0].now), limit.window_ms, {}
    for o in done:
        start = origin + (o.now - origin) // width * width
        tally = windows.setdefault(start, [0, 0])
        tally[o.verdict == "DENY"] += 1
    return [f"{start}-{start + width}ms: allowed={a} denied={d}" for start, (a, d) in sorted(windows.items())]


REPORTS = {"replay": replay_lines, "retry": retry_lines, "keys": key_lines, "summary": summary_lines,
           "windows": window_lines}  # fmt: skip
''',
    "limiter/app.py": '''"""One trace in, one report out; the settings are checked first."""

from .config import read_limit
from .replay import replay
from .reports import REPORTS


def _lines(data):
    if not isinstance(data, dict):
        return ["error: invalid config: input"]
    op = data.get("op")
    if not isinstance(op, str) or op not in REPORTS:
        return [f"error: unknown op: {op}" if isinstance(op, str) else "error: unknown op"]
    limit = read_limit(data, op)
    if isinstance(limit, str):
        return [f"error: invalid config: {limit}"]
    run = replay(limit, data["events"])
    return [run.error] if run.error else REPORTS[op](data, limit, run)


def handle(data):
    """The whole output of one request (a JSON object: op, the limit's settings and the events)."""
    return "\\n".join(_lines(data)) + "\\n"
''',
}

BLOCKS = {
    "refill": {
        "continuous": """def refill(last, now, created, limit):
    return (now - last) * limit.refill_rate


def wait_ms(deficit, now, created, limit):
    return -(-deficit // limit.refill_rate)
""",
        "absolute": """def refill(last, now, created, limit):
    tick = limit.tick_ms
    return (now // tick - last // tick) * limit.refill_rate * tick


def wait_ms(deficit, now, created, limit):
    tick = limit.tick_ms
    ticks = -(-deficit // (limit.refill_rate * tick))
    return (now // tick + ticks) * tick - now
""",
        "from_creation": """def refill(last, now, created, limit):
    tick = limit.tick_ms
    return ((now - created) // tick - (last - created) // tick) * limit.refill_rate * tick


def wait_ms(deficit, now, created, limit):
    tick, since = limit.tick_ms, now - created
    ticks = -(-deficit // (limit.refill_rate * tick))
    return (since // tick + ticks) * tick - since
""",
    },
    "initial": {
        "full": "def start_level(capacity):\n    return capacity\n",
        "empty": "def start_level(capacity):\n    return 0\n",
    },
    "clock": {
        "per_key": """def evaluation_time(t, latest, last):
    return t if last is None else max(t, last)


def is_late(t, latest):
    return False
""",
        "shared": """def evaluation_time(t, latest, last):
    return t if latest is None else max(t, latest)


def is_late(t, latest):
    return False
""",
        "reject": """def evaluation_time(t, latest, last):
    return t


def is_late(t, latest):
    return latest is not None and t < latest
""",
    },
    "deny_cost": {
        "free": "def after_deny(level):\n    return level\n",
        "counted": "def after_deny(level):\n    return 0\n",
    },
    "oversize": {"never": "OVERSIZE_INVALID = False\n", "invalid": "OVERSIZE_INVALID = True\n"},
    "default_key": {"default": 'KEYLESS = "default"\n', "invalid": "KEYLESS = None\n"},
    "key_case": {
        "exact": "def key_of(key):\n    return key\n",
        "lower": "def key_of(key):\n    return key.lower()\n",
    },
    "invalid_events": {"skip": "ABORT_ON_INVALID = False\n", "abort": "ABORT_ON_INVALID = True\n"},
    "retry_round": {
        "ms": 'def retry_text(ms):\n    return f"{ms}ms"\n',
        "seconds": 'def retry_text(ms):\n    return f"{-(-ms // 1000)}s"\n',
    },
    "key_order": {
        "first_seen": "def order_keys(stats):\n    return list(stats)\n",
        "name": "def order_keys(stats):\n    return sorted(stats)\n",
        "busiest": "def order_keys(stats):\n    return sorted(stats, key=lambda s: (-(s[1] + s[2]), s[0]))\n",
    },
    "keys_count": {
        "created": "def counted_keys(stats):\n    return len(stats)\n",
        "active": "def counted_keys(stats):\n    return sum(1 for s in stats if s[1])\n",
    },
    "window_start": {
        "aligned": "def window_origin(first):\n    return 0\n",
        "from_first": "def window_origin(first):\n    return first\n",
    },
}

#: What a decision is when the task does not have it (its feature is absent): any value works; the first.
FALLBACK_BLOCKS = {name: next(iter(values.values())) for name, values in BLOCKS.items()}


def rules_module(values: dict[str, str]) -> str:
    """``limiter/rules.py``: the chosen block of every decision (absent decisions take a fixed one)."""
    parts = ['"""The house rules of this limiter (one block per product decision)."""\n']
    for name, blocks in BLOCKS.items():
        parts.append(blocks[values[name]] if name in values else FALLBACK_BLOCKS[name])
    return "\n\n".join(parts)


def golden_files(values: dict[str, str]) -> dict[str, str]:
    """The golden package for the decisions' ``values``."""
    return {**CORE, "limiter/rules.py": rules_module(values)}
