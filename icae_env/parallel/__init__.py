"""Ray for icae-env (install the ``ray`` extra: ``pip install "icae-env[ray]"``): clusters and remote environments.

Whole-episode rollouts on Ray workers are the run layer's (:func:`icae_env.run.rollout`, ``run_suite(workers=N)``,
``icae-env run --workers N``), built on this package.

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

__all__ = [
    "DEFAULT_OBJECT_STORE_BYTES",
    "EnvStep",
    "ParallelError",
    "RayVectorEnv",
    "VectorStepError",
    "connect",
    "ray_session",
    "require_ray",
]
