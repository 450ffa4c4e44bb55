"""``retry-schedule``: a retry-policy calculator (back-off timelines and retry decisions), from ``retry-policy``.

Texts, decisions and skins are in ``family.yaml``; the golden in ``golden/`` and ``blocks/``. Samplers keep
each house rule where its feature puts it: jitter with a cap only in the jitter feature, deadlines only in the
deadline feature, several broken fields only in the validation feature (elsewhere a malformed request breaks one
field), so that a task never depends on a rule it does not have.
"""

from __future__ import annotations

import json
import random
from typing import Any

from icae_env.families.spec import Family, Plan, SampleKind

__all__ = ["RetrySchedule"]

_TRANSIENT = (500, 502, 503, 504)  # retryable under every default status list
_FINAL = (400, 401, 403, 404, 409, 422)  # final under every default status list
_SUCCESS = (200, 201, 202, 204)
_DISPUTED = (408, 429, 501, 505, 507)  # the default status lists disagree on these
_ERRORS = ("timeout", "connection_reset")
_CASED = ("Timeout", "TIMEOUT", "Connection_Reset", "CONNECTION_RESET")
_OTHER_ERRORS = ("dns_failure", "tls_handshake", "socket_closed")
_MULTIPLIERS = (1.5, 1.25, 1.75, 2.5, 1.1, 1.05, 1.2, 1.6, 1.35, 2.25)
#: One invalid value per field, in the golden's checking order (the validation feature breaks some of them).
_BREAKERS: dict[str, tuple[Any, ...]] = {
    "strategy": ("Fixed", "random", "", "exponential ", 3),
    "base_ms": (-5, "100", 12.5, True),
    "step_ms": (-1, "50", 2.5),
    "multiplier": (0.5, 11, 1.555, "2", 10.01),
    "max_delay_ms": (-1, "1000", 1.5),
    "attempts": (0, 101, "3", 2.5, True),
    "jitter": (
        {"mode": "full"},
        {"mode": "random", "seed": 7},
        {"mode": "equal", "seed": -1},
        {"mode": "full", "seed": 2**31},
        "full",
    ),  # fmt: skip
    "retry_on": ({"status": ["5XX"]}, {"status": [600]}, {"errors": [""]}, {"status": "5xx"}, [503]),
    "deadline_ms": (-1, "5000", 2.5),
}


def _failures(rng: random.Random, count: int) -> list[Any]:
    """Failures every default list retries (statuses and the default error classes)."""
    return [rng.choice((*_TRANSIENT, *_TRANSIENT, *_ERRORS)) for _ in range(count)]


def _base(rng: random.Random, large: float = 0.35) -> int:
    return rng.randint(1000, 2600) if rng.random() < large else rng.randint(20, 900)


def _attempts(rng: random.Random, policy: dict[str, Any], low: int = 2, high: int = 6) -> None:
    roll = rng.random()
    if roll < 0.55:
        policy["attempts"] = rng.randint(low, high)
    elif roll < 0.65:
        policy["attempts"] = None


def _outcomes(rng: random.Random, longest: int) -> list[Any]:
    """Some failures (one of them now and then disputed), rarely ending in a success or a final outcome."""
    outcomes = _failures(rng, rng.randint(0, longest))
    if outcomes and rng.random() < 0.3:
        outcomes[rng.randrange(len(outcomes))] = rng.choice((*_DISPUTED, *_CASED))
    roll = rng.random()
    if roll < 0.12:
        outcomes.append(rng.choice(_SUCCESS))
    elif roll < 0.2:
        outcomes.append(rng.choice(_FINAL))
    return outcomes


def _public_outcomes(rng: random.Random, policy: dict[str, Any]) -> list[Any]:
    """Failures then a success, inside an explicit attempt limit (no default or limit rule shows)."""
    failures = rng.randint(0, 2)
    policy["attempts"] = failures + rng.randint(2, 4)
    return [*_failures(rng, failures), rng.choice(_SUCCESS)]


