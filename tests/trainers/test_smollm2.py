"""SmolLM2-135M-Instruct (real weights, no mock) in transformers and TRL: conversion, tool template, SFT, GRPO.

The SFT warm start is a session fixture: its tests stay in this file, so that one xdist worker computes it once.
"""

from __future__ import annotations

import json
import os
import time

import pytest

pytest.importorskip("trl", reason="the TRL adapter tests need the trl extra")

import torch  # noqa: E402
from transformers import AutoModelForCausalLM, AutoTokenizer, LlamaForCausalLM  # noqa: E402
from trl.chat_template_utils import is_chat_template_prefix_preserving, supports_tool_calling  # noqa: E402

from icae_env.errors import ArgumentError, DependencyNotInstalled  # noqa: E402
from icae_env.trainers import local_model  # noqa: E402
from icae_env.trainers.demonstrations import tool_definitions  # noqa: E402
from icae_env.trainers.grpo import GrpoSettings, env_reward_column, grpo_trainer, load_model  # noqa: E402
from icae_env.trainers.local_model import GGUF_VARIABLE, chat_template, load_smollm2, use_chat_template  # noqa: E402
from icae_env.trainers.trl import INSTRUCTIONS, ClarifyTools  # noqa: E402

os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")
CLARIFY = "icae/Clarify-v0"


def test_smollm2_path_names_the_extra_or_the_variable(monkeypatch, tmp_path):
    monkeypatch.delenv(GGUF_VARIABLE, raising=False)
    monkeypatch.setattr(local_model.importlib.util, "find_spec", lambda name, *args: None)
    with pytest.raises(DependencyNotInstalled, match=rf"icae-env\[local-model\].*{GGUF_VARIABLE}|{GGUF_VARIABLE}"):
        local_model.smollm2_path()
    monkeypatch.setenv(GGUF_VARIABLE, str(tmp_path / "absent.gguf"))
    with pytest.raises(FileNotFoundError, match=GGUF_VARIABLE):
        local_model.smollm2_path()


def test_chat_templates_by_name_or_file(tmp_path):
    assert "<tool_call>" in chat_template("chatml-tools")
    (tmp_path / "mine.jinja").write_text("{{ messages[0]['content'] }}")
    assert chat_template(str(tmp_path / "mine.jinja")) == "{{ messages[0]['content'] }}"
    with pytest.raises(ArgumentError, match="chatml-tools"):
        chat_template("no-such-template")


def test_smollm2_is_a_plain_transformers_model_with_a_tool_template(smollm2_dir):
    config = json.loads((smollm2_dir / "config.json").read_text())
    assert "quantization_config" not in config and config["model_type"] == "llama"
    started = time.monotonic()
    assert load_smollm2(smollm2_dir) == smollm2_dir and time.monotonic() - started < 5  # cached
    model = AutoModelForCausalLM.from_pretrained(smollm2_dir)
    assert type(model) is LlamaForCausalLM and sum(p.numel() for p in model.parameters()) > 100e6
    tokenizer = AutoTokenizer.from_pretrained(smollm2_dir)
    assert not supports_tool_calling(tokenizer)  # SmolLM2's own template: no tools
    prompt = tokenizer.apply_chat_template([{"role": "user", "content": "What is 2+2?"}], add_generation_prompt=True,
                                           return_tensors="pt", return_dict=True)  # fmt: skip
    with torch.no_grad():
        output = model.generate(**prompt, max_new_tokens=12, do_sample=False)
    assert "4" in tokenizer.decode(output[0, prompt["input_ids"].shape[1] :])  # real weights
    use_chat_template(tokenizer, "chatml-tools")
    assert supports_tool_calling(tokenizer) and is_chat_template_prefix_preserving(tokenizer)
    reply = tokenizer.encode('<tool_call>\n{"name": "ask", "arguments": {"question": "Why?"}}\n</tool_call><|im_end|>')
    parsed = tokenizer.parse_response(reply, prefix="")
    assert parsed["tool_calls"][0]["function"] == {"name": "ask", "arguments": {"question": "Why?"}}


@pytest.mark.slow
def test_grpo_with_the_tool_template_calls_the_env(warm_smollm2, tmp_path):
    calls = ClarifyTools.tool_calls
    model, tokenizer = load_model(str(warm_smollm2[0]), "chatml-tools")
    settings = GrpoSettings(
        env_id=CLARIFY, tasks=["gen/config-checker/train/0"], steps=1, generations=2, max_completion_length=160,
        temperature=0.3, learning_rate=1e-5, format_weight=0.2, max_turns=3,
        out=str(tmp_path), env_kwargs={"budget": 3}, config={"seed": 0},
    )  # fmt: skip
    trainer = grpo_trainer(model, tokenizer, settings)
    started = time.monotonic()
    trainer.train()
    print(f"GRPO tool-call step: {time.monotonic() - started:.1f} s")
    [log] = [entry for entry in trainer.state.log_history if "rewards/ClarifyTools/mean" in entry]
    assert env_reward_column(settings) == "ClarifyTools"
    assert "rewards/tool_format_reward/mean" in log and log["tools/call_frequency"] > 0
    assert ClarifyTools.tool_calls > calls  # the model's calls reached the env


def test_grpo_with_text_actions_and_smollm2s_own_template(smollm2_dir, tmp_path):
    model, tokenizer = load_model(str(smollm2_dir))  # SmolLM2's template: no tools
    settings = GrpoSettings(
        env_id=CLARIFY, tasks=["gen/config-checker/train/0"], steps=1, generations=2, max_completion_length=128,
        text_actions=True, format_weight=0.2, max_turns=2, out=str(tmp_path), env_kwargs={"budget": 2},
    )  # fmt: skip
    trainer = grpo_trainer(model, tokenizer, settings)
    started = time.monotonic()
    trainer.train()
    print(f"GRPO text-action step: {time.monotonic() - started:.1f} s")
    [log] = [entry for entry in trainer.state.log_history if "rewards/env_reward/mean" in entry]
    assert env_reward_column(settings) == "env_reward" and "rewards/text_format_reward/mean" in log
    assert trainer.rollout_func.messages >= 2  # every episode's messages were stepped through TextActions


@pytest.mark.slow
def test_sft_on_exported_demonstrations_teaches_the_call_format(warm_smollm2):
    directory, trainer = warm_smollm2
    example = trainer.train_dataset[0]
    rendered = trainer.processing_class.decode(example["input_ids"])
    assert '<tool_call>\n{"name": "ask", "arguments": {"question": ' in rendered and "<tool_response>" in rendered
    labels = example["labels"]  # the loss is on the agent's turns only (-100 elsewhere)
    assert 0 < sum(label != -100 for label in labels) < len(example["input_ids"])
    losses = [entry["loss"] for entry in trainer.state.log_history if "loss" in entry]
    assert len(losses) == 4 and losses[-1] < losses[0]
    model, tokenizer = load_model(str(directory), "chatml-tools")
    tools = ClarifyTools(budget=3)
    messages = [
        {"role": "user", "content": INSTRUCTIONS["icae/Clarify-v0"] + tools.reset(task="gen/cart-pricing/train/0")}
    ]
    schemas = tool_definitions("icae/Clarify-v0")
    prompt = tokenizer.apply_chat_template(messages, tools=schemas, add_generation_prompt=True, return_dict=False)
    with torch.no_grad():
        output = model.generate(torch.tensor([prompt]), max_new_tokens=24, do_sample=False)
    reply = tokenizer.decode(output[0, len(prompt) :])
    assert reply.startswith('<tool_call>\n{"name": "ask", "arguments": {"question": "')  # a task it was not trained on
    tools.env.close()
