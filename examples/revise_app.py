"""Revision quick start: one icae/Revision-v0 episode by hand, then grading a workspace directly (matches the README).

Run: python examples/revise_app.py [EVIDENCE_DIR]   (default runs/evidence; browser checks need the browser extra
and Debian's chromium)
"""

import sys

import icae_env
from icae_env.revision import grade, load_revision_task, summarize

evidence = sys.argv[1] if len(sys.argv) > 1 else "runs/evidence"

env = icae_env.make("icae/Revision-v0", task="revision/todo-filter", evidence_dir=evidence)
obs, info = env.reset(seed=0)  # the request, the attachments, how to start the app
print(obs["output"][:400], "...")
obs, *_ = env.step({"tool": "bash", "command": "ls"})
print("workspace:", obs["output"].split())
obs, reward, terminated, truncated, info = env.step({"tool": "submit"})  # the unmodified app
print("reward (Graded)", round(reward, 3), [(c["id"], c["verdict"]) for c in info["score"]["criteria"]])
env.close()

task = load_revision_task("revision/notes-api")
report = grade(task, task.golden_dir, evidence_dir=f"{evidence}/notes-api")
print(report.strict, report.graded, report.full_pass, summarize([report]).criterion_pass_rate)
