"""The revision judge chosen by name: ``icae_env.make(..., judge="llm", judge_options=...)`` and ``OPENAI_*``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from revision_packs import write_revision_pack

import icae_env
from icae_env.baselines.oracle_agent import OracleAgent
from icae_env.errors import IcaeEnvError
from icae_env.kinds.revision import RevisionKind
from icae_env.revision.llm_judge import Judge, JudgeOptionError, make_judge
from icae_env.run import run_episode
from icae_env.user_agent.optional.endpoint import EndpointConfigError

sys.path.insert(0, str(Path(__file__).parents[1] / "user_agent"))
from chat_server import chat_server, completion  # noqa: E402

OPENAI_VARS = ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY")
CRITERIA = [
    {
        "id": "J1",
        "category": "content",
        "text": "tool.py prints a greeting.",
        "check": {"type": "judge", "files": ["tool.py"]},
    },
    {
        "id": "C1",
        "category": "preservation",
        "text": "tool.py prints hello by default.",
        "check": {"type": "command", "run": "python3 tool.py", "expect": [{"stdout": {"equals": "hello"}}]},
    },
]


@pytest.fixture(autouse=True)
def _no_openai_env(monkeypatch) -> None:
    for name in OPENAI_VARS:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    return write_revision_pack(tmp_path / "packs", criteria=CRITERIA)


def _passes(body: dict) -> tuple[int, bytes]:
    system = body["messages"][0]["content"]
    if "skeptical verifier" in system:
        return completion(json.dumps({"refuted": False, "verdict": "PASS", "reason": "upheld"}))
    return completion(json.dumps({"verdict": "PASS", "reason": "it greets"}))


def _criteria(env, pack: Path) -> dict[str, dict]:
    result = run_episode(env, OracleAgent(), seed=0)
    assert result.error is None and result.terminated
    return {c["id"]: c for c in env.unwrapped.last_report.model_dump()["criteria"]}


def test_make_with_judge_llm_grades_judge_checks(pack: Path) -> None:
    with chat_server(_passes) as server:
        options = {"base_url": server.base_url, "model": "judge-model", "api_key": "jk"}
        env = icae_env.make("icae/Revision-v0", task=str(pack), judge="llm", judge_options=options)
        try:
            assert isinstance(getattr(env.unwrapped, "kind").judge, Judge)  # noqa: B009
            by_id = _criteria(env, pack)
        finally:
            env.close()
    assert by_id["J1"]["graded"] and by_id["J1"]["verdict"] == "PASS"
    assert server.requests[0]["body"]["model"] == "judge-model"
    assert server.requests[0]["headers"]["Authorization"] == "Bearer jk"


def test_without_a_judge_the_check_is_reported_ungraded_never_passed(pack: Path) -> None:
    env = icae_env.make("icae/Revision-v0", task=str(pack))
    try:
        by_id = _criteria(env, pack)
    finally:
        env.close()
    assert not by_id["J1"]["graded"] and by_id["J1"]["reason"] == "no judge configured"
    assert by_id["J1"]["verdict"] != "PASS" and by_id["C1"]["graded"]


def test_judge_endpoint_from_openai_variables(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_MODEL", "env-judge")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env")
    judge = make_judge("llm")
    assert (judge.base_url, judge.model, judge.api_key) == ("http://127.0.0.1:9/v1", "env-judge", "sk-env")
    assert make_judge("llm", {"model": "explicit"}).model == "explicit"
    assert RevisionKind(judge="llm").judge.model == "env-judge"


def test_judge_option_errors_are_typed() -> None:
    with pytest.raises(EndpointConfigError, match="OPENAI_BASE_URL") as caught:
        icae_env.make("icae/Revision-v0", judge="llm")
    assert isinstance(caught.value, IcaeEnvError)
    with pytest.raises(JudgeOptionError, match="judge 'llm' takes no option 'temperature'; it accepts") as bad:
        make_judge("llm", {"base_url": "http://h/v1", "model": "m", "temperature": 0.5})
    assert "'cache_path'" in str(bad.value) and isinstance(bad.value, IcaeEnvError)
    with pytest.raises(JudgeOptionError, match="need a judge name"):
        make_judge(None, {"model": "m"})
    with pytest.raises(IcaeEnvError, match="unknown judge 'gpt'"):
        make_judge("gpt")
    assert make_judge(None) is None


def test_the_builtin_csv_report_judge_check_is_reported_ungraded_without_a_judge(tmp_path: Path) -> None:
    from icae_env.revision import grade, load_revision_task

    task = load_revision_task("revision/csv-report")
    assert task.golden_dir is not None
    (check,) = [c for c in task.criteria if c.check.type == "judge"]
    report = grade(task, task.golden_dir, criteria=(check.id,), evidence_dir=tmp_path / "ev")
    (result,) = report.criteria
    assert (result.graded, result.reason) == (False, "no judge configured")
    evidence = (tmp_path / "ev" / check.id / "evidence.txt").read_text()
    assert "--top N" in evidence  # what a judge would see: the golden --help output
    with chat_server(_passes) as server:
        judged = grade(task, task.golden_dir, criteria=(check.id,), judge=make_judge("llm", {
            "base_url": server.base_url, "model": "m", "cache_path": tmp_path / "judge.json"}))  # fmt: skip
    assert judged.criteria[0].graded and judged.criteria[0].verdict.value == "PASS"
