"""Run configuration loaded from YAML (``configs/*.yaml``, shipped in the wheel as ``icae_env.configs``).

The ``sandbox:`` section is a :class:`~icae_env.sandbox.SandboxSpec` (the backend and its options, checked against
the backend's signature); ``scoring:`` holds the scorer's limits. Unknown keys are errors that name the file and
the field.

Example:
    >>> from icae_env.config import RunConfig, load_config
    >>> RunConfig().sandbox.backend, load_config("default") == RunConfig()
    ('local', True)
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from icae_env.errors import ConfigError
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring import ScoreLimits

__all__ = ["ScoringConfig", "RunConfig", "load_config", "packaged_config"]


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


class RunConfig(_Strict):
    """Top-level configuration."""

    sandbox: SandboxSpec = SandboxSpec()
    scoring: ScoringConfig = ScoringConfig()


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
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "-"
        reason = str(first.get("ctx", {}).get("error", first["msg"]))
        raise ConfigError(f"{path}: {field}: {reason} (got {first.get('input')!r})") from None
