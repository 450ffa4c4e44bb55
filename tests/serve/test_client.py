from __future__ import annotations

import subprocess
import sys

import pytest

from icae_env.errors import ArgumentTypeError

MISSING = "import sys; sys.modules['openenv'] = None\n"


def test_without_openenv_the_error_names_the_extra():
    script = MISSING + (
        "import icae_env.serve\n"  # importing the package needs nothing
        "from icae_env.errors import DependencyNotInstalled\n"
        "try:\n    icae_env.serve.OpenEnvClient\nexcept DependencyNotInstalled as exc:\n    print(exc)\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.stdout.strip() == 'openenv is not installed; run `pip install "icae-env[openenv]"`', result.stderr


def test_the_cli_without_openenv_is_one_error_line():
    script = MISSING + "from icae_env.cli import main\nsys.exit(main(['serve', 'openenv', '--port', '0']))\n"
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr == 'icae-env: error: openenv is not installed; run `pip install "icae-env[openenv]"`\n'


def test_actions_from_models_dicts_and_text():
    pytest.importorskip("openenv", reason='the client needs the openenv extra: pip install "icae-env[openenv]"')
    from icae_env.serve import IcaeAction
    from icae_env.serve.client import as_action

    action = IcaeAction(tool="ask", question="which flags?")
    assert as_action(action) is action
    assert as_action({"tool": "bash", "command": "ls"}) == IcaeAction(tool="bash", command="ls")
    assert as_action("") == IcaeAction(text="")
    with pytest.raises(ArgumentTypeError, match="got int"):
        as_action(3)
