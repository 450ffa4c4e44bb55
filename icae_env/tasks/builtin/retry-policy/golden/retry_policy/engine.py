"""Run a policy over a sequence of attempt outcomes and produce a report."""

from __future__ import annotations

from dataclasses import dataclass, field

from .classify import Verdict, classify
from .delays import capped_delay
from .jitter import JitterSource
from .model import Outcome, Policy

FAIL_LABEL = "fail"


@dataclass(frozen=True)
class AttemptRecord:
    number: int
    label: str
    action: str  # "retry", "success" or "give_up"
    delay_ms: int = 0
    elapsed_ms: int = 0


@dataclass
class Report:
    attempts: list[AttemptRecord] = field(default_factory=list)
    reason: str = ""
    waited_ms: int = 0


def simulate(policy: Policy, outcomes: list[Outcome]) -> Report:
    """Walk attempts 1..max_attempts, deciding after each one whether and when to retry."""
    report = Report()
    jitter = JitterSource(policy.jitter.mode, policy.jitter.seed)
    elapsed = 0
    for number in range(1, policy.max_attempts + 1):
        outcome = outcomes[number - 1] if number <= len(outcomes) else None
        label = outcome.label if outcome is not None else FAIL_LABEL
        verdict = classify(outcome, policy.retry_on)
        if verdict is Verdict.SUCCESS:
            report.attempts.append(AttemptRecord(number, label, "success"))
            report.reason = "success"
            break
        if verdict is Verdict.FATAL:
            report.attempts.append(AttemptRecord(number, label, "give_up"))
            report.reason = "not_retryable"
            break
        if number == policy.max_attempts:
            report.attempts.append(AttemptRecord(number, label, "give_up"))
            report.reason = "max_attempts"
            break
        delay = jitter.spread(capped_delay(policy, number))
        if policy.deadline_ms is not None and elapsed + delay > policy.deadline_ms:
            report.attempts.append(AttemptRecord(number, label, "give_up"))
            report.reason = "deadline"
            break
        elapsed += delay
        report.attempts.append(AttemptRecord(number, label, "retry", delay, elapsed))
    report.waited_ms = elapsed
    return report
