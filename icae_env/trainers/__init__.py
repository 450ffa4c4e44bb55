"""Adapters that plug icae-env episodes into RL trainers (each behind its own extra, imported on use).

- :mod:`icae_env.trainers.trl`: TRL's ``GRPOTrainer(environment_factory=...)`` (``pip install "icae-env[trl]"``).
"""