class RetrySchedule(Family):
    """A retry-policy calculator; texts and decisions in ``family.yaml``."""

    def sample(self, plan: Plan, feature: str, kind: SampleKind, rng: random.Random) -> Any:
        """One request for ``feature``."""
        name = rng.choice(plan.skin.pools["names"])
        policy, outcomes = getattr(self, "_" + feature.split("_", 1)[1])(rng, kind)
        data: dict[str, Any] = {"name": name, "policy": policy}
        if outcomes is not None:
            data["outcomes"] = outcomes
        if isinstance(policy, dict) and rng.random() < 0.15:
            policy["owner"] = rng.choice(("team-a", "sre", "platform"))  # unknown fields are ignored
        if kind == "malformed" and feature != "feature6_validation":
            return self._break_one(data, rng) if rng.random() < 0.35 else self._messy(data, rng)
        return data

    # --- features ---------------------------------------------------------------------------------------------

    def _fixed_linear(self, rng: random.Random, kind: SampleKind) -> tuple[dict[str, Any], Any]:
        strategy = rng.choice(("fixed", "linear"))
        if kind == "public":
            policy: dict[str, Any] = {"strategy": strategy, "base_ms": rng.randint(10, 150)}
            if strategy == "linear":
                policy["step_ms"] = rng.randint(0, 100)
            return policy, _public_outcomes(rng, policy)
        policy = {"strategy": strategy, "base_ms": _base(rng)}
        if strategy == "linear" and rng.random() < 0.6:
            policy["step_ms"] = rng.randint(0, 900)
        if kind == "boundary":
            policy["base_ms"] = rng.choice((0, 999, 1000, 1, rng.randint(1, 99)))
            policy["attempts"] = rng.choice((1, 1, 2, rng.randint(8, 12)))
            if strategy == "linear":
                policy["step_ms"] = rng.randint(0, 900)
            else:  # a cap at or above every delay (drawn, so that no two tasks share the case)
                policy["max_delay_ms"] = policy["base_ms"] + rng.randint(0, 9000)
            return policy, rng.choice(([], None, _failures(rng, 1), _failures(rng, 2)))
        _attempts(rng, policy)
        return policy, _outcomes(rng, 4)

    def _exponential(self, rng: random.Random, kind: SampleKind) -> tuple[dict[str, Any], Any]:
        policy: dict[str, Any] = {"strategy": "exponential", "base_ms": rng.randint(5, 400)}
        if kind == "public":
            policy["multiplier"] = 1
            return policy, _public_outcomes(rng, policy)
        if rng.random() < 0.75:
            policy["multiplier"] = rng.choice(
                _MULTIPLIERS + (2, 3, 1.5, 2.5, 1.5, 2.5)
            )  # halves: rounding rules differ
            policy["base_ms"] |= 1 if rng.random() < 0.6 else 0
        if rng.random() < 0.5:
            policy["max_delay_ms"] = rng.randint(policy["base_ms"], policy["base_ms"] * 8)
        if kind == "boundary":
            policy.update(rng.choice(({"multiplier": 10, "max_delay_ms": 30000}, {"multiplier": 1.01}, {"base_ms": 0},
                                      {"max_delay_ms": 0}, {"multiplier": 10})))  # fmt: skip
            policy["attempts"] = rng.randint(4, 8)
            if not policy["base_ms"] or not policy.get("max_delay_ms", 1):  # every wait 0: draw the rest
                policy.setdefault("multiplier", rng.choice(_MULTIPLIERS))
                return policy, _failures(rng, rng.randint(1, 3))
            return policy, _failures(rng, rng.randint(0, 3))
        _attempts(rng, policy, 3, 7)
        return policy, _outcomes(rng, 5)

    def _retryable(self, rng: random.Random, kind: SampleKind) -> tuple[dict[str, Any], Any]:
        policy: dict[str, Any] = {"strategy": "fixed", "base_ms": rng.randint(20, 250)}
        if kind == "public":
            policy["retry_on"] = {"status": rng.sample((429, 503, "5xx", 408, 502), 2), "errors": list(_ERRORS)}
            return policy, _public_outcomes(rng, policy)
        policy["attempts"], policy["base_ms"] = rng.randint(3, 8), rng.randint(300, 1800)
        if kind == "boundary":
            policy["retry_on"] = rng.choice(({"status": [], "errors": []}, {"status": ["4xx"]}, {"errors": None},
                                             {"status": [599, "1xx"], "errors": ["dns_failure"]}))  # fmt: skip
            edge = [rng.choice((408, 429, 599, 100, 399, 499, "dns_failure")) for _ in range(rng.randint(1, 3))]
            return policy, [*_failures(rng, rng.randint(0, 2)), *edge]
        roll = rng.random()
        if roll < 0.25:
            policy["retry_on"] = {"errors": rng.sample((*_ERRORS, *_OTHER_ERRORS), rng.randint(1, 3))}
        elif roll < 0.45:
            policy["retry_on"] = {"status": rng.sample((429, 503, "5xx", 408, 502, "4xx", 500), rng.randint(1, 3))}
        elif roll < 0.6:
            policy["retry_on"] = {"status": [rng.choice((429, 503, "5xx"))], "errors": [rng.choice(_ERRORS)]}
        pool = (*_TRANSIENT, *_DISPUTED, *_DISPUTED, *_ERRORS, *_CASED, *_CASED, rng.choice(_OTHER_ERRORS))
        outcomes = [rng.choice(pool) for _ in range(rng.randint(2, 6))]
        if rng.random() < 0.3:
            outcomes.append(rng.choice(_SUCCESS + _FINAL))
        return policy, outcomes

    def _jitter(self, rng: random.Random, kind: SampleKind) -> tuple[dict[str, Any], Any]:
        mode = rng.choice(("full", "equal"))
        if kind == "public":
            policy: dict[str, Any] = {"strategy": "fixed", "base_ms": rng.randint(20, 300)}
            policy["jitter"] = {"mode": mode, "seed": rng.randrange(2**31)}
            return policy, _public_outcomes(rng, policy)
        strategy = rng.choice(("exponential", "exponential", "fixed"))
        policy = {
            "strategy": strategy,
            "base_ms": _base(rng, 0.4),
            "jitter": {"mode": mode, "seed": rng.randrange(2**31)},
        }
        if strategy == "exponential" and rng.random() < 0.6:
            policy["multiplier"] = rng.choice(_MULTIPLIERS + (2, 3))
        if rng.random() < 0.75:
            policy["max_delay_ms"] = rng.randint(policy["base_ms"] // 2, policy["base_ms"] * 3)
        if kind == "boundary":
            policy["jitter"] = rng.choice(({"mode": mode, "seed": 0}, {"mode": mode, "seed": 2**31 - 1},
                                           {"mode": "none", "seed": -3}, {"mode": mode, "seed": 42}))  # fmt: skip
            policy["attempts"] = rng.randint(2, 5)
            return policy, _failures(rng, rng.randint(0, 2))
        _attempts(rng, policy, 3, 6)
        return policy, _outcomes(rng, 4)

    def _deadline(self, rng: random.Random, kind: SampleKind) -> tuple[dict[str, Any], Any]:
        policy: dict[str, Any] = {"strategy": rng.choice(("fixed", "linear")), "base_ms": _base(rng, 0.3)}
        if policy["strategy"] == "linear":
            policy["step_ms"] = rng.randint(0, 600)
        step = policy.get("step_ms", 0)
        delays = [policy["base_ms"] + n * step for n in range(12)]
        if kind == "public":
            policy["deadline_ms"] = sum(delays) + rng.randint(1000, 9000)
            return policy, _public_outcomes(rng, policy)
        policy["attempts"] = rng.randint(3, 8)
        reach = rng.randint(1, policy["attempts"] - 1)
        spent = sum(delays[:reach])
        policy["deadline_ms"] = rng.choice((
            spent, spent, spent + rng.randint(1, max(1, delays[reach] - 1)), max(spent - 1, 0),
            spent + delays[reach] // 2,
        ))  # fmt: skip
        if kind == "boundary":
            policy["deadline_ms"] = rng.choice(
                (0, policy["base_ms"], policy["base_ms"] - 1 if policy["base_ms"] else 0)
            )
        return policy, _failures(rng, rng.randint(0, policy["attempts"]))

    def _validation(self, rng: random.Random, kind: SampleKind) -> tuple[dict[str, Any], Any]:
        strategy = rng.choice(("fixed", "linear", "exponential"))
        policy: dict[str, Any] = {"strategy": strategy, "base_ms": _base(rng), "attempts": rng.randint(2, 6)}
        outcomes: Any = _failures(rng, rng.randint(0, 3))
        fields = [f for f in _BREAKERS if (f != "step_ms" or strategy == "linear") and
                  (f != "multiplier" or strategy == "exponential")]  # fmt: skip
        if kind == "boundary" or (kind == "typical" and rng.random() < 0.4):
            return self._edge(rng, policy, outcomes)
        count = 1 if kind == "public" else rng.choice((2, 2, 3, 1))
        for field in rng.sample(fields, count):
            policy[field] = rng.choice(_BREAKERS[field])
        if kind != "public" and rng.random() < 0.25:
            outcomes = rng.choice(("503", [503, 0], [503, ""], [200, True], [600]))
        if kind == "malformed":
            text = f"{strategy} {policy['base_ms']}ms x{policy['attempts']}"
            broken: tuple[Any, ...] = ([policy], text, json.dumps(policy), {"policy": policy})
            return rng.choice(broken), outcomes
        return policy, outcomes

    @staticmethod
    def _edge(rng: random.Random, policy: dict[str, Any], outcomes: Any) -> tuple[dict[str, Any], Any]:
        """Values on the edge of valid (some in, some out)."""
        field, value = rng.choice((
            ("multiplier", 10), ("multiplier", 10.01), ("multiplier", 1.55), ("attempts", 100), ("attempts", 101),
            ("base_ms", 0), ("jitter", {"mode": "equal", "seed": 2**31 - 1}),
            ("jitter", {"mode": "full", "seed": 2**31}),
            ("retry_on", {"status": ["5xx", 599]}), ("retry_on", {"status": [99]}), ("deadline_ms", 0),
        ))  # fmt: skip
        if field == "multiplier":
            policy["strategy"] = "exponential"
        policy[field] = value
        policy.setdefault("max_delay_ms", rng.randint(1000, 60000))  # drawn, so that no two tasks share the case
        if rng.random() < 0.3:
            outcomes = [*_failures(rng, rng.randint(0, 2)), *rng.choice(([599, 100], [99], ["x"]))]
        return policy, outcomes

    # --- malformed requests of the other features: one broken field, or messy but valid ------------------------

    @staticmethod
    def _messy(data: dict[str, Any], rng: random.Random) -> Any:
        """Explicit nulls for optional fields, stray fields, error classes in other letter cases."""
        policy = data["policy"]
        for field in rng.sample(("max_delay_ms", "deadline_ms", "step_ms", "multiplier"), 2):
            policy.setdefault(field, None)
        if "retry_on" not in policy and rng.random() < 0.5:
            policy["retry_on"] = {"status": None, "errors": None}
        outcomes = data.get("outcomes") or _failures(rng, 2)
        data["outcomes"] = [rng.choice(_CASED) if o in _ERRORS else o for o in outcomes]
        return {**data, "trace_id": f"t-{rng.randrange(16**6):06x}"}

    @staticmethod
    def _break_one(data: dict[str, Any], rng: random.Random) -> Any:
        policy = dict(data["policy"])
        choice = rng.randrange(7)
        if choice == 0:
            return {**data, "name": rng.choice(("", "   ", 17))}
        if choice == 1:
            text = f"{policy.get('strategy')} {policy.get('base_ms')}ms"  # the policy as a person would write it
            return {"name": data["name"], "policy": rng.choice((list(policy.items())[:2], text, [policy]))}
        if choice == 2:
            return {**data, "outcomes": rng.choice(("503", [503, 0], [policy.get("base_ms", 1), ""], [True]))}
        if choice == 3:
            return [data["name"], policy]
        field = rng.choice(("strategy", "base_ms", "max_delay_ms", "attempts", "jitter", "retry_on"))
        policy[field] = rng.choice(_BREAKERS[field])
        return {**data, "policy": policy}
