"""The default router's replies and scores do not depend on Python's hash seed (set and dict orders)."""

from __future__ import annotations

import os
import subprocess
import sys

SCRIPT = """
import hashlib, json
from icae_env.tasks import list_tasks, load_task
from icae_env.user_agent.grounded import GroundedUserAgent
out = []
for name in list_tasks()[:4]:
    task = load_task(name)
    for level in ("L1", "L2"):
        agent = GroundedUserAgent.from_task(task, level=level)
        questions = [t for r in task.level(level).hidden_constraints for t in r.trigger_keywords]
        questions += task.prd(level).split(". ")[:20]
        out += [[q, [(m.index, float(m.score).hex()) for m in agent.router.route(q)]] for q in questions]
print(len(out), hashlib.sha256(json.dumps(out).encode()).hexdigest())
"""


def test_routing_is_bit_identical_across_hash_seeds() -> None:
    digests = set()
    for seed in ("1", "2", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env, timeout=300)
        assert result.returncode == 0, result.stderr
        digests.add(result.stdout)
    assert len(digests) == 1, digests
