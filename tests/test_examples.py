"""The short examples run as they are (they match the README)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str) -> str:
    result = subprocess.run([sys.executable, *args], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_quickstart() -> None:
    out = _run("examples/quickstart.py")
    assert "questions left: 15" in out and "reward" in out


def test_score_golden() -> None:
    out = _run("examples/score_golden.py", "builtin/unidiff")
    assert "Overall 100%" in out


def test_revise_app(tmp_path: Path) -> None:
    out = _run("examples/revise_app.py", str(tmp_path / "evidence"))
    lines = out.strip().splitlines()
    assert "('AC07', 'PASS')" in out and "('AC05', 'FAIL')" in out  # the unmodified app keeps what it had
    assert lines[-1] == "1.0 1.0 True 1.0"
    assert (tmp_path / "evidence" / "todo-filter-0001" / "AC05" / "screenshot.png").is_file()


def test_train_clarifier() -> None:
    out = _run("examples/train_clarifier.py")
    lines = out.strip().splitlines()
    assert lines[0].startswith("300 training episodes on builtin/cron-next, builtin/dep-resolver, builtin/log-rollup")
    before, after = map(float, re.search(r"training tasks: coverage before (\d+\.\d)%, after (\d+\.\d)%", out).groups())
    assert after > before  # the policy learned on its training tasks
    assert re.search(r"held-out builtin/unidiff: coverage before \d+\.\d%, after \d+\.\d%", out)
