"""Where an OpenAI-compatible chat endpoint is: explicit options first, then the ``OPENAI_*`` variables.

Used by the ``llm`` router (:mod:`icae_env.user_agent.optional.llm`) and the revision judge
(:mod:`icae_env.revision.llm_judge`). An option given as None or ``""`` is unset; an unset ``base_url``, ``model``
or ``api_key`` falls back to ``OPENAI_BASE_URL``, ``OPENAI_MODEL`` or ``OPENAI_API_KEY``. ``base_url`` and ``model``
are required: when neither the option nor the variable gives one, :class:`EndpointConfigError` names both.

Example:
    >>> resolve_endpoint("the llm router", "http://127.0.0.1:8000/v1", "m", None, environ={})
    Endpoint(base_url='http://127.0.0.1:8000/v1', model='m', api_key=None)
    >>> resolve_endpoint("the llm router", None, None, None, environ={"OPENAI_BASE_URL": "http://h/v1",
    ...     "OPENAI_MODEL": "m2", "OPENAI_API_KEY": "k"}).model
    'm2'
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NamedTuple

from icae_env.errors import ConfigError

__all__ = ["ENV_VARS", "Endpoint", "EndpointConfigError", "resolve_endpoint"]

#: Option -> the environment variable it falls back to.
ENV_VARS: dict[str, str] = {"base_url": "OPENAI_BASE_URL", "model": "OPENAI_MODEL", "api_key": "OPENAI_API_KEY"}


class EndpointConfigError(ConfigError):
    """A chat endpoint's ``base_url`` or ``model`` is given neither as an option nor by its ``OPENAI_*`` variable."""


class Endpoint(NamedTuple):
    """A resolved endpoint.

    Attributes:
        base_url: The endpoint's base (``/chat/completions`` is appended).
        model: The model name.
        api_key: The bearer key, or None.
    """

    base_url: str
    model: str
    api_key: str | None


def resolve_endpoint(
    who: str,
    base_url: str | None,
    model: str | None,
    api_key: str | None,
    environ: Mapping[str, str] | None = None,
) -> Endpoint:
    """Return the endpoint from the options, unset ones read from the ``OPENAI_*`` variables.

    Args:
        who: What needs the endpoint, for the error message (``"the llm router"``).
        base_url: The ``base_url`` option (None or empty: ``OPENAI_BASE_URL``).
        model: The ``model`` option (None or empty: ``OPENAI_MODEL``).
        api_key: The ``api_key`` option (None or empty: ``OPENAI_API_KEY``, else no key).
        environ: The variables to read (default ``os.environ``).

    Raises:
        EndpointConfigError: naming each missing option and its variable, or a non-string option.
    """
    env = os.environ if environ is None else environ
    given = {"base_url": base_url, "model": model, "api_key": api_key}
    values: dict[str, str | None] = {}
    for option, value in given.items():
        if value is not None and not isinstance(value, str):
            raise EndpointConfigError(f"{who}: {option} must be a string, got {value!r}")
        values[option] = value or env.get(ENV_VARS[option]) or None
    missing = [name for name in ("base_url", "model") if not values[name]]
    if missing:
        what = " and ".join(f"{name!r} (or set {ENV_VARS[name]})" for name in missing)
        raise EndpointConfigError(f"{who} needs the option {what}")
    return Endpoint(str(values["base_url"]), str(values["model"]), values["api_key"])
