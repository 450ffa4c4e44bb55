"""``judge`` checks: gather files and a command's output as evidence and ask the configured LLM judge."""

from __future__ import annotations

import json

from icae_env.llm_http import LLMHttpError
from icae_env.revision.check_models import JudgeCheck
from icae_env.revision.checks.common import CheckContext, CheckOutcome, fresh_copy
from icae_env.revision.checks.source import matching_files
from icae_env.revision.llm_judge import JudgeReplyError

__all__ = ["run_judge_check", "judge_evidence"]


def judge_evidence(check: JudgeCheck, ctx: CheckContext) -> str:
    """Return the evidence text shown to the judge (files, then the command's output), cut to ``max_chars``."""
    parts = []
    for pattern in check.files:
        names = matching_files(ctx.workspace, pattern)
        if not names:
            parts.append(f"=== {pattern}: no such file ===\n")
        for name in names:
            with (ctx.workspace / name).open("rb") as handle:
                text = handle.read(check.max_chars).decode("utf-8", errors="replace")
            parts.append(f"=== file {name} ===\n{text}\n")
    if check.command:
        with fresh_copy(ctx) as box:
            result = box.exec(check.command, timeout=60)
        parts.append(f"=== $ {check.command} (exit {result.exit_code}) ===\n{result.stdout}{result.stderr}\n")
    text = "".join(parts)
    return text if len(text) <= check.max_chars else text[: check.max_chars] + "\n[... evidence cut ...]\n"


def run_judge_check(check: JudgeCheck, ctx: CheckContext, criterion: str) -> CheckOutcome:
    """Grade ``criterion`` with the judge; ungraded when no judge is configured or the judge fails."""
    outcome = CheckOutcome()
    evidence = judge_evidence(check, ctx)
    (ctx.evidence / "evidence.txt").write_text(evidence, encoding="utf-8")
    outcome.evidence.append("evidence.txt")
    if ctx.judge is None:
        outcome.graded, outcome.error = False, "no judge configured"
        return outcome
    try:
        result = ctx.judge.grade(criterion, evidence, check.guidance)
    except JudgeReplyError as exc:  # the evidence (agent text) may have derailed the judge: no credit
        outcome.error = f"unusable judge reply: {exc}"
        return outcome
    except LLMHttpError as exc:  # the endpoint failed: infrastructure, not the agent
        outcome.graded, outcome.error = False, f"judge failed: {exc}"
        return outcome
    (ctx.evidence / "judge.json").write_text(json.dumps(result.exchanges, indent=1, ensure_ascii=False))
    outcome.evidence.append("judge.json")
    outcome.verdict = result.verdict
    outcome.add(result.verdict.value != "FAIL", f"judge: {result.judge_verdict.value}")
    if result.refuted or result.judge_verdict.value != "FAIL":
        outcome.add(not result.refuted, f"verifier: {'refuted' if result.refuted else 'upheld'}; {result.reason}")
    return outcome
