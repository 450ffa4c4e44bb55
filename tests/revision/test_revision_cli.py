"""``icae-env revision ...`` and ``icae-env run`` over revision tasks, through the real console entry point."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from icae_env.run import env_id_for

REVISION_ENV_ID = "icae/Revision-v0"

CLI = [sys.executable, "-m", "icae_env.cli"]


def _run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600, cwd=cwd)


def test_list_names_every_builtin_revision_task() -> None:
    result = _run("revision", "list")
    assert result.returncode == 0, result.stderr
    names = [line.split()[0] for line in result.stdout.splitlines()]
    assert {"revision/todo-filter", "revision/receipt-totals", "revision/notes-api", "revision/csv-report"} <= set(
        names
    )


def test_validate_accepts_a_good_pack_and_rejects_a_broken_golden(revision_pack: Path) -> None:
    good = _run("revision", "validate", str(revision_pack))
    assert good.returncode == 0, good.stdout + good.stderr
    assert "1/1 revision tasks valid" in good.stdout
    (revision_pack / "golden" / "tool.py").write_text("print('hello')\n")
    bad = _run("revision", "validate", str(revision_pack))
    assert bad.returncode == 1 and "golden Strict" in bad.stdout and "AC04" in bad.stdout


def test_grade_prints_verdicts_and_keeps_evidence(revision_pack: Path, tmp_path: Path) -> None:
    evidence = tmp_path / "ev"
    result = _run(
        "revision", "grade", str(revision_pack / "start"), "--task", str(revision_pack), "--evidence", str(evidence)
    )
    assert result.returncode == 0, result.stderr
    assert "AC05   preservation  PASS" in result.stdout and "Full-pass False" in result.stdout
    assert (evidence / "AC01" / "screenshot.png").is_file()
    as_json = _run("revision", "grade", str(revision_pack / "golden"), "--task", str(revision_pack), "--json")
    assert json.loads(as_json.stdout)["criteria"][0]["verdict"] == "PASS"
    missing = _run("revision", "grade", ".", "--task", "revision/nope")
    assert missing.returncode != 0 and "no revision task" in missing.stderr


def test_run_picks_the_revision_env_and_prints_its_table(revision_pack: Path, tmp_path: Path) -> None:
    assert env_id_for([str(revision_pack), "revision/notes-api"]) == REVISION_ENV_ID
    result = _run("run", "--agent", "oracle", "--tasks", str(revision_pack), "--out", str(tmp_path / "out"), "--quiet")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Strict" in result.stdout and "Full-pass" in result.stdout
    row = next(line for line in result.stdout.splitlines() if line.startswith("mini-shop"))
    assert row.split()[1:4] == ["100.0", "100.0", "yes"]
    record = json.loads((tmp_path / "out" / "results.jsonl").read_text().splitlines()[0])
    assert record["strict"] == 1.0 and record["overall"] is None
    mixed = _run("run", "--tasks", f"{revision_pack},builtin/unidiff", "--out", str(tmp_path / "mixed"), "--quiet")
    assert mixed.returncode != 0 and "cannot run in one suite" in mixed.stderr
    shutil.rmtree(tmp_path / "out")
