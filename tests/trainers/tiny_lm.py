"""A tiny Qwen2 language model with random weights and a tokenizer trained here, for TRL tests (no model hub).

:class:`ScriptedLM` is the same model whose generations follow fixed scripts: each turn's text is forced token by
token through a logits processor, so the tool calls it makes are known while TRL's real generation, parsing and
training run.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator, Sequence
from typing import Any

import torch
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LogitsProcessor, LogitsProcessorList, PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM
from trl.chat_template_utils import qwen2_5_chat_template

from icae_env.tasks import list_tasks, load_task

SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
TAGS = ["<tool_call>", "</tool_call>", "<tool_response>", "</tool_response>"]


def tool_call(name: str, **arguments: Any) -> str:
    """The text of one Qwen2.5-style tool call."""
    return "<tool_call>\n" + json.dumps({"name": name, "arguments": arguments}) + "\n</tool_call>"


def _corpus() -> list[str]:
    """A few hundred strings: PRD paragraphs, the chat template's tool preamble, tool calls."""
    tasks = [load_task(name) for name in list_tasks()]
    texts = [part for task in tasks for level in ("L1", "L3") for part in str(task.prd(level)).split("\n\n")]
    texts += [
        qwen2_5_chat_template,
        tool_call("ask", question="What should the output look like?"),
        tool_call("submit"),
    ]
    return texts


def tiny_tokenizer() -> PreTrainedTokenizerFast:
    """A byte-level BPE tokenizer trained on a few hundred lines, with the Qwen2.5 chat template (tools included)."""
    bpe = Tokenizer(models.BPE())
    bpe.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    bpe.decoder = decoders.ByteLevel()
    alphabet = pre_tokenizers.ByteLevel.alphabet()
    bpe.train_from_iterator(
        _corpus(), trainers.BpeTrainer(vocab_size=4096, special_tokens=SPECIAL, initial_alphabet=alphabet)
    )
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=bpe, eos_token="<|im_end|>", pad_token="<|endoftext|>", padding_side="left",
        chat_template=qwen2_5_chat_template,
    )  # fmt: skip
    tokenizer.add_tokens(TAGS)
    return tokenizer


def tiny_config(tokenizer: PreTrainedTokenizerFast) -> Qwen2Config:
    """A two-layer Qwen2 of width 32 whose context holds a PRD, the tool schemas and a few turns."""
    return Qwen2Config(
        vocab_size=len(tokenizer), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=2,
        num_key_value_heads=1, max_position_embeddings=16_384, eos_token_id=tokenizer.eos_token_id,
        pad_token_id=tokenizer.pad_token_id, bos_token_id=None, tie_word_embeddings=True,
    )  # fmt: skip


def tiny_model(tokenizer: PreTrainedTokenizerFast, seed: int = 0) -> Qwen2ForCausalLM:
    """The tiny Qwen2 with random weights."""
    torch.manual_seed(seed)
    return Qwen2ForCausalLM(tiny_config(tokenizer))


class _Script(LogitsProcessor):
    """Force each row's next token for one ``generate`` call (every call starts right after an assistant header).

    A first turn plays the next script in turn (``plays`` counts the episodes begun so far); a later turn (a prompt
    with tool responses) plays the script whose first turn the row holds, its turn numbered by the tool responses.
    """

    def __init__(
        self, tokenizer: PreTrainedTokenizerFast, scripts: Sequence[Sequence[str]], plays: Iterator[int]
    ) -> None:
        self.turns = [[tokenizer.encode(text + "<|im_end|>", add_special_tokens=False) for text in s] for s in scripts]
        self.response = tokenizer.convert_tokens_to_ids("<tool_response>")
        self.eos = tokenizer.eos_token_id
        self.plays = plays
        self.rows: list[tuple[list[int], int]] = []

    def _plan(self, row: list[int]) -> tuple[list[int], int]:
        turn = row.count(self.response)
        if turn == 0:
            script = self.turns[next(self.plays) % len(self.turns)]
        else:
            text = "," + ",".join(map(str, row)) + ","
            script = next(s for s in self.turns if "," + ",".join(map(str, s[0])) + "," in text)
        return (script[turn] if turn < len(script) else [self.eos]), len(row)

    def __call__(self, input_ids: torch.LongTensor, scores: torch.FloatTensor) -> torch.FloatTensor:
        rows = input_ids.tolist()
        if not self.rows:
            self.rows = [self._plan(row) for row in rows]
        forced = torch.full_like(scores, float("-inf"))
        for index, (ids, start) in enumerate(self.rows):
            done = len(rows[index]) - start
            forced[index, ids[done] if done < len(ids) else self.eos] = 0.0
        return forced


class ScriptedLM(Qwen2ForCausalLM):
    """The tiny Qwen2 whose ``generate`` follows scripts (lists of turn texts); training sees its real logits."""

    def script(self, tokenizer: PreTrainedTokenizerFast, scripts: Sequence[Sequence[str]]) -> ScriptedLM:
        """Set the scripts: the episodes begun play them in turn (the first one the first script)."""
        self._scripts = (tokenizer, [list(s) for s in scripts], itertools.count())
        return self

    def generate(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        """Generate with a fresh script processor."""
        kwargs["logits_processor"] = LogitsProcessorList([_Script(*self._scripts)])
        return super().generate(*args, **kwargs)


def scripted_model(tokenizer: PreTrainedTokenizerFast, scripts: Sequence[Sequence[str]]) -> ScriptedLM:
    """A :class:`ScriptedLM` with random weights playing ``scripts``."""
    torch.manual_seed(0)
    return ScriptedLM(tiny_config(tokenizer)).script(tokenizer, scripts)
