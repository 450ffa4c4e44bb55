"""The OpenEnv names :mod:`icae_env.serve` uses, in one place: without the package the error names the extra."""

from __future__ import annotations

from icae_env.errors import DependencyNotInstalled

_PROVIDED = {"openenv", "fastapi", "starlette", "uvicorn", "websockets"}  # the extra installs them all

try:
    import uvicorn
    from fastapi import FastAPI
    from fastapi.responses import JSONResponse
    from openenv.core.client_types import StepResult
    from openenv.core.env_client import EnvClient
    from openenv.core.env_server.http_server import HTTPEnvServer
    from openenv.core.env_server.interfaces import Environment
    from openenv.core.env_server.types import (
        Action,
        ConcurrencyConfig,
        EnvironmentMetadata,
        Observation,
        State,
    )
except ModuleNotFoundError as exc:
    if (exc.name or "").split(".")[0] not in _PROVIDED:
        raise
    raise DependencyNotInstalled("openenv", "openenv") from None

__all__ = [
    "Action",
    "ConcurrencyConfig",
    "EnvClient",
    "Environment",
    "EnvironmentMetadata",
    "FastAPI",
    "HTTPEnvServer",
    "JSONResponse",
    "Observation",
    "State",
    "StepResult",
    "uvicorn",
]
