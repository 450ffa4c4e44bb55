"""The attempt loop: classify each outcome, wait or give up, within
the limit and the budget."""

from .delays import Jitter, next_delay
from .rules import DEADLINE_INCLUSIVE, SHORTEN_LAST_WAIT, attempt_limit, error_matches, unlisted


def classify(outcome, policy):
    """success, retry or final (``None`` is the generic failure of an unlisted attempt)."""
    if outcome is None:
        return "retry"
    if isinstance(outcome, int):
        if outcome < 400:
            return "success"
        return "retry" if outcome in policy.status or f"{outcome // 100}xx" in policy.status else "final"
    return "retry" if error_matches(outcome, policy.errors) else "final"


def fit(policy, elapsed, delay):
    """The wait the deadline lets the client take for ``delay`` (None: it gives up)."""
    if policy.deadline_ms is None:
        return delay
    allowed = policy.deadline_ms - elapsed - (0 if DEADLINE_INCLUSIVE else 1)
    if delay <= allowed:
        return delay
    return allowed if SHORTEN_LAST_WAIT and allowed > 0 else None


def run(policy, outcomes):
    """Attempt records ``(number, label, action, delay, elapsed)``, the reason and the total wait."""
    records, elapsed, jitter = [], 0, Jitter(policy.jitter, policy.seed)
    limit = attempt_limit(policy.attempts)
    for number in range(1, limit + 1):
        outcome = outcomes[number - 1] if number <= len(outcomes) else unlisted(outcomes)
        label = "fail" if outcome is None else str(outcome)
        verdict = classify(outcome, policy)
        if verdict == "success":
            return records + [(number, label, "success", 0, elapsed)], "success", elapsed
        if verdict == "final":
            return records + [(number, label, "give up", 0, elapsed)], "not_retryable", elapsed
        if number == limit:
            return records + [(number, label, "give up", 0, elapsed)], "max_attempts", elapsed
        delay = fit(policy, elapsed, next_delay(policy, number, jitter))
        if delay is None:
            return records + [(number, label, "give up", 0, elapsed)], "deadline", elapsed
        elapsed += delay
        records.append((number, label, "retry", delay, elapsed))
    return records, "max_attempts", elapsed
