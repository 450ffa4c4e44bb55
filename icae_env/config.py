"""Run configuration loaded from YAML (``configs/*.yaml``) into strict pydantic models.

Example:
    >>> from icae_env.config import RunConfig
    >>> RunConfig().sandbox.backend
    'local'
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from icae_env.errors import ConfigError

__all__ = ["SandboxConfig", "ScoringConfig", "RunConfig", "load_config"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SandboxConfig(_Strict):
    """Which sandbox backend to use and its options."""

    backend: Literal["local"] = "local"
    isolation: Literal["auto", "bwrap", "none"] = "auto"
    default_timeout_s: float = Field(default=120.0, gt=0)
    output_limit_bytes: int = Field(default=64 * 1024, ge=64)

    def options(self) -> dict[str, Any]:
        """Return the keyword options for :func:`icae_env.sandbox.make_sandbox`."""
        return {
            "isolation": self.isolation,
            "default_timeout": self.default_timeout_s,
            "output_limit": self.output_limit_bytes,
        }


class ScoringConfig(_Strict):
    """Scorer limits; None means the task's own value."""

    case_timeout_s: float | None = Field(default=None, gt=0)
    first_output_s: float = Field(default=30.0, ge=0)
    tier_timeout_s: float | None = Field(default=None, gt=0)


class RunConfig(_Strict):
    """Top-level configuration."""

    sandbox: SandboxConfig = SandboxConfig()
    scoring: ScoringConfig = ScoringConfig()


def load_config(path: str | Path) -> RunConfig:
    """Load a YAML run configuration.

    Raises:
        ConfigError: one line naming the file and the field when the file is missing or invalid.
    """
    path = Path(path)
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
        raise ConfigError(f"{path}: {field}: {first['msg']} (got {first.get('input')!r})") from None
