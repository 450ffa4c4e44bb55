"""The command line, run as a real subprocess."""

import json
import subprocess
import sys

import pytest
from packs import write_repo

from icae_env.cli import main
from icae_env.tasks import list_tasks


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "icae_env.cli", *args], capture_output=True, text=True, timeout=300)


def test_tasks_list():
    result = run("tasks", "list")
    assert result.returncode == 0
    assert "builtin/semver-range" in result.stdout and "javascript" in result.stdout
    assert f"{len(list_tasks())} tasks in 2 languages" in result.stdout


def test_validate_a_pack_path(mini_pack, tmp_path):
    result = run("tasks", "validate", str(mini_pack))
    assert result.returncode == 0, result.stderr
    assert "1/1 tasks valid" in result.stdout
    (mini_pack / "golden" / "adapter.py").write_text("print('wrong')\n")
    result = run("tasks", "validate", str(mini_pack))
    assert result.returncode == 1 and "FAIL" in result.stdout and "first failure" in result.stderr


def test_score_table_and_json(mini_pack, tmp_path):
    repo = write_repo(tmp_path / "repo")
    table = run("score", str(repo), "--task", str(mini_pack))
    assert table.returncode == 0 and "Overall (native+enhanced): 100.0% (5/5)" in table.stdout
    as_json = run("score", str(repo), "--task", str(mini_pack), "--tiers", "public", "--json")
    report = json.loads(as_json.stdout)
    assert report["tiers"]["public"]["rate"] == 1.0 and report["overall"] is None


def test_export_and_inspect(tmp_path, icae_sample):
    out = tmp_path / "root"
    assert run("icae", "export", "builtin/unidiff", str(out)).returncode == 0
    result = run("icae", "inspect", str(out), "-v")
    assert result.returncode == 0 and "unidiff" in result.stdout and "public,native,enhanced" in result.stdout
    sample = run("icae", "inspect", str(icae_sample))
    assert sample.returncode == 0 and sample.stdout.count("realcode@00") == 5


def test_errors_exit_2_with_one_line(tmp_path, capsys):
    assert main(["score", str(tmp_path), "--task", "builtin/nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("icae-env: error: no task named") and err.count("\n") == 1
    assert main(["score", str(tmp_path / "absent"), "--task", "builtin/unidiff"]) == 2
    assert main(["icae", "inspect", str(tmp_path)]) == 0
    bad = tmp_path / "bad.yaml"
    bad.write_text("sandbox: {isolation: chroot}\n")
    assert main(["score", str(tmp_path), "--task", "builtin/unidiff", "--config", str(bad)]) == 2
    assert "sandbox.isolation" in capsys.readouterr().err


def test_score_with_config(mini_pack, tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text("sandbox: {isolation: none}\nscoring: {case_timeout_s: 5}\n")
    result = run("score", str(mini_pack / "golden"), "--task", str(mini_pack), "--config", str(config))
    assert result.returncode == 0 and "100.0% (5/5)" in result.stdout


def _docker_ready() -> bool:
    from icae_env.sandbox import available_backends

    return "docker" in available_backends()


@pytest.mark.docker
@pytest.mark.slow
@pytest.mark.parametrize(
    ("tasks", "column"), [("builtin/unidiff,builtin/money-split", 2), ("revision/todo-filter,revision/notes-api", 1)]
)
def test_run_on_docker_scores_its_tasks_and_leaves_no_container(tasks, column, tmp_path):
    """One task per language or app kind (tests/sandbox/test_docker.py runs every built-in task in Docker)."""
    if not _docker_ready():
        pytest.skip("no Docker engine or base image here")
    command = [sys.executable, "-m", "icae_env.cli", "run", "--agent", "oracle", "--tasks", tasks, "--levels", "L1"]
    proc = subprocess.Popen(
        [*command, "--sandbox", "docker", "--out", str(tmp_path), "--quiet"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    out, err = proc.communicate(timeout=1800)
    assert proc.returncode == 0, out + err
    table = out.split("\n\nresults:")[0].splitlines()[2:]
    rows = [line.split() for line in table if not line.startswith("MEAN")]
    assert len(rows) == 2 and {row[column] for row in rows} == {"100.0"}, out
    left = subprocess.run(
        ["docker", "ps", "-a", "-q", "--filter", f"label=icae-env.owner-pid={proc.pid}"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert left.stdout.strip() == "", "the run left containers behind"


def test_old_spellings_still_work_and_print_one_notice(tmp_path, capsys):
    """The spellings before 0.2 stay for one release: the same command, plus one notice line on stderr."""
    out = tmp_path / "root"
    assert main(["tasks", "export-icae", "builtin/unidiff", str(out)]) == 0
    captured = capsys.readouterr()
    assert "exported builtin/unidiff" in captured.out
    assert captured.err == (
        "icae-env: note: `icae-env tasks export-icae` is now `icae-env icae export`; "
        "the old spelling is removed in the next release\n"
    )
    assert main(["tasks", "inspect-icae", str(out)]) == 0
    assert "is now `icae-env icae inspect`" in capsys.readouterr().err
    assert main(["data", "fetch-icae", "--root", str(tmp_path / "r"), "--mirror", "ftp://example.org"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert "is now `icae-env icae fetch`" in err[0] and err[1].startswith("icae-env: error:")
    assert main(["tasks", "certify-icae", str(tmp_path / "nowhere"), "--quiet"]) == 2
    assert "is now `icae-env icae certify`" in capsys.readouterr().err
