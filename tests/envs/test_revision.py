"""icae/Revision-v0: the Gymnasium contract, the first observation, grading through env.step, hidden criteria."""

from __future__ import annotations

import base64
import pickle
import warnings
from pathlib import Path

import gymnasium
import pytest
from gymnasium.envs.registration import EnvSpec
from gymnasium.utils.env_checker import check_env, data_equivalence
from revision_packs import write_revision_pack

import icae_env
from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.errors import ResetNeeded, TaskNotFoundError
from icae_env.revision import list_revision_tasks, load_revision_pack
from icae_env.run import run_episode
from icae_env.sandbox import available_backends

ENV_ID = "icae/Revision-v0"
BWRAP = {"isolation": "bwrap"}


@pytest.fixture(scope="module")
def pack(tmp_path_factory) -> Path:
    return write_revision_pack(tmp_path_factory.mktemp("revision-packs"))


def _make(task: object, **kwargs: object) -> gymnasium.Env:
    kwargs.setdefault("sandbox_options", BWRAP)
    return icae_env.make(ENV_ID, task=task, **kwargs)


@pytest.mark.parametrize("task", ["revision/notes-api", "pack"])
def test_check_env(task: str, pack: Path) -> None:
    env = _make(str(pack) if task == "pack" else task)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(env.unwrapped)
    finally:
        env.close()


def test_first_observation_is_the_request_and_attachments(pack: Path) -> None:
    env = _make(str(pack))
    try:
        obs, info = env.reset(seed=0)
        task = env.unwrapped.task
        assert obs["output"].startswith(task.request)
        assert "- docs/note.md: a note" in obs["output"]
        assert "python3 -m http.server {port}" in obs["output"]
        assert obs["questions_left"] == 0 and info["task"] == "mini-shop"
        listing, *_ = env.step({"tool": "bash", "command": "ls; cat docs/note.md"})
        assert listing["output"].split() == [*"app.js data.json docs index.html tool.py".split(), *task_note(pack)]
        reply, _, _, _, info = env.step({"tool": "ask", "question": "which colour?"})
        assert reply["source"] == 1 and "no more clarifications" in reply["output"]
        bad, _, terminated, _, info = env.step({"tool": "dance"})
        assert info["action_error"] and not terminated
    finally:
        env.close()


def task_note(pack: Path) -> list[str]:
    return (pack / "attachments" / "note.md").read_text().split()


def test_criteria_and_golden_are_invisible_inside_the_sandbox(pack: Path) -> None:
    task = load_revision_pack(pack)
    backends = available_backends()
    for backend in backends:
        options = BWRAP if backend == "local" else {}
        env = icae_env.make(ENV_ID, task=str(pack), sandbox=backend, sandbox_options=options)
        try:
            env.reset(seed=0)
            secret = base64.b64encode(task.criteria[0].text.encode()).decode()  # the command file must not hold it
            probe = (
                f"test -e {pack} && echo PACK; test -e {pack / 'task.yaml'} && echo YAML; "
                f"test -e {task.golden_dir} && echo GOLDEN; test -e {Path(icae_env.__file__).parent} && echo PKG; "
                f's=$(echo {secret} | base64 -d); grep -rlF "$s" / '
                "--exclude-dir=proc --exclude-dir=sys --exclude-dir=usr --exclude-dir=dev "
                f"2>/dev/null; find / -name task.yaml -not -path '/proc/*' 2>/dev/null; echo done"
            )
            obs, *_ = env.step({"tool": "bash", "command": probe, "timeout": 120})
            assert obs["output"] == "done\n", (backend, obs["output"])
        finally:
            env.close()


def test_oracle_through_env_step_and_evidence(pack: Path, tmp_path: Path) -> None:
    env = _make(str(pack), evidence_dir=tmp_path / "evidence")
    try:
        result = run_episode(env, OracleAgent(), seed=0)
        assert result.error is None and result.terminated
        assert (result.strict, result.graded, result.full_pass) == (1.0, 1.0, True)
        assert result.reward == 1.0
        env.reset(seed=0)
        obs, reward, terminated, _, info = env.step({"tool": "submit"})
        score = info["score"]
        assert terminated and score["full_pass"] is False and 0 < reward < 1
        assert reward == score["graded"] == score["components"]["graded"]
        by_id = {c["id"]: c for c in score["criteria"]}
        assert by_id["AC03"]["verdict"] == "PASS" and by_id["AC02"]["verdict"] == "FAIL"
        for criterion in score["criteria"]:
            assert all(Path(p).is_file() for p in criterion["evidence"]), criterion
        assert Path(by_id["AC01"]["evidence"][0]).parent.parent == tmp_path / "evidence" / "mini-shop-0002"
    finally:
        env.close()


