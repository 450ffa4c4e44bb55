"""Baseline agents, each a single runnable file (``python baselines/<name>.py``)."""
