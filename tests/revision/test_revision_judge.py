"""The LLM judge: judge-then-refute over real HTTP (a scripted OpenAI-compatible server), cached re-scores."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from openai_stub import OpenAIStub
from revision_packs import write_revision_pack

from icae_env.llm_http import LLMHttpError
from icae_env.revision import grade, load_revision_pack
from icae_env.revision.llm_judge import Judge

JUDGED = [
    {
        "id": "J1",
        "category": "content",
        "text": "tool.py supports a --shout flag.",
        "check": {"type": "judge", "files": ["tool.py"], "command": "python3 tool.py --shout", "guidance": "HELLO"},
    },
    {
        "id": "J2",
        "category": "content",
        "text": "The page title is Shop.",
        "check": {"type": "judge", "files": ["index.html"]},
    },
    {
        "id": "C1",
        "category": "preservation",
        "text": "tool.py prints hello by default.",
        "check": {"type": "command", "run": "python3 tool.py", "expect": [{"stdout": {"equals": "hello"}}]},
    },
]


@pytest.fixture
def judged_task(tmp_path: Path):
    return load_revision_pack(write_revision_pack(tmp_path, criteria=JUDGED))


def _verdict(verdict: str, reason: str = "ok") -> str:
    return json.dumps({"verdict": verdict, "reason": reason})


def test_judge_then_refute_and_cached_rescore(judged_task, tmp_path: Path) -> None:
    script = [
        _verdict("PASS", "the flag is handled"),  # J1 judge
        json.dumps({"refuted": True, "verdict": "PARTIAL", "reason": "no help text"}),  # J1 verifier
        "```json\n" + _verdict("PASS") + "\n```",  # J2 judge (fenced)
        json.dumps({"refuted": False, "verdict": "PASS", "reason": "title present"}),  # J2 verifier
    ]
    cache = tmp_path / "judge-cache.json"
    with OpenAIStub(script, api_key="k") as server:
        judge = Judge(server.base_url, "judge-model", api_key="k", cache_path=cache)
        report = grade(judged_task, judged_task.golden_dir, judge=judge, evidence_dir=tmp_path / "ev")
        assert len(server.requests) == 4 and not server.problems
        first = server.requests[0]["messages"][1]["content"]
    assert report.verdicts() == {"J1": "PARTIAL", "J2": "PASS", "C1": "PASS"}
    assert "refuted" in report.criteria[0].reason
    assert "=== file tool.py ===" in first and "HELLO" in first  # files, the command's output, the guidance
    exchanges = json.loads((tmp_path / "ev" / "J1" / "judge.json").read_text())
    assert [e["reply"] for e in exchanges] == script[:2]
    # A re-score reads the cache: no server, same verdicts.
    again = grade(
        judged_task, judged_task.golden_dir, judge=Judge("http://127.0.0.1:9/v1", "judge-model", cache_path=cache)
    )
    assert again.verdicts() == report.verdicts()


def test_without_a_judge_criteria_are_ungraded_and_left_out(judged_task) -> None:
    report = grade(judged_task, judged_task.golden_dir)
    assert [c.graded for c in report.criteria] == [False, False, True]
    assert report.criteria[0].reason == "no judge configured"
    assert report.strict == 1.0 and report.full_pass  # only C1 counts


def test_unusable_replies_fail_and_a_failing_endpoint_leaves_the_criterion_ungraded(judged_task) -> None:
    script = [
        "no json here",  # J1: the evidence may have derailed the judge -> FAIL
        {"status": 503, "error": "down"},  # J2: the endpoint failed -> ungraded (infrastructure)
        'Sure! {"verdict": " pass ", "reason": "a {nested} note"} and more {text}',  # J1 again, lenient parsing
        json.dumps({"refuted": "true", "verdict": "PARTIAL", "reason": "r"}),
    ]
    with OpenAIStub(script) as server:
        report = grade(judged_task, judged_task.golden_dir, judge=Judge(server.base_url, "m"), criteria=("J1", "J2"))
        again = grade(judged_task, judged_task.golden_dir, judge=Judge(server.base_url, "m"), criteria=("J1",))
    assert [(c.verdict.value, c.graded) for c in report.criteria] == [("FAIL", True), ("FAIL", False)]
    assert "no JSON object" in report.criteria[0].reason and "503" in report.criteria[1].reason
    assert again.verdicts() == {"J1": "PARTIAL"}  # " pass " parsed; refuted "true" downgrades to PARTIAL
    # (a fresh judge: the first one cached "no json here" for J1, so it would FAIL again, deterministically)


def test_judge_rejects_bad_arguments_and_caches(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="base_url"):
        Judge("", "m")
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": "other", "entries": {}}')
    with pytest.raises(LLMHttpError, match="not a reply cache"):
        Judge("http://127.0.0.1:9/v1", "m", cache_path=bad)