def test_deleting_the_app_fails_preservation_and_temp_evidence_is_removed(pack: Path) -> None:
    env = _make(str(pack), reward={"graded": 0.0, "strict": 1.0})
    try:
        env.reset(seed=0)
        env.step({"tool": "bash", "command": "rm -rf ./* && ls -A"})
        _, reward, terminated, _, info = env.step({"tool": "submit"})
        assert terminated and reward == 0.0
        preservation = [c for c in info["score"]["criteria"] if c["category"] == "preservation"]
        assert preservation and all(c["verdict"] == "FAIL" for c in preservation)
        evidence = Path(info["score"]["evidence_dir"])
        assert evidence.is_dir()
    finally:
        env.close()
    assert not evidence.exists(), "close() removes the temporary evidence"


def test_clarifications_when_a_budget_is_given(tmp_path: Path) -> None:
    records = {
        "hidden_constraints": [
            {
                "constraint_id": "C001",
                "trigger_keywords": ["what colour should the title be", "title colour", "which colour"],
                "oracle_response": "Blue, plain CSS colour blue.",
            }
        ]
    }
    pack = write_revision_pack(tmp_path, clarifications=records)
    env = _make(str(pack), budget=2)
    try:
        obs, _ = env.reset(seed=0)
        assert obs["questions_left"] == 2 and "2 clarification questions" in obs["output"]
        reply, *_ = env.step({"tool": "ask", "question": "What colour should the title be?"})
        assert reply["output"] == "Blue, plain CSS colour blue." and reply["questions_left"] == 1
    finally:
        env.close()


def test_lifecycle_errors_and_spec(pack: Path) -> None:
    env = _make(str(pack))
    with pytest.raises(ResetNeeded, match=r"call reset\(\) before step\(\)"):
        env.step({"tool": "bash", "command": "true"})
    with pytest.raises(TaskNotFoundError, match="has no level 'L2'"):
        env.reset(options={"level": "L2"})
    with pytest.raises(TypeError, match="RevisionTask"):
        _make(42)
    spec = env.spec
    assert spec is not None and EnvSpec.from_json(spec.to_json()) == spec and pickle.loads(pickle.dumps(spec)) == spec
    env.close()
    env.close()


def test_same_seed_same_actions_same_episode(pack: Path) -> None:
    def rollout() -> list:
        env = _make([str(pack), "revision/csv-report"])
        try:
            records = [env.reset(seed=1)]
            for action in ({"tool": "bash", "command": "ls"}, {"tool": "view", "path": "tool.py"}, {"tool": "submit"}):
                obs, reward, terminated, truncated, info = env.step(action)
                if info.get("score"):
                    for key in ("duration_s", "evidence_dir", "criteria"):
                        info["score"].pop(key)
                records.append((obs, reward, terminated, truncated, info))
            return records
        finally:
            env.close()

    first, second = rollout(), rollout()
    assert first[0][1]["task"] == "mini-shop"
    for a, b in zip(first, second, strict=True):
        assert data_equivalence(a[0], b[0], exact=True) and a[1:] == b[1:]


@pytest.mark.slow
@pytest.mark.parametrize("task", list_revision_tasks())
def test_oracle_on_every_builtin_revision_task(task: str) -> None:
    env = _make(task)
    try:
        result = run_episode(env, OracleAgent(), seed=0)
    finally:
        env.close()
    assert result.error is None and result.strict == 1.0 and result.full_pass, result


def test_evidence_directories_never_collide(pack: Path, tmp_path: Path) -> None:
    roots = []
    for _ in range(2):  # two envs (a rerun, or a second worker) writing into the same evidence directory
        env = _make(str(pack), evidence_dir=tmp_path)
        try:
            env.reset(seed=0)
            env.step({"tool": "bash", "command": "rm -f tool.py"})
            roots.append(env.step({"tool": "submit"})[4]["score"]["evidence_dir"])
        finally:
            env.close()
    assert [Path(r).name for r in roots] == ["mini-shop-0001", "mini-shop-0001-2"]
