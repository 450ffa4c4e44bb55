"""An ICAE-Bench task (the real sample, public tier only) runs in icae/ProjectBuild-v0."""

import icae_env
from icae_env.icae_bench.load import load_icae_bench


def test_icae_sample_task_in_the_env(icae_sample):
    task = load_icae_bench(icae_sample, "realcode@005", level="L2")
    env = icae_env.make("icae/ProjectBuild-v0", task=task, level="L2")
    try:
        observation, info = env.reset(seed=0)
        assert observation["output"].startswith(task.prd("L2")) and info["task"] == "realcode@005"
        reply, *_ = env.step({"tool": "ask", "question": "how does the test harness work?"})
        assert reply["source"] == 1 and reply["questions_left"] == 15
        _, reward, terminated, _, info = env.step({"tool": "submit"})
        assert terminated and list(info["score"]["tiers"]) == ["public"] and info["score"]["overall"] is None
        assert info["score"]["components"]["overall"] == 0.0  # the public rate stands in without hidden tiers
        assert reward == 0.2 * info["score"]["components"]["task_coverage"]
    finally:
        env.close()
