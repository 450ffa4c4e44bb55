"""Run configuration loaded from YAML (``configs/*.yaml``, shipped in the wheel as ``icae_env.configs``).

The ``sandbox:`` section is a :class:`~icae_env.sandbox.SandboxSpec` (the backend and its options, checked against
the backend's signature); ``scoring:`` holds the scorer's limits; ``router:`` the User Agent's router and its
options (``router: {name: llm, options: {base_url: ..., model: ...}}``, checked against the router's constructor);
``judge:`` the revision judge (``judge: {name: llm, options: {...}}``; ``name: null`` is no judge). Endpoint
options left out fall back to ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` and ``OPENAI_API_KEY`` when the router or judge
is built. :meth:`RunConfig.env_kwargs` gives the ``icae_env.make`` arguments of both. Unknown keys are errors that
name the file and the field.

Example:
    >>> from icae_env.config import RunConfig, load_config
    >>> RunConfig().sandbox.backend, load_config("default") == RunConfig()
    ('local', True)
"""

from __future__ import annotations

import inspect
from importlib import resources
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from icae_env.errors import ConfigError, IcaeEnvError
from icae_env.registration import DEFAULT_ROUTER, JUDGES, ROUTERS, resolve
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring import ScoreLimits

__all__ = ["JudgeConfig", "RouterConfig", "ScoringConfig", "RunConfig", "load_config", "packaged_config"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ScoringConfig(_Strict):
    """Scorer limits; None means the task's own value."""

    case_timeout_s: float | None = Field(default=None, gt=0)
    first_output_s: float | None = Field(default=None, ge=0)
    tier_timeout_s: float | None = Field(default=None, gt=0)

    def limits(self) -> ScoreLimits:
        """Return these limits as the scorer takes them."""
        return ScoreLimits(case_s=self.case_timeout_s, first_output_s=self.first_output_s, tier_s=self.tier_timeout_s)


def _check_keys(what: str, name: str, options: dict[str, Any]) -> None:
    """Raise ValueError when the constructor of ``name`` (of table ``what``) takes no option among ``options``."""
    params = list(inspect.signature(resolve(what, name)).parameters.values())
    if what == "router":
        params = params[1:]  # ``documents``, given by the User Agent
    if any(p.kind is p.VAR_KEYWORD for p in params):
        return
    accepted = [p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = sorted(set(options) - set(accepted))
    if unknown:
        raise ValueError(f"{what} {name!r} takes no option {', '.join(map(repr, unknown))}; it accepts {accepted}")


class RouterConfig(_Strict):
    """The User Agent's router: a name of ``icae_env.registration.ROUTERS`` and its constructor's options."""

    name: str = DEFAULT_ROUTER
    options: dict[str, Any] = {}

    @field_validator("name")
    @classmethod
    def _known(cls, name: str) -> str:
        if name not in ROUTERS:
            raise ValueError(f"unknown router {name!r}; expected one of {sorted(ROUTERS)}")
        return name

    @model_validator(mode="after")
    def _options(self) -> RouterConfig:
        _check_keys("router", self.name, self.options)
        return self


class JudgeConfig(_Strict):
    """The revision judge: None (``judge`` checks reported ungraded) or a name of ``JUDGES`` and its options."""

    name: str | None = None
    options: dict[str, Any] = {}

    @model_validator(mode="after")
    def _options(self) -> JudgeConfig:
        if self.name is None:
            if self.options:
                raise ValueError("options need a judge name (name: llm)")
            return self
        if self.name not in JUDGES:
            raise ValueError(f"unknown judge {self.name!r}; expected one of {sorted(JUDGES)} or null")
        _check_keys("judge", self.name, self.options)
        return self


class RunConfig(_Strict):
    """Top-level configuration."""

    sandbox: SandboxSpec = SandboxSpec()
    scoring: ScoringConfig = ScoringConfig()
    router: RouterConfig = RouterConfig()
    judge: JudgeConfig = JudgeConfig()

    def env_kwargs(self, revision: bool = False) -> dict[str, Any]:
        """Return the ``icae_env.make`` arguments of the router (and, with ``revision``, of the judge).

        Args:
            revision: Whether the env is ``icae/Revision-v0`` (the only one that takes ``judge``).
        """
        kwargs: dict[str, Any] = {"router": self.router.name, "router_options": dict(self.router.options)}
        if revision:
            kwargs.update(judge=self.judge.name, judge_options=dict(self.judge.options) or None)
        return kwargs


def packaged_config(name: str) -> Path | None:
    """Return the path of the shipped configuration ``name`` (``default`` ...), or None when there is none."""
    try:
        path = resources.files("icae_env.configs") / f"{name}.yaml"
    except ModuleNotFoundError:
        return None
    return Path(str(path)) if path.is_file() else None


def load_config(path: str | Path) -> RunConfig:
    """Load a YAML run configuration: a file, or the name of a shipped one (``default``).

    Raises:
        ConfigError: one line naming the file and the field when the file is missing or invalid.
    """
    path = Path(path)
    if not path.exists() and path.parent == Path(".") and path.suffix == "":
        path = packaged_config(path.name) or path
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError(f"{path}: -: cannot read ({exc.strerror})") from None
    except yaml.YAMLError:
        raise ConfigError(f"{path}: -: not valid YAML") from None
    try:
        return RunConfig.model_validate(raw)
    except IcaeEnvError as exc:
        raise ConfigError(f"{path}: -: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "-"
        reason = str(first.get("ctx", {}).get("error", first["msg"]))
        raise ConfigError(f"{path}: {field}: {reason} (got {first.get('input')!r})") from None
