"""Connecting to Ray: import it lazily, join an existing cluster or start a local one, and start actors.

Nothing here imports ``ray`` at module import time; :func:`require_ray` does, and raises
:class:`~icae_env.errors.DependencyNotInstalled` when the ``ray`` extra is missing.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from icae_env.errors import ArgumentError, DependencyNotInstalled, IcaeEnvError

__all__ = [
    "DEFAULT_OBJECT_STORE_BYTES",
    "ParallelError",
    "require_ray",
    "connect",
    "ray_session",
    "actor_class",
    "wait_ready",
    "stop_actors",
]

DEFAULT_OBJECT_STORE_BYTES = 256 * 1024 * 1024
"""Object store of a local cluster started by icae-env: results and observations are small text."""


class ParallelError(IcaeEnvError, RuntimeError):
    """Ray could not run the request (actors could not be placed or started, or a remote env died)."""


def require_ray() -> ModuleType:
    """Import and return the ``ray`` module.

    Raises:
        DependencyNotInstalled: ``ray`` is not installed (``pip install "icae-env[ray]"``).
    """
    try:
        import ray
    except ImportError as exc:
        raise DependencyNotInstalled("ray", "ray") from exc
    return ray


def _starts_local(address: str | None) -> bool:
    return address is None and not os.environ.get("RAY_ADDRESS")


def connect(
    address: str | None = None,
    *,
    num_cpus: int | None = None,
    object_store_memory: int | None = DEFAULT_OBJECT_STORE_BYTES,
    **init_kwargs: Any,
) -> bool:
    """Connect this process to Ray unless it already is.

    ``address`` is ``"auto"`` (the cluster named by ``RAY_ADDRESS`` or the one last started on this machine),
    ``"host:port"`` (a cluster's GCS) or ``"ray://host:port"`` (a Ray client server). With None, the cluster
    named by ``RAY_ADDRESS`` is joined when that variable is set; otherwise a local cluster is started with
    ``num_cpus`` (None: every core), ``object_store_memory`` bytes and no dashboard.

    A ``ray://`` connection is tried twice: a client server can fail to start its per-client server once (seen on
    busy machines). A failed attempt shuts Ray down again, so that the process can connect later.

    A cluster with Ray's token authentication (the default of clusters started by recent Ray releases) needs, in
    the driver's environment, ``RAY_AUTH_MODE=token`` and the cluster's token (``~/.ray/auth_token``,
    ``RAY_AUTH_TOKEN`` or ``RAY_AUTH_TOKEN_PATH``), as for any Ray driver.

    Args:
        address: The cluster to join (None: ``RAY_ADDRESS`` or a new local cluster).
        num_cpus: CPUs of a new local cluster (ignored when joining one).
        object_store_memory: Object store bytes of a new local cluster (ignored when joining one).
        **init_kwargs: More ``ray.init`` arguments (``log_to_driver``, ``runtime_env``, ``namespace`` ...).

    Returns:
        True when this call initialised Ray (the caller shuts it down), False when Ray was already initialised.

    Raises:
        DependencyNotInstalled: Ray is not installed.
        ParallelError: The cluster at ``address`` (or ``RAY_ADDRESS``) cannot be reached.
    """
    ray = require_ray()
    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"log_to_driver": False}
    if _starts_local(address):
        options.update(num_cpus=num_cpus, object_store_memory=object_store_memory, include_dashboard=False)
    options.update(init_kwargs)
    attempts = 2 if str(address or os.environ.get("RAY_ADDRESS", "")).startswith("ray://") else 1
    for attempt in range(1, attempts + 1):
        try:
            ray.init(address=address, **options)
            return True
        except (ConnectionError, TimeoutError) as exc:
            ray.shutdown()  # a failed init can leave Ray half-initialised; the next connect must start clean
            if attempt == attempts:
                where = address or os.environ.get("RAY_ADDRESS") or "a new local cluster"
                raise ParallelError(f"could not reach Ray at {where}: {exc}") from exc
    return True


@contextmanager
def ray_session(address: str | None = None, **kwargs: Any) -> Iterator[ModuleType]:
    """Context manager around :func:`connect`: yields ``ray`` and shuts down only what it started.

    Args:
        address: See :func:`connect`.
        **kwargs: See :func:`connect`.

    Yields:
        The ``ray`` module, connected.
    """
    owned = connect(address, **kwargs)
    ray = require_ray()
    try:
        yield ray
    finally:
        if owned:
            ray.shutdown()


def actor_class(cls: type, num_cpus: float) -> Any:
    """Return ``cls`` as a Ray actor class that requests ``num_cpus`` (fractional allowed) and is never restarted.

    Args:
        cls: A plain class (defined in an importable module).
        num_cpus: CPUs each actor reserves (>= 0).
    """
    if num_cpus < 0:
        raise ArgumentError(f"num_cpus must be >= 0, got {num_cpus!r}")
    return require_ray().remote(num_cpus=num_cpus, max_restarts=0, max_task_retries=0)(cls)


def wait_ready(actors: Sequence[Any], timeout_s: float, what: str) -> list[int]:
    """Wait until every actor answers ``ready()`` (its process id).

    Args:
        actors: Actor handles whose class has a ``ready()`` method.
        timeout_s: Seconds to wait for all of them.
        what: What the actors are, for the error message.

    Returns:
        The actors' process ids.

    Raises:
        ParallelError: An actor failed to start (its constructor raised) or could not be placed in time.
    """
    ray = require_ray()
    refs = [actor.ready.remote() for actor in actors]
    ready, _ = ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
    if len(ready) < len(refs):
        resources = ray.available_resources()
        raise ParallelError(
            f"only {len(ready)}/{len(refs)} {what} started within {timeout_s:.0f}s "
            f"(cluster resources free: {resources}); lower the CPU request per actor or add nodes"
        )
    try:
        return [int(pid) for pid in ray.get(refs)]
    except ray.exceptions.RayError as exc:
        raise ParallelError(f"{what} failed to start: {exc}") from exc


def stop_actors(actors: Sequence[Any], timeout_s: float = 30.0) -> None:
    """Ask each live actor to ``close()`` (releasing its sandbox), then kill it; dead actors are skipped.

    Args:
        actors: Actor handles whose class has a ``close()`` method.
        timeout_s: Seconds to wait for the ``close()`` calls.
    """
    ray = require_ray()
    refs = [actor.close.remote() for actor in actors]
    ray.wait(refs, num_returns=len(refs), timeout=timeout_s)
    for actor in actors:
        try:
            ray.kill(actor, no_restart=True)
        except ray.exceptions.RayError:  # already gone
            continue
