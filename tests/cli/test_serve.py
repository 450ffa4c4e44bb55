from __future__ import annotations

import socket

import pytest

from icae_env.cli import main


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--port", "70000"], "expected a port 0..65535, got '70000'"),
        (["--max-sessions", "0"], "expected an integer >= 1, got '0'"),
        (["--idle-timeout", "-1"], "expected a number of seconds > 0, got '-1'"),
    ],
)
def test_bad_arguments_are_usage_errors(argv, message, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["serve", "openenv", *argv])
    assert caught.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--env", "icae/Nope-v0"], "unknown env id 'icae/Nope-v0'; expected one of"),
        (["--env-option", "max_steps"], "--env-option takes key=value, got 'max_steps'"),
        (
            ["--env", "icae/Clarify-v0", "--sandbox", "local"],
            "icae/Clarify-v0: ClarifyEnv.__init__() got an unexpected",
        ),
        (["--env-option", "max_steps=0"], "max_steps must be an int >= 1, got 0"),
    ],
)
def test_bad_servers_are_one_error_line(argv, message, capsys):
    pytest.importorskip("openenv", reason='serving needs the openenv extra: pip install "icae-env[openenv]"')
    assert main(["serve", "openenv", "--port", "0", *argv]) == 2
    err = capsys.readouterr().err
    assert err.startswith("icae-env: error: ") and message in err and err.count("\n") == 1


def test_a_port_in_use_is_one_error_line(capsys):
    pytest.importorskip("openenv", reason='serving needs the openenv extra: pip install "icae-env[openenv]"')
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = str(taken.getsockname()[1])
        assert main(["serve", "openenv", "--port", port]) == 2
    assert capsys.readouterr().err.startswith(f"icae-env: error: cannot listen on 127.0.0.1 port {port}: ")
