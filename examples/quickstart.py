"""Quick start: one episode of icae/ProjectBuild-v0 driven by hand (matches the README).

Run: python examples/quickstart.py
"""

import icae_env

env = icae_env.make("icae/ProjectBuild-v0", task="builtin/semver-range", level="L1", budget=16)
obs, info = env.reset(seed=0)
print(obs["output"][:300], "...")

obs, reward, terminated, truncated, info = env.step({"tool": "ask", "question": "what should the output look like?"})
print("user:", obs["output"][:200], "| questions left:", obs["questions_left"])

obs, *_ = env.step({"tool": "write_file", "path": "notes.md", "content": "# plan\n"})
obs, *_ = env.step({"tool": "bash", "command": "ls && cat notes.md"})
print("tool:", obs["output"])

obs, reward, terminated, truncated, info = env.step('{"tool": "submit"}')
print("reward", reward, "tiers", {k: v["rate"] for k, v in info["score"]["tiers"].items()})
env.close()
