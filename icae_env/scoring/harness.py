"""Run one tier's ``test.sh`` inside a sandbox with a stall watchdog.

ICAE gives a whole tier one 2400 s limit and loses the repository on a time-out. Here the harness runs in the
background under a small bash watchdog (no forks in its loop) that kills its process group when no new output
file has appeared for ``stall_s`` seconds (``first_output_s`` before the first one, to leave room for a build).
The scorer then reruns each case that has no output alone, so one hanging case costs only its own result.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from pathlib import Path

from icae_env.errors import SandboxError
from icae_env.sandbox.base import Sandbox
from icae_env.tasks.models import CaseFile

__all__ = ["HarnessRun", "inject_cases", "run_harness"]

_STATUS_PREFIX = "__ICAE_HARNESS__"
_LOG_TAIL_BYTES = 4000
_TICK_S = 0.02

_WATCHDOG = r"""
__icae_tmp=$(mktemp -d)
mkfifo "$__icae_tmp/tick"; exec 9<>"$__icae_tmp/tick"
shopt -s nullglob
set -m
bash rcb_tests/test.sh --cases-dir {sub} >"$__icae_tmp/log" 2>&1 </dev/null &
__icae_pid=$!
set +m
__icae_last=-1; __icae_quiet=0; __icae_limit={first_ticks}; __icae_stalled=0
while kill -0 "$__icae_pid" 2>/dev/null; do
  __icae_files=(rcb_tests/stdout/{sub}/*@*.txt); __icae_n=${{#__icae_files[@]}}
  if [ "$__icae_n" -ne "$__icae_last" ]; then
    [ "$__icae_last" -ge 0 ] && [ "$__icae_n" -gt 0 ] && __icae_limit={stall_ticks}
    __icae_last=$__icae_n; __icae_quiet=0
  else
    __icae_quiet=$((__icae_quiet + 1))
  fi
  if [ "$__icae_quiet" -ge "$__icae_limit" ]; then
    kill -9 -- -"$__icae_pid" 2>/dev/null; __icae_stalled=1; break
  fi
  read -t {tick} -u 9 __icae_unused
done
wait "$__icae_pid" 2>/dev/null; __icae_status=$?
exec 9<&-
tail -c {log_bytes} "$__icae_tmp/log"
rm -rf "$__icae_tmp"
printf '\n{prefix} %d %d\n' "$__icae_status" "$__icae_stalled"
"""


@dataclass(frozen=True)
class HarnessRun:
    """What one ``test.sh`` run left behind.

    Attributes:
        exit_code: test.sh's exit status (124 when the sandbox time limit hit first).
        stalled: Whether the watchdog or the time limit killed it.
        log_tail: The last bytes of its combined stdout and stderr.
        outputs: ``{stem: {N: bytes}}`` from ``rcb_tests/stdout/<sub>/``.
        duration_s: Wall time.
    """

    exit_code: int
    stalled: bool
    log_tail: str
    outputs: dict[str, dict[int, bytes]]
    duration_s: float


def inject_cases(box: Sandbox, sub: str, case_files: tuple[CaseFile, ...] | list[CaseFile]) -> None:
    """Replace ``rcb_tests/<sub>/`` with ``case_files`` stripped of ``expected_output``; clear old outputs."""
    quoted = shlex.quote(sub)
    box.exec(f"rm -rf rcb_tests/{quoted} rcb_tests/stdout/{quoted}", timeout=60)
    for case_file in case_files:
        body = json.dumps(case_file.to_json(with_expected=False), ensure_ascii=False, indent=1)
        box.write_file(f"rcb_tests/{sub}/{case_file.stem}.json", body)


def run_harness(
    box: Sandbox, sub: str, *, time_limit: float, stall_s: float, first_output_s: float, scratch: Path
) -> HarnessRun:
    """Run ``bash rcb_tests/test.sh --cases-dir <sub>`` under the watchdog and collect its outputs.

    Args:
        box: A started sandbox holding the repository.
        sub: The cases directory name (``public_test_cases`` ...).
        time_limit: Hard limit for the whole run.
        stall_s: Kill when no new output file appeared for this long.
        first_output_s: Same, before the first output file (room for a build step).
        scratch: A host directory to copy the outputs into.

    Returns:
        The :class:`HarnessRun`.
    """
    from icae_env.scoring.compare import collect_outputs

    script = _WATCHDOG.format(
        sub=shlex.quote(sub),
        first_ticks=max(1, round(first_output_s / _TICK_S)),
        stall_ticks=max(1, round(stall_s / _TICK_S)),
        tick=_TICK_S,
        log_bytes=_LOG_TAIL_BYTES,
        prefix=_STATUS_PREFIX,
    )
    result = box.exec(script, timeout=time_limit)
    exit_code, stalled, log_tail = 124, True, result.stdout
    marker = result.stdout.rfind("\n" + _STATUS_PREFIX + " ")
    if marker >= 0 and not result.timed_out:
        status, stall_flag = result.stdout[marker:].split()[1:3]
        exit_code, stalled, log_tail = int(status), stall_flag == "1", result.stdout[:marker]
    target = scratch / sub
    outputs: dict[str, dict[int, bytes]] = {}
    try:
        box.copy_out(f"rcb_tests/stdout/{sub}", target)
        outputs = collect_outputs(target)
    except (OSError, SandboxError):
        outputs = {}
    return HarnessRun(exit_code, stalled, log_tail + result.stderr[-1000:], outputs, result.duration_s)
