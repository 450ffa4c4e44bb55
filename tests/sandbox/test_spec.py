"""SandboxSpec: one spec from env arguments, YAML and the command line, checked by the backend's signature."""

from __future__ import annotations

import logging
import pickle
import subprocess
import sys
from pathlib import Path

import pytest

import icae_env
import icae_env.logs
from icae_env.config import load_config
from icae_env.errors import ConfigError, IcaeEnvError
from icae_env.sandbox import SandboxSpec, available_backends, backend_class
from icae_env.sandbox import local as local_backend
from icae_env.sandbox.spec import option_names, parse_option


def cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "icae_env.cli", *args], capture_output=True, text=True, timeout=600, env=env
    )


def test_defaults_are_filled_so_equal_sandboxes_compare_equal():
    spec = SandboxSpec.of("local", {"isolation": "auto"})
    assert spec == SandboxSpec() == SandboxSpec.of(None) and spec.options()["default_timeout"] == 120.0
    assert SandboxSpec.of(spec, {"isolation": "none"}).options()["isolation"] == "none"
    assert SandboxSpec.of({"backend": "local", "output_limit": 128}).options()["output_limit"] == 128
    assert pickle.loads(pickle.dumps(spec)) == spec  # what Ray workers receive
    assert option_names("local") == ["default_timeout", "env", "hide", "isolation", "output_limit"]
    assert "memory" in option_names("docker") and "language" not in option_names("docker")


@pytest.mark.parametrize(
    ("backend", "options", "message"),
    [
        ("nope", {}, r"unknown sandbox backend 'nope'; expected one of \['docker', 'local'\]"),
        ("locl", {}, r"did you mean 'local'"),
        ("local", {"colour": "red"}, r"'colour' is not an option of the local backend; valid options: default_timeout"),
        ("local", {"isolation": "chroot"}, r"sandbox option 'isolation': Input should be 'auto', 'bwrap' or 'none'"),
        ("local", {"output_limit": "lots"}, r"sandbox option 'output_limit'.*got 'lots'"),
        ("local", ["isolation"], r"sandbox_options must be a mapping"),
    ],
)
def test_bad_backends_and_options_name_the_valid_choices(backend, options, message):
    with pytest.raises(ConfigError, match=message) as caught:
        SandboxSpec.of(backend, options)
    assert isinstance(caught.value, IcaeEnvError) and isinstance(caught.value, ValueError)
    assert "\n" not in str(caught.value)


def test_cli_options_are_yaml_scalars():
    assert parse_option("warm_pool=2") == ("warm_pool", 2)
    assert parse_option("network=true") == ("network", True)
    assert parse_option("memory=1g") == ("memory", "1g")
    with pytest.raises(ConfigError, match="key=value"):
        parse_option("memory")


def test_the_yaml_section_is_a_spec(tmp_path: Path):
    path = tmp_path / "c.yaml"
    path.write_text("sandbox: {backend: local, isolation: none, default_timeout: 30}\n")
    spec = load_config(path).sandbox
    assert isinstance(spec, SandboxSpec) and spec.options()["isolation"] == "none"
    assert spec.options()["default_timeout"] == 30.0
    path.write_text("sandbox: {backend: local, memory: 1g}\n")
    with pytest.raises(ConfigError, match=r"sandbox\.memory: Extra inputs are not permitted"):
        load_config(path)


def test_envs_and_the_scorer_take_a_spec():
    spec = SandboxSpec.of("local", {"isolation": "none", "default_timeout": 5})
    env = icae_env.make("icae/ProjectBuild-v0", task="builtin/unidiff", sandbox=spec)
    try:
        env.reset(seed=0)
        assert env.unwrapped.sandbox == spec and env.unwrapped._state.sandbox.default_timeout == 5
        obs, *_ = env.step({"tool": "bash", "command": "sleep 30", "timeout": None})
        assert obs["exit_code"] == 124  # the spec's default timeout applied
    finally:
        env.close()


def test_a_missing_backend_is_unavailable_not_an_import_crash():
    assert "local" in available_backends()
    assert backend_class("local").available() is True


def test_the_run_command_names_the_valid_choices_in_one_line(tmp_path: Path):
    bad_backend = cli("run", "--tasks", "builtin/unidiff", "--sandbox", "nope", "--out", str(tmp_path / "a"))
    assert bad_backend.returncode == 2 and bad_backend.stderr.count("\n") == 1
    assert "unknown sandbox backend 'nope'; expected one of ['docker', 'local']" in bad_backend.stderr
    bad_option = cli("score", ".", "--task", "builtin/unidiff", "--sandbox-option", "colour=red")
    assert bad_option.returncode == 2 and bad_option.stderr.count("\n") == 1
    assert "'colour' is not an option of the local backend; valid options: default_timeout, env" in bad_option.stderr
    no_value = cli("tasks", "validate", "builtin/unidiff", "--sandbox-option", "isolation")
    assert no_value.returncode == 2 and "--sandbox-option takes key=value" in no_value.stderr


def test_the_missing_bwrap_warning_is_printed_once_per_process(monkeypatch, caplog):
    message = "bwrap not found: local sandbox runs commands without isolation"
    monkeypatch.setattr(local_backend, "bwrap_available", lambda: False)
    monkeypatch.setattr(icae_env.logs, "_SEEN", set())
    with caplog.at_level(logging.WARNING):
        for _ in range(3):
            SandboxSpec.of("local").make(language="python")
    assert [r.getMessage() for r in caplog.records].count(message) == 1


def test_the_main_job_warns_once_without_bwrap(tmp_path: Path):
    """The README's main job on a machine without bubblewrap: one warning, however many sandboxes it makes."""
    bin_dir = tmp_path / "bin"  # a PATH without bwrap: the sandbox's own PATH is fixed, so commands still run
    bin_dir.mkdir()
    (bin_dir / "bash").symlink_to("/bin/bash")
    env = {"PATH": str(bin_dir), "HOME": str(tmp_path)}
    result = cli("run", "--agent", "oracle", "--tasks", "builtin/unidiff,builtin/dep-resolver", "--quiet",
                 "--out", str(tmp_path / "run"), env=env)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("bwrap not found") == 1, result.stderr
    assert [line.split()[2] for line in result.stdout.splitlines() if line.startswith(("unidiff", "dep-res"))] == [
        "100.0",
        "100.0",
    ]
