"""Adapters that plug icae-env episodes into RL trainers (each behind its own extra, imported on use).

- :mod:`icae_env.trainers.trl`: TRL's ``GRPOTrainer(environment_factory=...)`` (``pip install "icae-env[trl]"``).
- :mod:`icae_env.trainers.skyrl`: SkyRL-gym ``BaseTextEnv`` over any registered icae-env id
  (``pip install "icae-env[skyrl]"``).
"""
