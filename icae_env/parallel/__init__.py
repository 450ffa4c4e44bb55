"""Parallel rollouts on Ray (install the ``ray`` extra: ``pip install "icae-env[ray]"``).

* :func:`rollout`: the Ray mode of :func:`icae_env.run.run_suite` (``workers=N``, ``icae-env run --workers N``):
  whole episodes on N worker actors, streamed back with a progress line, appended to JSONL as they arrive, an
  episode retried when its worker dies, infrastructure errors kept apart from agent failures.
* :class:`RayVectorEnv`: a policy on the driver (often on a GPU) steps any subset of N remote environments.
* :func:`connect` / :func:`ray_session`: join a cluster (``address="auto"``, ``"host:port"``,
  ``"ray://host:port"``, or ``RAY_ADDRESS``) or start a local one.

Environments and sandboxes never cross processes: every actor builds its own environment from the registered
id and keyword arguments (after applying the driver's run-time registrations). Importing this package does not
import Ray; using it without Ray raises :class:`~icae_env.errors.DependencyNotInstalled`.
"""

from __future__ import annotations

from icae_env.parallel.cluster import DEFAULT_OBJECT_STORE_BYTES, ParallelError, connect, ray_session, require_ray
from icae_env.parallel.vector import EnvStep, RayVectorEnv, VectorStepError
from icae_env.run.records import INFRA_PREFIX, EpisodeJob, InfraError, RolloutReport, make_jobs
from icae_env.run.suite import rollout

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
]
