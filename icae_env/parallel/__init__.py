"""Parallel rollouts on Ray (install the ``ray`` extra: ``pip install "icae-env[ray]"``).

* :func:`rollout`: whole episodes on N worker actors, streamed back with a progress line, appended to JSONL as
  they arrive, an episode retried when its worker dies, infrastructure errors kept apart from agent failures.
  :func:`run_suite_parallel` is :func:`icae_env.runner.run_suite` with ``workers`` (``icae-env run --workers N``).
* :class:`RayVectorEnv`: a policy on the driver (often on a GPU) steps any subset of N remote environments.
* :func:`connect` / :func:`ray_session`: join a cluster (``address="auto"``, ``"host:port"``,
  ``"ray://host:port"``, or ``RAY_ADDRESS``) or start a local one.

Environments and sandboxes never cross processes: every actor builds its own environment from the registered
id and keyword arguments. Importing this package does not import Ray; using it without Ray raises
:class:`~icae_env.errors.DependencyNotInstalled`.
"""

from __future__ import annotations

from icae_env.parallel.cluster import DEFAULT_OBJECT_STORE_BYTES, ParallelError, connect, ray_session, require_ray
from icae_env.parallel.records import INFRA_PREFIX, EpisodeJob, InfraError, RolloutReport, make_jobs
from icae_env.parallel.runner import rollout, run_suite_parallel
from icae_env.parallel.vector import EnvStep, RayVectorEnv, VectorStepError

__all__ = [
    "DEFAULT_OBJECT_STORE_BYTES",
    "INFRA_PREFIX",
    "EnvStep",
    "EpisodeJob",
    "InfraError",
    "ParallelError",
    "RayVectorEnv",
    "RolloutReport",
    "VectorStepError",
    "connect",
    "make_jobs",
    "ray_session",
    "require_ray",
    "rollout",
    "run_suite_parallel",
]
