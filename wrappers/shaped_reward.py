"""``ShapedReward``: optional dense reward terms on top of an icae-env episode reward, every term in ``info``."""

from __future__ import annotations

import math
import re
from typing import Any, SupportsFloat

import gymnasium as gym

from icae_env.actions import ActionParseError, Bash, parse_action
from icae_env.errors import ArgumentError, ArgumentTypeError

__all__ = ["ShapedReward"]

#: A command that runs the harness: ``bash rcb_tests/test.sh``, ``./rcb_tests/test.sh``, also after ``&&`` or ``;``.
_TEST_COMMAND = r"(?:^|[;&|(]\s*)(?:bash\s+|sh\s+|exec\s+|\./)?rcb_tests/test\.sh\b"


def _no_action_wrapper_below(env: gym.Env) -> None:
    """ShapedReward must see the actions the env takes, so no action wrapper may sit between them."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, gym.ActionWrapper):
            raise ArgumentError(
                f"ShapedReward must wrap the env inside {type(env).__name__}: it reads the actions the env takes "
                "(e.g. TextActions(ShapedReward(env)))"
            )
        env = env.env


class ShapedReward(gym.RewardWrapper, gym.utils.RecordConstructorArgs):
    """Add dense terms to the env's reward; ``info["shaping"]`` holds the env reward, each term and the total.

    Terms (weights 0 switch a term off):

    * ``constraint``: ``+constraint`` per task-specific hidden record that a question recovers for the first time
      (ARCH/HARNESS boilerplate and test-case files excluded, as in ``task_coverage``);
    * ``public``: ``+public * progress`` when a ``bash`` command matching ``test_command`` runs the public tests
      and the env's visible progress (``env.unwrapped.progress()``: the Public pass rate, scored in a fresh sandbox
      on a sanitised snapshot of the workspace, as ``submit`` scores it) beats the best so far (so progress is paid
      once and cannot be farmed by breaking and fixing the code); kinds without visible tests pay nothing;
    * ``fallback``: ``-fallback`` per question the User Agent could not answer.

    The wrapper holds no hidden data: which records a question recovered and whether it fell back come from the
    env's ``info["recovered"]`` and ``info["fallback"]``. Put it directly on the env, inside ``TextActions``.

    Args:
        env: An icae-env env (``icae/ProjectBuild-v0``, ``icae/Revision-v0`` or ``icae/Clarify-v0``).
        constraint: Reward per newly recovered task-specific record.
        public: Reward per unit of Public pass-rate progress.
        fallback: Penalty per fallback reply.
        test_command: Regular expression that marks a bash command as a run of the public tests.

    Example:
        >>> from icae_env.envs.clarify import ClarifyEnv
        >>> env = ShapedReward(ClarifyEnv(task="builtin/dep-resolver", question_cost=0.0), constraint=0.5)
        >>> _ = env.reset(seed=0)
        >>> _, reward, *_, info = env.step("how are cycles reported?")
        >>> info["shaping"]["constraint"], round(reward, 2)
        (0.5, 0.6)
        >>> _, reward, *_, info = env.step("what is the weather like today?")
        >>> info["shaping"]["fallback"], reward
        (-0.02, -0.02)
    """

    def __init__(
        self,
        env: gym.Env,
        constraint: float = 0.05,
        public: float = 0.5,
        fallback: float = 0.02,
        test_command: str = _TEST_COMMAND,
    ) -> None:
        for name, value in (("constraint", constraint), ("public", public), ("fallback", fallback)):
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value) or value < 0:
                raise ArgumentError(f"{name} must be a finite number >= 0, got {value!r}")
        if not isinstance(test_command, str):
            raise ArgumentTypeError(
                f"test_command must be a regular expression string, got {type(test_command).__name__}"
            )
        try:
            pattern = re.compile(test_command)
        except re.error as exc:
            raise ArgumentError(f"test_command {test_command!r} is not a valid regular expression: {exc}") from None
        _no_action_wrapper_below(env)
        gym.utils.RecordConstructorArgs.__init__(
            self, constraint=constraint, public=public, fallback=fallback, test_command=test_command
        )
        gym.RewardWrapper.__init__(self, env)
        self.weights = {"constraint": float(constraint), "public": float(public), "fallback": float(fallback)}
        self._pattern = pattern
        self._best_public = 0.0
        self._terms: dict[str, float] = {}

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset the env and the shaping state (the best Public rate so far)."""
        self._best_public = 0.0
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, SupportsFloat, bool, bool, dict[str, Any]]:
        """Step the env, compute every term, add them to the reward and report them in ``info["shaping"]``."""
        parsed = self._parse(action)
        observation, reward, terminated, truncated, info = self.env.step(action)
        terms = {
            "env": float(reward),
            "constraint": self.weights["constraint"] * len(info.get("recovered") or ()),
            "public": self.weights["public"] * self._public_progress(parsed, info, terminated or truncated),
            "fallback": -self.weights["fallback"] if info.get("fallback") else 0.0,
        }
        self._terms = {**terms, "total": sum(terms.values())}
        return observation, self.reward(reward), terminated, truncated, {**info, "shaping": dict(self._terms)}

    def reward(self, reward: SupportsFloat) -> float:
        """Return the env reward plus the shaping terms of the current step."""
        return float(reward) + sum(v for k, v in self._terms.items() if k not in ("env", "total"))

    @staticmethod
    def _parse(action: Any) -> Any:
        try:
            return parse_action(action)
        except ActionParseError:
            return None

    def _public_progress(self, parsed: Any, info: dict[str, Any], done: bool) -> float:
        if done or not isinstance(parsed, Bash) or info.get("action_error") or not self._pattern.search(parsed.command):
            return 0.0
        rate = self.env.unwrapped.progress()  # type: ignore[attr-defined]
        if rate is None:
            return 0.0
        progress = max(0.0, rate - self._best_public)
        self._best_public = max(self._best_public, rate)
        return progress
