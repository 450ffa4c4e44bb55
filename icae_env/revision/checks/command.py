"""``command`` checks: run a command in a fresh sandbox copy and test its exit code and output."""

from __future__ import annotations

import shlex

from icae_env.revision.check_models import CommandCheck
from icae_env.revision.checks.common import CheckContext, CheckOutcome, fresh_copy, match_text

__all__ = ["run_command_check"]

_STDIN_FILE = ".icae-check-stdin"


def run_command_check(check: CommandCheck, ctx: CheckContext) -> CheckOutcome:
    """Run ``check.run`` (with ``check.stdin``) and test every expectation."""
    outcome = CheckOutcome()
    with fresh_copy(ctx) as box:
        command = check.run
        if check.stdin is not None:
            box.write_file(_STDIN_FILE, check.stdin)
            command = f"{{ {check.run}\n}} < {shlex.quote(_STDIN_FILE)}"
        result = box.exec(command, timeout=check.timeout_s)
    (ctx.evidence / "stdout.txt").write_text(result.stdout, encoding="utf-8")
    (ctx.evidence / "stderr.txt").write_text(result.stderr, encoding="utf-8")
    outcome.evidence += ["stdout.txt", "stderr.txt"]
    if result.timed_out:
        outcome.error = f"command timed out after {check.timeout_s:g} s"
        return outcome
    for expect in check.expect:
        if expect.exit_code is not None:
            ok = result.exit_code == expect.exit_code
            outcome.add(ok, f"exit code {result.exit_code} (expected {expect.exit_code})")
        if expect.stdout is not None:
            ok, detail = match_text(result.stdout, expect.stdout)
            outcome.add(ok, f"stdout: {detail}")
        if expect.stderr is not None:
            ok, detail = match_text(result.stderr, expect.stderr)
            outcome.add(ok, f"stderr: {detail}")
    return outcome
