"""SkyRL-gym adapter: any registered icae-env id as a ``skyrl_gym`` text env (``pip install "icae-env[skyrl]"``).

Importing this module registers every ``icae/...`` id (as it stands in Gymnasium's registry) in SkyRL-gym's
registry under the same id, so a SkyRL dataset row only names it::

    {"prompt": [], "env_class": "icae/ProjectBuild-v0", "task": "builtin/unidiff", "level": "L1", "seed": 0}

SkyRL's generator builds one env per trajectory with ``skyrl_gym.make(env_class, env_config=..., extras=row)``
(``extras`` holds the row's other columns plus ``max_turns``) and calls ``init``, ``step`` and ``close`` from its
thread pool, many envs at once. :class:`IcaeTextEnv` therefore starts nothing when built: ``init`` makes and
resets the icae env (sandbox included), ``close`` releases it.

* ``init(prompt)`` returns the prompt's messages, preceded by icae-env's system prompt (the tools and call
  formats) unless the prompt brings a system message, followed by the first observation (PRD, instructions) as
  a user message.
* ``step(text)`` parses the model's text with :func:`icae_env.wrappers.parse_text_action` (through
  :class:`~icae_env.wrappers.TextActions`: a message without one valid call is an action-error observation and
  costs a turn) and returns the observation as the next user message, the env's reward for the step (the score
  on the last step of a build or revision episode, the recovery reward per question in ``icae/Clarify-v0``) and
  ``done``.
* The turn limit is ``extras["max_turns"]`` (SkyRL's ``generator.max_turns``), else the env's ``max_steps``: it
  becomes the icae env's ``max_steps``, so an episode that reaches it without ``submit`` is truncated and scored
  on its workspace as it is (``score_on_truncation=False`` is refused here).

Env arguments, lowest precedence first: :func:`register_skyrl_env`'s keyword arguments, SkyRL's per-env config
(``env_config``: ``skyrl_gym_cfg.<env_class>``, a mapping or ``DictConfig``), the row's ``task`` and ``level``.
``tools`` and ``system_prompt`` configure the text layer; everything else goes to ``icae_env.make``. Register in
the process that runs the generator (SkyRL's Ray entry point): ``import icae_env.trainers.skyrl``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium as gym

from icae_env.errors import ArgumentError, ConfigError, DependencyNotInstalled, ResetNeeded, check_int
from icae_env.registration import unknown

try:
    import skyrl_gym
    from omegaconf import DictConfig, OmegaConf
    from skyrl_gym.envs.base_text_env import BaseTextEnv, BaseTextEnvStepOutput
except ImportError as exc:  # pragma: no cover - exercised in a subprocess by the tests
    raise DependencyNotInstalled("skyrl-gym", "skyrl") from exc

import icae_env
from icae_env.wrappers import ChatObservations, TextActions

__all__ = ["ENTRY_POINT", "IcaeTextEnv", "register_skyrl_env", "register_skyrl_envs"]

#: The SkyRL-gym entry point of every id this module registers.
ENTRY_POINT = "icae_env.trainers.skyrl:IcaeTextEnv"
#: Tools offered by default where an env takes fewer than all of them.
DEFAULT_TOOLS: dict[str, tuple[str, ...]] = {"icae/Clarify-v0": ("ask", "submit")}
_ROW_KEYS = ("task", "level")
_TEXT_KEYS = ("tools", "system_prompt")


def _plain(config: Any, what: str) -> dict[str, Any]:
    """Return ``config`` (None, a mapping or an omegaconf ``DictConfig``) as a plain dict."""
    if config is None:
        return {}
    if isinstance(config, DictConfig):
        config = OmegaConf.to_container(config, resolve=True)
    if not isinstance(config, Mapping):
        raise ConfigError(f"{what} must be a mapping, got {type(config).__name__}")
    return {str(k): v for k, v in config.items()}


def _row_value(extras: Mapping[str, Any], key: str) -> Any:
    """A row field, at the top of ``extras`` or in its ``extra_info`` (SkyRL datasets use both)."""
    if extras.get(key) is not None:
        return extras[key]
    info = extras.get("extra_info")
    return info.get(key) if isinstance(info, Mapping) else None


def _optional_int(name: str, value: Any, low: int) -> int | None:
    if value is None:
        return None
    if hasattr(value, "item") and not isinstance(value, (int, bool)):
        value = value.item()  # numpy scalars from parquet rows
    return check_int(name, value, low)


def _fresh_metrics() -> dict[str, Any]:
    return {"return": 0.0, "submitted": False, "auto_scored": False, "action_errors": 0}


class IcaeTextEnv(BaseTextEnv):
    """A registered icae-env env as a SkyRL-gym ``BaseTextEnv`` (see the module docstring for the protocol).

    Args:
        env_config: SkyRL's per-env config (``skyrl_gym_cfg.<env_class>``): env arguments plus ``tools`` and
            ``system_prompt``; over ``env_kwargs``.
        extras: The dataset row's other columns: ``task``, ``level``, ``seed`` (also read from
            ``extras["extra_info"]``) and ``max_turns``; other columns are ignored.
        env_id: The icae-env id to run (``icae/ProjectBuild-v0``, ``icae/Clarify-v0`` ...).
        **env_kwargs: Defaults of the env arguments (what :func:`register_skyrl_env` was given).

    Raises:
        UnknownNameError: for an ``env_id`` Gymnasium does not know.
        ConfigError: for a config that is not a mapping, or ``score_on_truncation=False``.
        ArgumentError: for a bad ``seed`` or ``max_turns``.

    Example:
        >>> row = {"task": "builtin/dep-resolver", "seed": 0, "max_turns": 2}
        >>> env = skyrl_gym.make("icae/Clarify-v0", env_config={}, extras=row)
        >>> messages, meta = env.init([])
        >>> [m["role"] for m in messages], meta["task"]
        (['system', 'user'], 'dep-resolver')
        >>> out = env.step("<ask>How are cycles reported?</ask>")
        >>> round(out["reward"], 2), out["done"], out["observations"][0]["role"]
        (0.08, False, 'user')
        >>> out = env.step("<bash>ls</bash>")  # the last turn: the episode ends and is scored
        >>> out["done"], env.get_metrics()["auto_scored"]
        (True, True)
        >>> env.close()
    """

    def __init__(
        self,
        env_config: Any = None,
        extras: Mapping[str, Any] | None = None,
        *,
        env_id: str = "icae/ProjectBuild-v0",
        **env_kwargs: Any,
    ) -> None:
        super().__init__()
        if env_id not in gym.registry:
            raise unknown("env id", env_id, [i for i in gym.registry if i.startswith("icae/")])
        row = _plain(extras, "extras")
        kwargs = {**env_kwargs, **_plain(env_config, "env_config")}
        kwargs.update({k: _row_value(row, k) for k in _ROW_KEYS if _row_value(row, k) is not None})
        if kwargs.get("score_on_truncation", True) is False:
            raise ConfigError("score_on_truncation=False: the SkyRL adapter scores every episode at the turn limit")
        self.env_id, self.seed = env_id, _optional_int("seed", _row_value(row, "seed"), 0)
        self.tools: Sequence[str] | None = kwargs.pop("tools", DEFAULT_TOOLS.get(env_id))
        self.system_prompt: str | None = kwargs.pop("system_prompt", None)
        turns = _optional_int("max_turns", row.get("max_turns"), 1)
        if turns is not None:
            kwargs["max_steps"] = turns
        self.env_kwargs = kwargs
        self.max_turns = turns if turns is not None else self._default_max_steps()
        self._env: ChatObservations | None = None
        self._seen = 0
        self._done = False
        self._episode = _fresh_metrics()

    def _default_max_steps(self) -> int:
        if "max_steps" in self.env_kwargs:
            return int(self.env_kwargs["max_steps"])
        return int(gym.spec(self.env_id).kwargs.get("max_steps", 1))

    def _build(self) -> ChatObservations:
        env = icae_env.make(self.env_id, **self.env_kwargs)
        try:
            text_options = {"system_prompt": self.system_prompt} if self.system_prompt is not None else {}
            return ChatObservations(TextActions(env, tools=self.tools), tools=self.tools, **text_options)
        except BaseException:
            env.close()
            raise

    def init(self, prompt: Sequence[Mapping[str, Any]] | None = None) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        """Make and reset the icae env; return the first messages (see the module docstring) and metadata.

        Args:
            prompt: The dataset row's messages (often empty or one system message).

        Returns:
            The chat to start from, and ``{"env_id", "task", "level"}``.
        """
        self.close()
        self._env = self._build()
        messages, info = self._env.reset(seed=self.seed)
        self.turns, self._seen, self._done = 0, len(messages), False
        self._episode = _fresh_metrics()
        given = [dict(m) for m in (prompt if prompt is not None else [])]
        system = [] if any(m.get("role") == "system" for m in given) else messages[:1]
        return system + given + messages[1:], {"env_id": self.env_id, "task": info["task"], "level": info["level"]}

    def step(self, action: str) -> BaseTextEnvStepOutput:
        """Take the model's text as one action; return the next messages, the step's reward and ``done``.

        Raises:
            ResetNeeded: before ``init`` or after the episode ended.
        """
        if self._env is None or self._done:
            raise ResetNeeded("call init() first" if self._env is None else "the episode is over; call init()")
        self.turns += 1
        messages, reward, terminated, truncated, info = self._env.step(action)
        self._done = bool(terminated or truncated)
        new = messages[self._seen + 1 :]  # after the assistant message the wrapper recorded for `action`
        self._seen = len(messages)
        self._record(float(reward), bool(terminated), bool(truncated), info)
        metadata = {k: info.get(k) for k in ("tool", "action_error", "action_hint")}
        metadata.update(terminated=bool(terminated), truncated=bool(truncated))
        observations = [] if self._done else [{"role": m["role"], "content": m["content"]} for m in new]
        return BaseTextEnvStepOutput(
            observations=observations, reward=float(reward), done=self._done, metadata=metadata
        )

    def _record(self, reward: float, terminated: bool, truncated: bool, info: Mapping[str, Any]) -> None:
        episode = self._episode
        episode["return"] += reward
        episode["action_errors"] += info.get("action_error") is not None
        if terminated or truncated:
            episode.update(submitted=terminated, auto_scored=truncated)
            score = info.get("score")
            components = score.get("components", {}) if isinstance(score, Mapping) else {}
            episode.update({f"score/{k}": float(v) for k, v in components.items()})
            if "task_coverage" in info:
                episode["task_coverage"] = float(info["task_coverage"])

    def get_metrics(self) -> dict[str, Any]:
        """Numeric episode metrics: return, turns, submitted, auto_scored, action_errors, score components."""
        return {**self._episode, "turns": self.turns}

    def close(self) -> None:
        """Release the icae env and its sandbox; safe to call twice and before ``init``."""
        env, self._env = self._env, None
        if env is not None:
            env.close()


def register_skyrl_env(env_id: str, skyrl_id: str | None = None, **env_kwargs: Any) -> str:
    """Register ``env_id`` in SkyRL-gym's registry (again, with new defaults, if this module registered it).

    Args:
        env_id: A registered icae-env id.
        skyrl_id: The SkyRL ``env_class`` name (default: ``env_id``).
        **env_kwargs: Default env arguments (and ``tools`` / ``system_prompt``); keep them JSON-able, as SkyRL's
            specs are.

    Returns:
        The SkyRL id.

    Raises:
        UnknownNameError: for an unknown ``env_id``.
        ArgumentError: when ``skyrl_id`` is taken by an env that is not this adapter.
    """
    if env_id not in gym.registry:
        raise unknown("env id", env_id, [i for i in gym.registry if i.startswith("icae/")])
    name = skyrl_id or env_id
    taken = skyrl_gym.registry.get(name)
    if taken is not None and taken.entry_point != ENTRY_POINT:
        raise ArgumentError(f"SkyRL-gym id {name!r} is taken by {taken.entry_point!r}")
    if taken is not None:
        skyrl_gym.envs.registration.deregister(name)
    skyrl_gym.register(id=name, entry_point=ENTRY_POINT, kwargs={"env_id": env_id, **env_kwargs})
    return name


def register_skyrl_envs() -> list[str]:
    """Register every ``icae/...`` id of Gymnasium's registry not yet in SkyRL-gym's; return all of ours."""
    for env_id in [i for i in gym.registry if i.startswith("icae/")]:
        if env_id not in skyrl_gym.registry:
            register_skyrl_env(env_id)
    return sorted(i for i, s in skyrl_gym.registry.items() if s.entry_point == ENTRY_POINT)


register_skyrl_envs()
