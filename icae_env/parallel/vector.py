"""Policy on the driver, environments on Ray: :class:`RayVectorEnv` steps any subset of N remote environments.

Each environment lives in its own actor (which reserves ``num_cpus_per_env`` CPUs, fractional allowed) and is
built there from the registered id and keyword arguments. The driver batches its policy over whichever
environments it wants to advance and calls :meth:`RayVectorEnv.step` with an action for each of them; only
those environments move, so episodes may have different lengths (ragged) and some environments may wait while
others step. :meth:`~RayVectorEnv.step_async` / :meth:`~RayVectorEnv.step_wait` let the driver collect
results as they finish instead of waiting for the slowest command.

Autoreset (``autoreset=True``, the default) follows Gymnasium's *same-step* mode: the step that ends an episode
returns that episode's reward, ``terminated`` and ``truncated``, while its ``observation`` and ``info`` are
already those of the next episode; the last observation and info of the finished episode are in
:attr:`EnvStep.final_observation` and :attr:`EnvStep.final_info`. The next episode is reset with the options of
the environment's last explicit :meth:`~RayVectorEnv.reset` (task, level) and no seed, so the environment's
generator carries on from that seeded reset and a run stays reproducible. With ``autoreset=False`` a finished
environment is listed in :attr:`~RayVectorEnv.needs_reset` and stepping it raises
:class:`~icae_env.errors.ResetNeeded` until it is reset.

An environment that raises, or whose actor dies, makes ``step`` raise :class:`VectorStepError`, which carries
the outcomes of the other environments of the call; the failed one is listed in
:attr:`~RayVectorEnv.needs_reset`, and resetting it (with a fresh actor when the old one died) brings it back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from icae_env.errors import ArgumentError, ResetNeeded
from icae_env.parallel.cluster import ParallelError, actor_class, connect, require_ray, stop_actors, wait_ready
from icae_env.parallel.remote_env import EnvStep, EnvWorker
from icae_env.registration import runtime_rows

ENV_ID = "icae/ProjectBuild-v0"

__all__ = ["EnvStep", "RayVectorEnv", "VectorStepError"]


class VectorStepError(ParallelError):
    """Some environments of a batched call failed; the call's other outcomes are kept.

    A failed environment is listed in :attr:`RayVectorEnv.needs_reset`; resetting one whose actor died starts a
    fresh actor. The first underlying Ray error (``RayTaskError`` when the environment raised, ``RayActorError``
    when its actor died) is the exception's ``__cause__``.

    Attributes:
        completed: The outcomes of the environments that did not fail (``EnvStep`` for steps,
            ``(observation, info)`` for resets), in env id order.
        failed: Env id -> one-line error, for those that failed.
    """

    def __init__(self, completed: list[Any], failed: dict[int, str]) -> None:
        self.completed, self.failed = completed, failed
        super().__init__(f"environments {sorted(failed)} failed: " + "; ".join(failed.values())[:1000])


def _per_env(value: Any, ids: Sequence[int], name: str) -> list[Any]:
    """Spread a per-vector argument over ``ids``: a sequence (one per id), or one value for all."""
    if isinstance(value, (list, tuple)):
        if len(value) != len(ids):
            raise ArgumentError(f"{name} has {len(value)} entries for {len(ids)} environments")
        return list(value)
    return [value] * len(ids)


class RayVectorEnv:
    """N environments in Ray actors, stepped in any subset from a policy on the driver.

    See the module docstring for the stepping and autoreset contract.

    Args:
        num_envs: How many environments.
        env_kwargs: ``icae_env.make`` arguments for every environment.
        env_id: The registered environment id.
        num_cpus_per_env: CPUs each environment's actor reserves (fractional allowed; 0 for none).
        autoreset: Whether a finished episode is followed by a new one in the same step.
        address: Cluster to join (None: ``RAY_ADDRESS`` or a new local cluster); see
            :func:`~icae_env.parallel.connect`. An existing connection of this process is used and left open.
        ray_init_kwargs: More :func:`~icae_env.parallel.connect` arguments (``num_cpus`` ...).
        ready_timeout_s: Seconds to wait for the actors to be placed and started.

    Attributes:
        num_envs: How many environments.
        autoreset: Whether autoreset is on.
        pids: Process ids of the environments' actors at start.

    Raises:
        DependencyNotInstalled: Ray is not installed.
        ParallelError: The actors could not be placed or started.
    """

    def __init__(
        self,
        num_envs: int,
        env_kwargs: dict[str, Any] | None = None,
        *,
        env_id: str = ENV_ID,
        num_cpus_per_env: float = 0.5,
        autoreset: bool = True,
        address: str | None = None,
        ray_init_kwargs: dict[str, Any] | None = None,
        ready_timeout_s: float = 120.0,
    ) -> None:
        if num_envs < 1:
            raise ArgumentError(f"num_envs must be >= 1, got {num_envs!r}")
        self._ray = require_ray()
        self.num_envs, self.autoreset = num_envs, autoreset
        self._args = (env_id, dict(env_kwargs or {}), runtime_rows())
        self._class = actor_class(EnvWorker, num_cpus_per_env)
        self._owns_ray = connect(address, **(ray_init_kwargs or {}))
        self._actors: list[Any] = [self._spawn(i) for i in range(num_envs)]
        self._pending: dict[int, Any] = {}
        self._needs_reset: set[int] = set(range(num_envs))
        self._closed = False
        try:
            self.pids = wait_ready(self._actors, ready_timeout_s, f"{num_envs} environments")
        except BaseException:
            self._shutdown(timeout_s=0)
            raise

    def _spawn(self, index: int) -> Any:
        env_id, kwargs, rows = self._args
        return self._class.remote(env_id, kwargs, index, rows)

    def _check_ids(self, ids: Sequence[int]) -> list[int]:
        ids = [int(i) for i in ids]
        bad = [i for i in ids if not 0 <= i < self.num_envs]
        if bad or len(set(ids)) != len(ids):
            raise ArgumentError(f"env ids must be distinct and in 0..{self.num_envs - 1}, got {ids}")
        busy = [i for i in ids if i in self._pending]
        if busy:
            raise ArgumentError(f"environments {busy} have a step in flight; call step_wait() first")
        return ids

    @property
    def pending(self) -> tuple[int, ...]:
        """Environments with a step in flight (dispatched by :meth:`step_async`, not yet collected)."""
        return tuple(sorted(self._pending))

    @property
    def needs_reset(self) -> tuple[int, ...]:
        """Environments that must be reset before they can step (never reset, finished, or dead)."""
        return tuple(sorted(self._needs_reset))

    def reset(
        self,
        *,
        seed: int | Sequence[int | None] | None = None,
        options: dict[str, Any] | Sequence[dict[str, Any] | None] | None = None,
        env_ids: Sequence[int] | None = None,
    ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        """Reset some or all environments (a dead environment gets a fresh actor first).

        Args:
            seed: One seed per environment, or an int ``s`` giving environment ``i`` the seed ``s + i``
                (Gymnasium's convention), or None.
            options: Reset options (``task``, ``level``) for all, or one dict per environment.
            env_ids: Which environments (default all), in the order of the returned lists.

        Returns:
            The observations and infos of the reset environments, in ``env_ids`` order.

        Raises:
            VectorStepError: An environment failed or its actor died (the others' outcomes are in the error).
        """
        ids = self._check_ids(range(self.num_envs) if env_ids is None else env_ids)
        seeds = [seed + i for i in ids] if isinstance(seed, int) else _per_env(seed, ids, "seed")
        for i in ids:
            if self._actors[i] is None:
                self._actors[i] = self._spawn(i)
        calls = zip(ids, seeds, _per_env(options, ids, "options"), strict=True)
        try:
            outcomes = self._gather(ids, [self._actors[i].reset.remote(s, o) for i, s, o in calls])
        except VectorStepError as exc:
            self._needs_reset.difference_update(i for i in ids if i not in exc.failed)
            raise
        self._needs_reset.difference_update(ids)
        return [obs for obs, _ in outcomes], [info for _, info in outcomes]

    def step_async(self, actions: Mapping[int, Any]) -> None:
        """Start one step in each environment of ``actions`` (env id -> action); collect with :meth:`step_wait`.

        Raises:
            ResetNeeded: An environment of ``actions`` must be reset first.
            ValueError: An env id is unknown or already has a step in flight.
        """
        ids = self._check_ids(list(actions))
        waiting = [i for i in ids if i in self._needs_reset]
        if waiting:
            raise ResetNeeded(f"environments {waiting} must be reset before they can step")
        for i in ids:
            self._pending[i] = self._actors[i].step.remote(actions[i], self.autoreset)

    def step_wait(self, num_returns: int | None = None, timeout: float | None = None) -> list[EnvStep]:
        """Collect steps in flight: all of them, the first ``num_returns`` to finish, or those done by ``timeout``.

        Args:
            num_returns: How many finished steps to wait for (default: every step in flight).
            timeout: Seconds to wait at most (None: no limit); fewer results may come back.

        Returns:
            The finished steps, in env id order.

        Raises:
            VectorStepError: An environment failed or its actor died (the others' outcomes are in the error).
        """
        return self._collect(list(self._pending), num_returns, timeout)

    def step(self, actions: Mapping[int, Any]) -> list[EnvStep]:
        """Step the environments of ``actions`` (env id -> action) and return their results in env id order.

        Environments not in ``actions`` do not move (and steps started by :meth:`step_async` stay in flight).
        See the module docstring for autoreset.

        Raises:
            ResetNeeded: An environment of ``actions`` must be reset first.
            VectorStepError: An environment failed or its actor died (the others' outcomes are in the error).
        """
        self.step_async(actions)
        return self._collect(list(actions))

    def _collect(
        self, ids: Sequence[int], num_returns: int | None = None, timeout: float | None = None
    ) -> list[EnvStep]:
        if not ids:
            return []
        by_ref = {self._pending[i]: i for i in ids}
        wanted = len(by_ref) if num_returns is None else max(1, min(num_returns, len(by_ref)))
        ready, _ = self._ray.wait(list(by_ref), num_returns=wanted, timeout=timeout)
        done = sorted(((by_ref[ref], ref) for ref in ready), key=lambda pair: pair[0])
        for i, _ in done:
            del self._pending[i]
        try:
            steps: list[EnvStep] = self._gather([i for i, _ in done], [ref for _, ref in done])
        except VectorStepError as exc:
            self._note_finished(exc.completed)
            raise
        self._note_finished(steps)
        return steps

    def _note_finished(self, steps: list[EnvStep]) -> None:
        if not self.autoreset:
            self._needs_reset.update(s.env_id for s in steps if s.done)

    def _gather(self, ids: Sequence[int], refs: Sequence[Any]) -> list[Any]:
        """``ray.get`` each ref; raises :class:`VectorStepError` (with the others' outcomes) when any failed."""
        values, failed, first = [], {}, None
        for i, ref in zip(ids, refs, strict=True):
            try:
                values.append(self._ray.get(ref))
            except self._ray.exceptions.RayError as exc:  # the env raised, or its actor died: reset it first
                if not isinstance(exc, self._ray.exceptions.RayTaskError):
                    self._actors[i] = None  # dead: the next reset starts a fresh actor
                self._needs_reset.add(i)
                failed[i], first = " ".join(f"{type(exc).__name__}: {exc}".split())[:500], first or exc
        if failed:
            raise VectorStepError(values, failed) from first
        return values

    def close(self) -> None:
        """Close every environment, kill the actors, and shut Ray down if this object started it (idempotent)."""
        self._shutdown(timeout_s=30.0)

    def _shutdown(self, timeout_s: float) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        stop_actors([a for a in self._actors if a is not None], timeout_s)
        self._pending.clear()
        if self._owns_ray:
            self._ray.shutdown()

    def __enter__(self) -> RayVectorEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
