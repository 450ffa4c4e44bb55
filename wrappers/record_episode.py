"""``RecordEpisode``: write each episode to its own JSONL trajectory that :func:`icae_env.run.replay` re-runs.

Below :class:`~wrappers.TextActions` a step line also holds ``raw``, the model's text that the action was parsed
from, and, when it held no valid action, the parser's error and hint in ``info`` (``action_error``,
``action_hint``): what the model was shown. The env's own answer to the invalid action stays in ``observation``
(so that the line replays) and in ``info["env_action_error"]``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, SupportsFloat

import gymnasium as gym

from icae_env.errors import ArgumentError, ArgumentTypeError
from icae_env.run.trajectory import TrajectoryWriter, trajectory_header

__all__ = ["RecordEpisode"]


class _Writer(TrajectoryWriter):
    """A trajectory writer whose step lines may carry the model's raw text next to the action."""

    def write_raw_step(
        self, step: int, action: Any, raw: str, observation: Any, reward: float, terminated: bool, truncated: bool,
        info: Any,
    ) -> None:  # fmt: skip
        """Record one step with ``raw``, the text the action was parsed from."""
        self._write(
            {
                "type": "step",
                "step": step,
                "action": action,
                "raw": raw,
                "observation": observation,
                "reward": reward,
                "terminated": terminated,
                "truncated": truncated,
                "info": info,
            }
        )


_CHANGES_WHAT_IS_RECORDED = (gym.ActionWrapper, gym.ObservationWrapper, gym.RewardWrapper)


def _check_directly_on_env(env: gym.Env) -> None:
    """Replays re-run the bare env, so nothing below the recorder may change actions, observations or rewards."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, _CHANGES_WHAT_IS_RECORDED):
            raise ArgumentError(
                f"RecordEpisode must wrap the env below {type(env).__name__}: a replay re-runs the bare env, so "
                "the recorded actions, observations and rewards must be the env's own "
                "(e.g. TextActions(RecordEpisode(env)))"
            )
        env = env.env


class RecordEpisode(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """Record every episode to ``<directory>/<name_prefix>-<n>.jsonl``, one flushed line per event.

    ``n`` counts episodes from 0, skipping names that already exist (earlier runs are never overwritten).

    The lines are those of :class:`icae_env.run.trajectory.TrajectoryWriter`: a ``reset`` line with the env ID, its
    constructor arguments (:func:`~icae_env.run.trajectory.trajectory_header`: task objects by the reference that
    loads them, never their hidden data), seed, options, observation and info, then
    one ``step`` line per step. A file is readable even when the process dies mid-episode, and
    :func:`icae_env.run.trajectory.replay` re-runs it through ``icae_env.make`` (the env needs a registered ID). It
    changes nothing it records, so it subclasses :class:`gymnasium.Wrapper`; it must sit directly on the env.

    Args:
        env: The env to record (made with ``gymnasium.make`` for a replayable file).
        directory: Folder of the trajectory files (created when missing).
        name_prefix: File-name prefix.

    Example:
        >>> import tempfile
        >>> from icae_env.envs.clarify import ClarifyEnv
        >>> from icae_env.run.trajectory import read_trajectory
        >>> folder = tempfile.mkdtemp()
        >>> env = RecordEpisode(ClarifyEnv(task="builtin/dep-resolver"), folder)
        >>> _ = env.reset(seed=0)
        >>> _ = env.step("how are cycles reported?")
        >>> _ = env.step("")
        >>> [(r["type"], r["action"] if "action" in r else None) for r in read_trajectory(env.paths[0])]
        [('reset', None), ('step', 'how are cycles reported?'), ('step', '')]
        >>> env.close()
    """

    def __init__(self, env: gym.Env, directory: str | Path, name_prefix: str = "episode") -> None:
        if not isinstance(directory, (str, Path)) or not str(directory):
            raise ArgumentTypeError(f"directory must be a non-empty str or Path, got {directory!r}")
        if not isinstance(name_prefix, str) or not name_prefix or "/" in name_prefix:
            raise ArgumentError(f"name_prefix must be a non-empty file-name prefix without '/', got {name_prefix!r}")
        _check_directly_on_env(env)
        gym.utils.RecordConstructorArgs.__init__(self, directory=str(directory), name_prefix=name_prefix)
        gym.Wrapper.__init__(self, env)
        self.directory, self.name_prefix = Path(directory), name_prefix
        self.paths: list[Path] = []
        self._writer: _Writer | None = None
        self._steps = 0
        self._note: dict[str, Any] = {}

    def annotate(self, raw: str | None, action_error: str | None = None, action_hint: str | None = None) -> None:
        """Attach what the text layer above saw and showed to the next step line (called by ``TextActions``).

        Args:
            raw: The model's text the action was parsed from (None: the action came as a dict).
            action_error: The parser's error, shown to the model instead of the env's (None: the text parsed).
            action_hint: The parser's hint.
        """
        self._note = {"raw": raw, "action_error": action_error, "action_hint": action_hint}

    def _next_path(self) -> Path:
        """The first free ``<prefix>-<n>.jsonl``: files of earlier runs in the folder are never overwritten."""
        index = len(self.paths)
        while (path := self.directory / f"{self.name_prefix}-{index}.jsonl").exists():
            index += 1
        return path

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env and start a new trajectory file with its reset line."""
        observation, info = self.env.reset(seed=seed, options=options)
        self._close_writer()
        path = self._next_path()
        self._writer, self._steps, self._note = _Writer(path), 0, {}
        self.paths.append(path)
        self._writer.write_reset(*trajectory_header(self.env), seed, options, observation, info)
        return observation, info

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env and append the step line; the file is closed when the episode ends."""
        note, self._note = self._note, {}
        observation, reward, terminated, truncated, info = self.env.step(action)
        if self._writer is not None:
            self._steps += 1
            self._write_step(self._writer, note, action, (observation, float(reward), terminated, truncated, info))
            if terminated or truncated:
                self._close_writer()
        return observation, reward, terminated, truncated, info

    def _write_step(self, writer: _Writer, note: dict[str, Any], action: Any, outcome: tuple) -> None:
        observation, reward, terminated, truncated, info = outcome
        recorded = dict(info)
        if note.get("action_error") is not None:
            recorded.update(
                action_error=note["action_error"],
                action_hint=note["action_hint"],
                env_action_error=info.get("action_error"),
            )
        step, raw = self._steps, note.get("raw")
        if raw is None:
            writer.write_step(step, action, observation, reward, terminated, truncated, recorded)
        else:
            writer.write_raw_step(step, action, raw, observation, reward, terminated, truncated, recorded)

    def _close_writer(self) -> None:
        if self._writer is not None:
            self._writer.close()
            self._writer = None

    def close(self) -> None:
        """Close the current trajectory file and the env; safe to call twice."""
        self._close_writer()
        super().close()
