"""``icae-env icae certify``: certify the tasks of an ICAE-Bench data root (a fake release of the built-ins).

The fake release is written by ``export_icae``; one task's golden is broken (its ``@0`` outputs overwritten after
its harness ran), one is upstream source only (no ``rcb_tests/test.sh``). The docker test certifies all of them in
their language images; the local tests cover resuming, stale status files, data errors, a missing image, the
``--certified`` filter and the ``icae:`` references.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import icae_env
from icae_env.errors import ArgumentError
from icae_env.icae_bench.certify import certify_icae, certify_task
from icae_env.icae_bench.export import export_icae
from icae_env.icae_bench.status import certified_aliases, read_status, status_dir
from icae_env.kinds.build import BuildKind
from icae_env.run import resolve_tasks
from icae_env.sandbox import available_backends
from icae_env.scoring import ScoreLimits
from icae_env.tasks import load_task

_BREAK = """#!/usr/bin/env bash
bash "$(dirname "$0")/real-test.sh" "$@"
for f in "$(dirname "$0")"/stdout/*/*@0.txt; do echo broken > "$f"; done
"""


def _export(root: Path, names: list[str]) -> Path:
    for name in names:
        export_icae(load_task(name), root)
    return root


def _break_golden(root: Path, alias: str) -> None:
    harness = root / "realcode_repos" / alias / "rcb_tests"
    (harness / "test.sh").rename(harness / "real-test.sh")
    (harness / "test.sh").write_text(_BREAK)


def _strip_harness(root: Path, alias: str) -> None:
    shutil.rmtree(root / "realcode_repos" / alias / "rcb_tests")


def _icae_env(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "icae_env.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=1800, check=False)


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.skipif("docker" not in available_backends(), reason="no Docker engine or base image here")
def test_docker_certifies_builtins_and_names_what_fails(tmp_path):
    """Python and JavaScript tasks certify (tests/sandbox/test_docker.py runs every built-in golden in Docker)."""
    names = ["builtin/cron-next", "builtin/semver-range", "builtin/unidiff"]
    root = _export(tmp_path / "release", names)
    _export(root, ["builtin/unidiff"])  # exported twice under other aliases, then damaged
    for alias, damage in (("broken-golden", _break_golden), ("source-only", _strip_harness)):
        export_icae(load_task("builtin/token-bucket"), root, alias=alias)
        damage(root, alias)
    run = _icae_env("icae", "certify", str(root), "--sandbox", "docker", "--jobs", "2", "--quiet")
    assert run.returncode == 1, run.stdout + run.stderr  # not every task is ok
    statuses = {p.stem: json.loads(p.read_text()) for p in (root / ".certify").glob("*.json")}
    builtin = [load_task(n).id for n in names]
    assert {a: statuses[a]["status"] for a in builtin} == dict.fromkeys(builtin, "ok")
    for alias in builtin:
        assert statuses[alias]["image"].startswith("icae-env/") and statuses[alias]["empty_passed"] == 0
        assert all(t["passed"] == t["total"] > 0 for t in statuses[alias]["tiers"].values())
        assert set(statuses[alias]["tiers"]) == {"public", "native", "enhanced"}
    broken = statuses["broken-golden"]
    assert broken["status"] == "golden-fails"
    assert broken["failing_cases"] and {c["index"] for c in broken["failing_cases"]} == {0}
    assert {c["tier"] for c in broken["failing_cases"]} == {"public", "native", "enhanced"}
    first = broken["failing_cases"][0]
    assert f"{first['stem']}@0" in broken["message"] and "broken-golden" in run.stdout
    assert statuses["source-only"]["status"] == "no-harness"
    assert "| ok" in run.stdout or " ok " in run.stdout
    assert f"{len(builtin)}/{len(builtin) + 2} tasks ok" in run.stdout
    again = _icae_env("icae", "certify", str(root), "--sandbox", "docker", "--quiet")
    assert f"{len(builtin) + 2} unchanged since their status file" in again.stdout, again.stdout + again.stderr
    leftovers = subprocess.run(
        ["docker", "ps", "-aq", "--filter", "label=icae-env=1"], capture_output=True, text=True, check=True
    )
    assert leftovers.stdout.split() == [] or all(c not in leftovers.stdout for c in ("broken-golden", "source-only"))


@pytest.mark.docker
@pytest.mark.skipif("docker" not in available_backends(), reason="no Docker engine or base image here")
def test_docker_reports_a_missing_image_before_running(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket"])
    image_map = tmp_path / "images.yaml"
    image_map.write_text("python: icae-env/not-built:never\n")
    status = certify_task(root, "token-bucket", {"backend": "docker", "image_map": str(image_map)})
    assert status.status == "image-missing" and "icae-env/not-built:never" in status.message
    assert "docker pull icae-env/not-built:never" in status.message and status.tiers == {}
    (tmp_path / "release" / "repo_alias.json").write_text(
        (tmp_path / "release" / "repo_alias.json").read_text().replace('"Python"', '"Dart"')
    )
    dart = certify_task(root, "token-bucket", "docker")
    assert dart.status == "image-missing" and dart.language == "dart"
    assert "dart:3.5" in dart.message and "cannot be built locally" in dart.message


def test_a_broken_golden_fails_naming_its_cases_and_the_run_resumes(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket"])
    export_icae(load_task("builtin/token-bucket"), root, alias="broken")
    _break_golden(root, "broken")
    first = certify_icae(root, progress=False)
    by_alias = {s.alias: s for s in first.statuses}
    assert by_alias["token-bucket"].status == "ok" and by_alias["broken"].status == "golden-fails"
    failing = by_alias["broken"].failing_cases
    assert failing and all(c.index == 0 and c.reason == "output_mismatch" for c in failing)
    assert sum(t.total - t.passed for t in by_alias["broken"].tiers.values()) == len(failing)
    assert read_status(status_dir(root), "broken") == by_alias["broken"]
    second = certify_icae(root, progress=False)
    assert sorted(second.reused) == ["broken", "token-bucket"] and second.statuses == first.statuses
    (root / "realcode_repos" / "broken" / "rcb_tests" / "test.sh").write_text(_BREAK.replace("@0", "@1"))
    third = certify_icae(root, progress=False)
    assert third.reused == ["token-bucket"]
    assert {c.index for c in {s.alias: s for s in third.statuses}["broken"].failing_cases} == {1}


def test_a_golden_that_outruns_the_limits_is_a_timeout(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket"])
    (root / "realcode_repos" / "token-bucket" / "rcb_tests" / "test.sh").write_text("sleep 30\n")
    limits = ScoreLimits(case_s=0.5, first_output_s=0.5, tier_s=2.0)
    status = certify_task(root, "token-bucket", "local", limits=limits)
    assert status.status == "timeout" and status.failing_cases
    assert {c.reason for c in status.failing_cases} == {"timeout"}


def test_data_errors_are_statuses_not_crashes(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket", "builtin/unidiff"])
    (root / "user_agent" / "prd_json_medium" / "token-bucket.json").unlink()
    shutil.rmtree(root / "rcb_tests_repos" / "unidiff")
    (root / "user_agent" / "prd_json" / "ghost.json").write_text("{not json")
    run = certify_icae(root, progress=False)
    by_alias = {s.alias: s for s in run.statuses}
    assert set(by_alias) == {"ghost", "token-bucket", "unidiff"}
    assert all(s.status == "data-error" for s in run.statuses)
    assert "missing levels L2" in by_alias["token-bucket"].message
    assert "no native or enhanced cases" in by_alias["unidiff"].message
    assert "ghost.json" in by_alias["ghost"].message
    with pytest.raises(ArgumentError, match="no ICAE-Bench tasks"):
        certify_icae(tmp_path / "empty", progress=False)
    with pytest.raises(ArgumentError, match="jobs"):
        certify_icae(root, jobs=0, progress=False)


def test_only_certified_tasks_are_run_and_their_references_load(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket"])
    export_icae(load_task("builtin/token-bucket"), root, alias="broken")
    _break_golden(root, "broken")
    assert len(resolve_tasks(f"icae:{root}")) == 2
    with pytest.raises(ArgumentError, match="icae certify"):
        resolve_tasks(f"icae:{root}", certified=True)  # nothing certified yet
    certify_icae(root, progress=False)
    refs = resolve_tasks(f"icae:{root}", certified=True)
    assert refs == [f"icae:{root.resolve()}#token-bucket"]
    assert certified_aliases(root) == ["token-bucket"]
    kind = BuildKind()
    task = kind.load(refs[0])
    assert task.id == "token-bucket" and kind.load(kind.ref(task)) == task
    env = icae_env.make("icae/ProjectBuild-v0", task=refs[0])
    try:
        obs, _ = env.reset(seed=0)
        assert "rcb_tests/test.sh" in json.dumps(obs)
    finally:
        env.close()
    (root / "fuzzy_prds" / "token-bucket" / "start.md").write_text("changed\n")
    assert certified_aliases(root) == []  # the status file is stale now
    out = tmp_path / "runs"
    run = _icae_env("run", "--agent", "oracle", "--tasks", f"icae:{root}", "--certified", "--out", str(out))
    assert run.returncode != 0 and "icae certify" in run.stderr + run.stdout


def test_certify_cli_lists_failures_and_refuses_bad_arguments(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket"])
    (root / "user_agent" / "prd_json_easy" / "token-bucket.json").unlink()
    run = _icae_env("icae", "certify", str(root), "--quiet", "--out", str(tmp_path / "status"))
    assert run.returncode == 1 and "data-error" in run.stdout and "missing levels L3" in run.stdout
    assert "0/1 tasks ok" in run.stdout and (tmp_path / "status" / "token-bucket.json").is_file()
    bad = _icae_env("icae", "certify", str(root), "--jobs", "0")
    assert bad.returncode == 2 and "--jobs" in bad.stderr and "Traceback" not in bad.stderr


def test_a_harness_in_the_test_case_tree_is_laid_over_a_source_only_golden(tmp_path):
    root = _export(tmp_path / "release", ["builtin/token-bucket"])
    export_icae(load_task("builtin/token-bucket"), root, alias="source-only")
    harness = root / "realcode_repos" / "token-bucket" / "rcb_tests" / "test.sh"
    shutil.move(harness, root / "rcb_tests_repos" / "token-bucket" / "rcb_tests" / "test.sh")
    _strip_harness(root, "token-bucket")
    _strip_harness(root, "source-only")
    statuses = {s.alias: s for s in certify_icae(root, progress=False).statuses}
    assert statuses["token-bucket"].status == "ok" and statuses["token-bucket"].harness == "tests"
    assert not (root / "realcode_repos" / "token-bucket" / "rcb_tests").exists()  # scored on a copy
    assert statuses["source-only"].status == "no-harness" and statuses["source-only"].harness is None
    assert "upstream source only" in statuses["source-only"].message
