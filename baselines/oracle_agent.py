"""Oracle baseline (the upper bound): asks about the hidden constraints, writes the golden solution, submits.

For revision tasks (``icae/Revision-v0``) it writes the golden revision's changed files over the starting app
and removes the files the golden revision deleted.

It is privileged by design: it reads the task's hidden records and golden directory, but acts only through
``env.step`` (ask, write_file, bash, submit), so the score it gets is the score of the golden solution delivered
through the environment. Task-specific records are asked first; boilerplate and test-file records follow while
questions remain.

Run: python baselines/oracle_agent.py --tasks builtin --levels L1,L2,L3 [--out runs/oracle]
     python baselines/oracle_agent.py --tasks revision
"""

from __future__ import annotations

import argparse
import os
from collections import deque
from dataclasses import dataclass, fields
from typing import Any

from icae_env.revision import RevisionTask
from icae_env.runner import format_table, resolve_tasks, run_suite
from icae_env.tasks import Task


@dataclass
class Args:
    """Command-line arguments."""

    tasks: str = "builtin"
    """comma-separated task names or pack paths; 'builtin' selects every built-in task"""
    levels: str = "L1"
    """comma-separated levels (L1, L2, L3, ground)"""
    seed: int = 0
    """reset seed"""
    out: str = ""
    """output directory for results.jsonl and summary.md (empty: none)"""


class OracleAgent:
    """Asks each hidden record's first trigger, writes every golden file, makes executables executable, submits."""

    name = "oracle"

    def __init__(self) -> None:
        self._questions: deque[dict[str, Any]] = deque()
        self._actions: deque[dict[str, Any]] = deque()

    def reset(self, task: Task | RevisionTask, level: str, observation: dict[str, Any], seed: int | None) -> None:
        """Plan the episode from the task's hidden data and golden solution."""
        records = task.user_agent_data(level).hidden_constraints
        ordered = [r for r in records if r.is_task_specific] + [r for r in records if not r.is_task_specific]
        self._questions = deque({"tool": "ask", "question": r.trigger_keywords[0]} for r in ordered)
        self._actions = deque()
        if task.golden_dir is None:
            return
        start = getattr(task, "start_dir", None)
        executables = []
        for path in sorted(p for p in task.golden_dir.rglob("*") if p.is_file()):
            relative = path.relative_to(task.golden_dir).as_posix()
            if (
                start is not None
                and (start / relative).is_file()
                and (start / relative).read_bytes() == path.read_bytes()
            ):
                continue  # a revision keeps this file as it is
            try:
                content = path.read_text(encoding="utf-8")
            except UnicodeDecodeError:
                continue
            self._actions.append({"tool": "write_file", "path": relative, "content": content})
            if os.access(path, os.X_OK):
                executables.append(relative)
        if executables:
            self._actions.append({"tool": "bash", "command": "chmod +x " + " ".join(f"'{p}'" for p in executables)})
        if start is not None:
            removed = [
                p.relative_to(start).as_posix()
                for p in sorted(start.rglob("*"))
                if p.is_file() and not (task.golden_dir / p.relative_to(start)).exists()
            ]
            if removed:
                self._actions.append({"tool": "bash", "command": "rm -f " + " ".join(f"'{p}'" for p in removed)})

    def act(self, observation: dict[str, Any], info: dict[str, Any]) -> dict[str, Any]:
        """Ask while questions remain, then write files, then submit."""
        if self._questions and observation["questions_left"] > 0:
            return self._questions.popleft()
        if self._actions:
            return self._actions.popleft()
        return {"tool": "submit"}


def main() -> None:
    """Run the oracle over the selected tasks and levels and print the result table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for field in fields(Args):
        parser.add_argument(f"--{field.name}", type=type(field.default), default=field.default)
    args = Args(**vars(parser.parse_args()))
    results = run_suite(
        OracleAgent, resolve_tasks(args.tasks), args.levels.split(","), (args.seed,), out_dir=args.out or None
    )
    print(format_table(results))


if __name__ == "__main__":
    main()
