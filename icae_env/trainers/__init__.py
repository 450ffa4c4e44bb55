"""Adapters that plug icae-env episodes into RL trainers (each behind its own extra, imported on use).

- :mod:`icae_env.trainers.trl`: TRL's ``GRPOTrainer(environment_factory=...)`` (``pip install "icae-env[trl]"``).
- :mod:`icae_env.trainers.text_actions`: a ``rollout_func`` for models without tool templates (text actions).
- :mod:`icae_env.trainers.grpo`: ``GRPOTrainer`` built in one call (``examples/train_trl.py``).
- :mod:`icae_env.trainers.demonstrations`: baseline episodes as chat JSONL for ``SFTTrainer`` (``icae-env export-sft``).
- :mod:`icae_env.trainers.local_model`: SmolLM2-135M-Instruct from its GGUF file (the ``local-model`` extra)
  and tool-capable chat templates.
- :mod:`icae_env.trainers.skyrl`: SkyRL-gym ``BaseTextEnv`` over any registered icae-env id
  (``pip install "icae-env[skyrl]"``).
"""
