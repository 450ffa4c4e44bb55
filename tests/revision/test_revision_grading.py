"""grade(): verdicts of every check kind on the mini pack, evidence files, scores and infrastructure failures."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from revision_packs import write_revision_pack

from icae_env.revision import Verdict, grade, load_revision_pack, summarize
from icae_env.revision.pack import starting_workspace
from icae_env.sandbox import available_backends


def test_golden_passes_every_criterion_with_evidence(revision_task, tmp_path: Path) -> None:
    report = grade(revision_task, revision_task.golden_dir, evidence_dir=tmp_path / "ev")
    assert report.verdicts() == dict.fromkeys(report.verdicts(), "PASS"), [c.reason for c in report.criteria]
    assert (report.strict, report.graded, report.full_pass) == (1.0, 1.0, True)
    for result in report.criteria:
        for name in result.evidence:
            assert (tmp_path / "ev" / name).is_file(), name
    browser = [c for c in report.criteria if c.category in ("visual", "interaction")]
    for result in browser:
        assert {Path(e).name for e in result.evidence} >= {"screenshot.png", "actions.log"}
        png = (tmp_path / "ev" / result.id / "screenshot.png").read_bytes()
        assert png.startswith(b"\x89PNG")
    log = (tmp_path / "ev" / "AC01" / "actions.log").read_text()
    assert "[ok] click selector='#add'" in log


def test_start_keeps_preservation_and_fails_the_rest(revision_task, tmp_path: Path) -> None:
    start = starting_workspace(revision_task, tmp_path / "start")
    report = grade(revision_task, start)
    verdicts = report.verdicts()
    assert verdicts["AC03"] == verdicts["AC05"] == verdicts["AC06"] == "PASS"
    assert verdicts["AC01"] == "PARTIAL"  # 3 items after the click, but no count element
    assert verdicts["AC04"] == "PARTIAL"  # exits 0, but prints hello
    assert verdicts["AC02"] == verdicts["AC07"] == "FAIL"
    assert report.full_pass is False
    assert report.strict == 3 / 7 and report.graded == 4 / 7
    assert report.evidence_dir == ""  # temporary evidence is removed


def test_deleted_app_fails_preservation(revision_task, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    report = grade(revision_task, tmp_path / "empty", evidence_dir=tmp_path / "ev")
    for result in report.criteria:
        assert result.verdict is Verdict.FAIL, result
    ac06 = next(c for c in report.criteria if c.id == "AC06")
    assert "changed or missing" in ac06.assertions[0].detail


def test_source_diff_evidence_and_symlinks_not_followed(revision_task, tmp_path: Path) -> None:
    work = starting_workspace(revision_task, tmp_path / "ws")
    (work / "data.json").unlink()
    (work / "data.json").symlink_to(revision_task.start_dir / "data.json")  # same bytes, but through a link
    report = grade(revision_task, work, evidence_dir=tmp_path / "ev", criteria=("AC06",))
    assert report.criteria[0].verdict is Verdict.FAIL
    shutil.rmtree(tmp_path / "ev")
    (work / "data.json").unlink()
    (work / "data.json").write_text('{"version": 2}\n')
    report = grade(revision_task, work, evidence_dir=tmp_path / "ev", criteria=("AC06",))
    assert report.criteria[0].verdict is Verdict.FAIL
    diff = (tmp_path / "ev" / "AC06" / "diff.patch").read_text()
    assert '-{"version": 1}' in diff and '+{"version": 2}' in diff


def test_command_stdin_and_timeout(tmp_path: Path) -> None:
    criteria = [
        {
            "id": "ECHO",
            "category": "functional",
            "text": "cat echoes stdin",
            "check": {"type": "command", "run": "cat", "stdin": "a b\n", "expect": [{"stdout": {"equals": "a b"}}]},
        },
        {
            "id": "SLOW",
            "category": "functional",
            "text": "a hang fails",
            "check": {"type": "command", "run": "sleep 30", "timeout_s": 1, "expect": [{"exit_code": 0}]},
        },
    ]
    task = load_revision_pack(write_revision_pack(tmp_path, criteria=criteria))
    report = grade(task, task.start_dir, check_baseline=False)
    assert report.verdicts() == {"ECHO": "PASS", "SLOW": "FAIL"}
    assert "timed out" in report.criteria[1].reason


def test_partial_false_and_invalid_visual_evidence(revision_task, tmp_path: Path) -> None:
    start = starting_workspace(revision_task, tmp_path / "start")
    strict_task = revision_task.model_copy(
        update={
            "criteria": tuple(
                c.model_copy(update={"check": c.check.model_copy(update={"partial": False})})
                for c in revision_task.criteria
                if c.id == "AC01"
            )
        }
    )
    assert grade(strict_task, start).verdicts() == {"AC01": "FAIL"}
    # An app that never starts: the interaction verdict has no screenshot, so it is invalid (and a FAIL).
    (start / "index.html").unlink()
    broken = revision_task.model_copy(
        update={"app": revision_task.app.model_copy(update={"start": "exit 3", "ready_timeout_s": 2})}
    )
    report = grade(broken, start, criteria=("AC01",), check_baseline=False)
    result = report.criteria[0]
    assert result.verdict is Verdict.FAIL and result.valid is False
    assert "invalid verdict" in result.reason and "exited" in result.reason


def test_infra_failure_is_reported_apart(revision_task, tmp_path: Path) -> None:
    broken = revision_task.model_copy(
        update={"id": "broken", "app": revision_task.app.model_copy(update={"start": "false", "ready_timeout_s": 2})}
    )
    bad = grade(broken, broken.golden_dir, criteria=("AC04",))
    assert bad.infra_failure and "does not start" in bad.infra_failure
    good = grade(revision_task, revision_task.golden_dir, criteria=("AC04", "AC05"))
    summary = summarize([good, bad])
    assert summary.tasks == 2 and summary.infra_failures == ("broken",)
    assert summary.strict == 1.0 and summary.full_pass == 1.0


def test_summary_is_a_macro_average(revision_task, tmp_path: Path) -> None:
    start = starting_workspace(revision_task, tmp_path / "start")
    long_fail = grade(revision_task, start, criteria=("AC02", "AC04", "AC05", "AC06", "AC07"))  # 2 of 5 pass
    short_pass = grade(revision_task, revision_task.golden_dir, criteria=("AC05",))  # 1 of 1
    summary = summarize([long_fail, short_pass])
    assert summary.strict == (0.4 + 1.0) / 2
    assert summary.criterion_pass_rate == 3 / 6
    assert summary.full_pass == 0.5
    assert json.loads(summary.model_dump_json())["tasks"] == 2


@pytest.mark.docker
@pytest.mark.skipif("docker" not in available_backends(), reason="no Docker engine or base image here")
def test_app_checks_run_in_docker_too(revision_task) -> None:
    """The app runs in a container without network; the host reaches it through the workspace socket."""
    report = grade(revision_task, revision_task.golden_dir, sandbox="docker")
    assert report.verdicts() == dict.fromkeys(report.verdicts(), "PASS"), [c.reason for c in report.criteria]


def test_a_page_stuck_in_a_script_loop_is_cut_off(revision_task, tmp_path: Path) -> None:
    work = tmp_path / "ws"
    shutil.copytree(revision_task.golden_dir, work)
    loop = "document.getElementById('add').addEventListener('click', () => { while (true) {} });\n"
    (work / "app.js").write_text(loop)
    short = revision_task.model_copy(
        update={
            "criteria": tuple(
                c.model_copy(update={"check": c.check.model_copy(update={"timeout_s": 4.0})})
                for c in revision_task.criteria
                if c.id in ("AC01", "AC03")
            )
        }
    )
    report = grade(short, work, evidence_dir=tmp_path / "ev")
    assert report.verdicts() == {"AC01": "FAIL", "AC03": "PASS"}  # the next check gets a working browser
    assert "could not be performed: click" in report.criteria[0].reason
    log = (tmp_path / "ev" / "AC01" / "actions.log").read_text()
    assert "[failed] click" in log and "[failed] the page stopped responding" in log
