"""GRPO for models without a tool-calling chat template: the model writes its actions as text.

:class:`TextActionRollout` is a ``rollout_func`` of TRL 1.16's ``GRPOTrainer``: each row is an episode in which the
model writes one action per message in any text format :class:`icae_env.wrappers.TextActions` reads (``<ask>...
</ask>``, ``<bash>...</bash>``, ``<submit/>``, a JSON call, a fenced block, a native tool call ...), the env's reply
comes back as the next user message, and so on until the episode ends, ``max_turns`` or the completion budget
(``max_completion_length``) runs out; an unfinished episode is then finished (``submit``) and scored. A message
with no valid action is an action error the model sees (the episode goes on), as through ``TextActions``.

The rollout returns the completion tokens with an ``env_mask`` (1 for the model's tokens, 0 for the env's, which
carry no loss), and per completion ``env_reward`` (the episode return), ``parsed_share`` (the share of the model's
messages that were valid actions) and ``actions`` (how many reached the env). TRL hands them to the reward
functions: :func:`env_reward` is the env's reward column, :func:`text_format_reward` the optional format column.

Rows (:func:`text_rows`) hold the env's first observation in the prompt already (the rollout only receives the
prompts, so it finds each row's task, level and seed by its prompt text).

Example (needs ``pip install "icae-env[trl]"``)::

    rows = text_rows("icae/Clarify-v0", ["builtin/unidiff"], seeds=range(4))
    rollout = TextActionRollout("icae/Clarify-v0", rows, max_turns=4)
    trainer = GRPOTrainer(model=model, args=config, processing_class=tokenizer, train_dataset=Dataset.from_list(rows),
                          rollout_func=rollout, reward_funcs=[env_reward, text_format_reward])
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from typing import Any

import icae_env
from icae_env.errors import ArgumentError, check_int
from icae_env.tasks import list_tasks
from icae_env.trainers.trl import _adapter
from icae_env.wrappers import TextActions

__all__ = ["TEXT_INSTRUCTIONS", "TEXT_TOOLS", "TextActionRollout", "env_reward", "text_format_reward", "text_rows"]

#: The tools a text episode may use per env (None: every tool).
TEXT_TOOLS: dict[str, tuple[str, ...] | None] = {"icae/Clarify-v0": ("ask", "submit"), "icae/ProjectBuild-v0": None}
#: The default instruction of text rows (the env's first observation follows it).
TEXT_INSTRUCTIONS = {
    "icae/Clarify-v0": (
        "Ask the user what the PRD below leaves open, one question per message, written as <ask>your question</ask>."
        " Write <submit/> when you have no more questions.\n\n"
    ),
    "icae/ProjectBuild-v0": (
        "Build the project described below. Write exactly one action per message: <bash>command</bash>, "
        '<write_file path="FILE">content</write_file>, <ask>question</ask>, or <submit/> when done.\n\n'
    ),
}


def text_rows(
    env_id: str = "icae/Clarify-v0",
    tasks: Sequence[str] | None = None,
    levels: Sequence[str] = ("L1",),
    seeds: Iterable[int] = (0,),
    instruction: str | None = None,
    **env_kwargs: Any,
) -> list[dict[str, Any]]:
    """Return dataset rows (``prompt``, ``task``, ``level``, ``seed``) whose prompt holds the first observation.

    Args:
        env_id: ``icae/Clarify-v0`` or ``icae/ProjectBuild-v0``.
        tasks: Task names (default: the built-in suite).
        levels: Levels.
        seeds: Seeds.
        instruction: The text before the first observation (default: :data:`TEXT_INSTRUCTIONS`).
        **env_kwargs: Arguments of the env (for the first observation).
    """
    _adapter(env_id)
    text = TEXT_INSTRUCTIONS[env_id] if instruction is None else instruction
    env = icae_env.make(env_id, **env_kwargs)
    rows = []
    try:
        for task, level, seed in itertools.product(list(tasks or list_tasks()), levels, list(seeds)):
            observation, _ = env.reset(seed=seed, options={"task": task, "level": level})
            prompt = [{"role": "user", "content": text + str(observation["output"])}]
            rows.append({"prompt": prompt, "task": task, "level": level, "seed": seed})
    finally:
        env.close()
    return rows


class TextActionRollout:
    """A ``GRPOTrainer`` ``rollout_func``: multi-turn text-action episodes of the rows' tasks (see the module).

    Args:
        env_id: ``icae/Clarify-v0`` or ``icae/ProjectBuild-v0``.
        rows: The training rows (:func:`text_rows`); each prompt is looked up here to find its episode.
        max_turns: Model messages per episode at most.
        turn_tokens: New tokens per message at most.
        log_completions: Print each finished episode's messages (the model's and the env's).
        **env_kwargs: Arguments of the env (``budget``, ``question_cost``, ...).

    Attributes:
        actions: How many model messages reached the env as valid actions so far (every rollout).
        messages: How many model messages there were so far.
    """

    def __init__(
        self,
        env_id: str,
        rows: Sequence[dict[str, Any]],
        max_turns: int = 8,
        turn_tokens: int = 96,
        log_completions: bool = False,
        **env_kwargs: Any,
    ) -> None:
        _adapter(env_id)
        self.env_id, self.env_kwargs = env_id, env_kwargs
        self.max_turns, self.turn_tokens = (
            check_int("max_turns", max_turns, 1),
            check_int("turn_tokens", turn_tokens, 1),
        )
        self.log_completions = log_completions
        self._rows = {self._key(row["prompt"]): row for row in rows}
        self.actions = self.messages = 0
        self.__name__ = type(self).__name__  # TRL names a rollout function in its logs

    @staticmethod
    def _key(prompt: Any) -> str:
        return str(prompt[-1]["content"]) if isinstance(prompt, list) else str(prompt)

    def _row(self, prompt: Any) -> dict[str, Any]:
        try:
            return self._rows[self._key(prompt)]
        except KeyError:
            raise ArgumentError(
                "a prompt of the batch is not one of the rollout's rows (build both from text_rows)"
            ) from None

    def __call__(self, prompts: list[Any], trainer: Any) -> dict[str, Any]:
        """Play one episode per prompt; return TRL's rollout fields and the reward inputs (see the module)."""
        tokenizer = trainer.processing_class
        kwargs = dict(getattr(trainer, "chat_template_kwargs", None) or {})
        prompt_ids = [
            list(
                tokenizer.apply_chat_template(p, add_generation_prompt=True, tokenize=True, return_dict=False, **kwargs)
            )
            for p in prompts
        ]
        episodes = [_Episode(self, self._row(p), tokenizer) for p in prompts]
        budget = trainer.max_completion_length
        try:
            for _ in range(self.max_turns):
                active = [e for e in episodes if not e.done and len(e.ids) < budget]
                if not active:
                    break
                room = min(self.turn_tokens, *(budget - len(e.ids) for e in active))
                inputs = [prompt_ids[i] + e.ids for i, e in enumerate(episodes) if e in active]
                replies = _generate(trainer, inputs, room)
                for episode, reply in zip(active, replies, strict=True):
                    episode.play(reply, budget)
        finally:
            for episode in episodes:
                episode.finish()
        if self.log_completions:
            for episode in episodes:
                print(episode.transcript())
        return {
            "prompt_ids": prompt_ids,
            "completion_ids": [e.ids for e in episodes],
            "logprobs": None,
            "env_mask": [e.mask for e in episodes],
            "env_reward": [e.reward for e in episodes],
            "parsed_share": [e.parsed / max(e.turns, 1) for e in episodes],
            "actions": [e.parsed for e in episodes],
        }


