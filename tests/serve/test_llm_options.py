"""The router options on the command line: ``serve oracle``, its old spelling and ``serve openenv``."""

from __future__ import annotations

import argparse

import pytest

from icae_env.cli import main
from icae_env.cli.oracle import add_endpoint_arguments, endpoint_options
from icae_env.errors import ConfigError

FLAGS = ("--router-base-url URL", "--router-model NAME", "--router-api-key KEY", "--router-option KEY=VALUE")


@pytest.mark.parametrize("argv", [["serve", "oracle"], ["oracle", "serve"], ["serve", "openenv"]])
def test_help_shows_the_router_flags(argv, capsys) -> None:
    with pytest.raises(SystemExit) as exited:
        main([*argv, "--help"])
    assert exited.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert all(flag in text for flag in FLAGS), text
    assert "$OPENAI_BASE_URL" in text and "$OPENAI_MODEL" in text and "$OPENAI_API_KEY" in text


def test_endpoint_options_read_flags_and_generic_options() -> None:
    parser = argparse.ArgumentParser()
    add_endpoint_arguments(parser, "router")
    args = parser.parse_args(
        ["--router-base-url", "http://h/v1", "--router-model", "1.5", "--router-option", "timeout=30",
         "--router-option", "model=overridden-by-the-flag"]
    )  # fmt: skip
    assert endpoint_options(args, "router") == {"base_url": "http://h/v1", "model": "1.5", "timeout": 30}
    assert endpoint_options(parser.parse_args([]), "router") == {}
    with pytest.raises(ConfigError, match="--router-option takes key=value"):
        endpoint_options(parser.parse_args(["--router-option", "timeout"]), "router")


def test_serve_oracle_llm_without_an_endpoint_fails_with_the_option_named(monkeypatch, capsys) -> None:
    for name in ("OPENAI_BASE_URL", "OPENAI_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    assert main(["serve", "oracle", "--router", "llm", "--ports", "0,0,0", "--router-base-url", "http://h/v1"]) == 2
    assert "'model' (or set OPENAI_MODEL)" in capsys.readouterr().err
    assert main(["serve", "oracle", "--router", "lexical", "--ports", "0,0,0", "--router-model", "m"]) == 2
    assert "router 'lexical' takes no option 'model'" in capsys.readouterr().err
