"""Adapters for RL trainers; each module imports its trainer's library and needs that library's extra.

- :mod:`icae_env.trainers.skyrl`: SkyRL-gym ``BaseTextEnv`` over any registered icae-env id (extra ``skyrl``).
"""
