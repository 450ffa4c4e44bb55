"""The router and judge sections of the YAML run configuration."""

from __future__ import annotations

import pytest

from icae_env.config import RunConfig, load_config
from icae_env.errors import ConfigError


def test_router_and_judge_sections_parse(tmp_path) -> None:
    path = tmp_path / "llm.yaml"
    path.write_text(
        "router:\n  name: llm\n  options: {base_url: 'http://127.0.0.1:8000/v1', model: smol, timeout: 30}\n"
        "judge:\n  name: llm\n  options: {model: judge-model, cache_path: judge.json}\n"
    )
    config = load_config(path)
    assert config.router.name == "llm" and config.router.options["timeout"] == 30
    assert config.env_kwargs() == {
        "router": "llm",
        "router_options": {"base_url": "http://127.0.0.1:8000/v1", "model": "smol", "timeout": 30},
    }
    assert config.env_kwargs(revision=True)["judge_options"] == {"model": "judge-model", "cache_path": "judge.json"}
    assert RunConfig().env_kwargs(revision=True) == {
        "router": "cascade", "router_options": {}, "judge": None, "judge_options": None,
    }  # fmt: skip


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("router: {name: llm, options: {modle: x}}\n", "router", ["'llm'", "'modle'", "'model'"]),
        ("router: {name: lexical, options: {base_url: x}}\n", "router", ["'lexical'", "'base_url'"]),
        ("router: {name: gpt}\n", "router.name", ["unknown router 'gpt'"]),
        ("judge: {name: llm, options: {temperature: 1}}\n", "judge", ["'temperature'", "'timeout'"]),
        ("judge: {name: oracle}\n", "judge", ["unknown judge 'oracle'"]),
        ("judge: {options: {model: m}}\n", "judge", ["need a judge name"]),
    ],
)
def test_bad_router_or_judge_options_name_file_field_and_accepted_keys(tmp_path, text, field, words) -> None:
    path = tmp_path / "c.yaml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=f"^{path}: {field}: ") as caught:
        load_config(path)
    assert all(word in str(caught.value) for word in words), str(caught.value)


def test_the_shipped_default_names_the_router_and_no_judge() -> None:
    config = load_config("default")
    assert (config.router.name, config.router.options, config.judge.name) == ("cascade", {}, None)