def _generate(trainer: Any, inputs: list[list[int]], max_new_tokens: int) -> list[list[int]]:
    """Sample one message per input with the trainer's generation settings; each reply ends at the first EOS."""
    import torch
    from trl.models.utils import unwrap_model_for_generation

    tokenizer = trainer.processing_class
    width = max(len(ids) for ids in inputs)
    pad = tokenizer.pad_token_id
    ids = torch.tensor([[pad] * (width - len(i)) + i for i in inputs], device=trainer.accelerator.device)
    mask = torch.tensor([[0] * (width - len(i)) + [1] * len(i) for i in inputs], device=trainer.accelerator.device)
    generation = {**trainer.generation_kwargs, "max_new_tokens": max_new_tokens}
    with (
        unwrap_model_for_generation(trainer.model_wrapped, trainer.accelerator, generation_kwargs=generation) as model,
        torch.no_grad(),
    ):
        output = model.generate(input_ids=ids, attention_mask=mask, generation_config=trainer.generation_config,
                                max_new_tokens=max_new_tokens)  # fmt: skip
    eos = set(trainer.eos_token_ids)
    replies = []
    for row in output[:, width:].tolist():
        end = next((k for k, token in enumerate(row) if token in eos), None)
        replies.append(row if end is None else row[: end + 1])
    return replies


