"""The README's set-up commands stay in step with CI."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_readme_has_two_setup_commands_and_ci_runs_the_test_one():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Set-up commands", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```bash\n(.+?)\n```", section, re.S)
    assert len(commands) == 2
    main_job, tests = commands
    assert "icae-env run --agent oracle --tasks builtin" in main_job
    assert tests in (ROOT / ".ci" / "run").read_text()
