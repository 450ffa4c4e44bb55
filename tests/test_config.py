from pathlib import Path

import pytest

from icae_env.config import RunConfig, load_config
from icae_env.errors import ConfigError


def test_default_config_file_loads():
    config = load_config(Path(__file__).parents[1] / "configs" / "default.yaml")
    assert config == RunConfig()
    assert config.sandbox.options()["isolation"] == "auto"


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("sandbox: {backend: podman}\n", "sandbox.backend"),
        ("scoring: {first_output_s: -1}\n", "scoring.first_output_s"),
        ("colour: red\n", "colour"),
        ("sandbox: [1\n", "-"),
    ],
)
def test_bad_config_names_file_and_field(tmp_path, text, field):
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"^{path}: {field}: "):
        load_config(path)
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "missing.yaml")