class _Episode:
    """One text-action episode: the env (inside :class:`TextActions`), the completion tokens and the counts."""

    def __init__(self, rollout: TextActionRollout, row: dict[str, Any], tokenizer: Any) -> None:
        self.env = TextActions(icae_env.make(rollout.env_id, **rollout.env_kwargs), tools=TEXT_TOOLS[rollout.env_id])
        self.env.reset(seed=row.get("seed"), options={"task": row["task"], "level": row.get("level", "L1")})
        self.rollout, self.tokenizer = rollout, tokenizer
        self.ids: list[int] = []
        self.mask: list[int] = []
        self.log: list[tuple[str, str]] = []
        self.reward, self.done, self.turns, self.parsed = 0.0, False, 0, 0

    def play(self, reply: list[int], budget: int) -> None:
        """Add the model's message, step the env with it, and add the env's reply unless it overflows the budget."""
        self.ids += reply
        self.mask += [1] * len(reply)
        eos = self.tokenizer.eos_token
        text = self.tokenizer.decode(reply, skip_special_tokens=False).removesuffix(eos)
        observation, reward, terminated, truncated, info = self.env.step(text)
        self.turns += 1
        self.rollout.messages += 1
        if info.get("action_error") is None:
            self.parsed += 1
            self.rollout.actions += 1
        self.reward += float(reward)
        self.done = bool(terminated or truncated)
        self.log += [("assistant", text), ("env", str(observation["output"]))]
        if self.done:
            return
        suffix = self._suffix(reply, str(observation["output"]))
        if len(self.ids) + len(suffix) >= budget:
            return
        self.ids += suffix
        self.mask += [0] * len(suffix)

    def _suffix(self, reply: list[int], output: str) -> list[int]:
        """The tokens after the model's message: its end (when cut), the env's reply as a user turn, the next header."""
        tokenizer = self.tokenizer
        base = [{"role": "user", "content": "x"}, {"role": "assistant", "content": "y"}]
        before = list(tokenizer.apply_chat_template(base, tokenize=True, return_dict=False))
        after = list(tokenizer.apply_chat_template([*base, {"role": "user", "content": output}], tokenize=True,
                                                   return_dict=False, add_generation_prompt=True))  # fmt: skip
        eos = tokenizer.eos_token_id
        end = len(before) - before[::-1].index(eos) if eos in before else len(before)
        closing = [] if reply and reply[-1] == eos else [eos]
        return closing + before[end:] + after[len(before) :]

    def finish(self) -> None:
        """Finish an unfinished episode (``submit``), add its reward and close the env."""
        if not self.done:
            _, reward, _, _, _ = self.env.step({"tool": "submit"})
            self.reward += float(reward)
            self.done = True
            self.log.append(("env", "(finished: submit)"))
        self.env.close()

    def transcript(self) -> str:
        """The episode's messages, one block each, and its return."""
        lines = [f"--- {who}: {text.strip()[:400]}" for who, text in self.log]
        return "\n".join([*lines, f"=== return {self.reward:.3f}, {self.parsed}/{self.turns} messages were actions"])


def env_reward(completions: list[Any], env_reward: list[float], **kwargs: Any) -> list[float]:
    """The env's reward column of a text-action rollout: each episode's return."""
    return [float(r) for r in env_reward]


def text_format_reward(completions: list[Any], parsed_share: list[float], **kwargs: Any) -> list[float]:
    """The format reward column of a text-action rollout: the share of the model's messages that were actions."""
    return [float(s) for s in parsed_share]
