"""Load a built-in task, look at what the agent sees, and score the golden solution.

Run: python examples/score_golden.py [builtin/<name>]
"""

import sys

from icae_env.scoring import score
from icae_env.tasks import list_tasks, load_task

name = sys.argv[1] if len(sys.argv) > 1 else list_tasks()[0]
task = load_task(name)
print(f"{task.id} ({task.language}): {task.title}")
print(task.prd("L1")[:400], "...\n")

hidden = task.user_agent_data("L1").hidden_constraints
print(f"L1 hides {len(hidden)} records, e.g. {hidden[0].constraint_id}: {hidden[0].trigger_keywords[0]!r}")

report = score(task, task.golden_dir)
for tier in report.tiers.values():
    print(f"{tier.tier:9} {tier.passed}/{tier.total}")
print(f"Overall {report.overall:.0%}; structure: {report.structure.files} files, {report.structure.loc} LOC")
