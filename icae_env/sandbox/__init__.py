"""Sandboxes: the :class:`Sandbox` Protocol and its backends, chosen by name.

Example:
    >>> from icae_env.sandbox import make_sandbox
    >>> with make_sandbox("local") as box:
    ...     box.exec("pwd; echo $HOME").exit_code
    0
"""

from __future__ import annotations

import difflib
import importlib
import inspect
from typing import Any

from icae_env.sandbox.base import DEFAULT_OUTPUT_LIMIT, ExecResult, Sandbox, cap_output

__all__ = [
    "BACKENDS",
    "DEFAULT_OUTPUT_LIMIT",
    "ExecResult",
    "Sandbox",
    "available_backends",
    "cap_output",
    "make_sandbox",
]

#: Backend name -> "module:Class" entry point (imported lazily so optional extras stay optional).
BACKENDS: dict[str, str] = {
    "local": "icae_env.sandbox.local:LocalSandbox",
    "docker": "icae_env.sandbox.docker:DockerSandbox",
}


def _resolve(name: str) -> type:
    if name not in BACKENDS:
        close = difflib.get_close_matches(str(name), list(BACKENDS), n=1)
        hint = f"; did you mean {close[0]!r}?" if close else ""
        raise ValueError(f"unknown sandbox backend {name!r}; expected one of {sorted(BACKENDS)}{hint}")
    module, _, attr = BACKENDS[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def make_sandbox(name: str = "local", *, language: str | None = None, **kwargs: Any) -> Sandbox:
    """Create (but do not start) a sandbox of backend ``name``.

    Args:
        name: A key of :data:`BACKENDS`.
        language: The task's language; passed to backends that choose an image by language (``docker``).
        **kwargs: Backend options (``local``: ``isolation``, ``default_timeout``, ``output_limit``, ``env``,
            ``hide``; ``docker``: ``image``, ``image_map``, ``network``, ``cpus``, ``memory``, ``pids_limit``,
            ``warm_pool`` ...).

    Returns:
        The sandbox; call ``start()`` or use it as a context manager.

    Raises:
        ValueError: for an unknown backend name.
        DependencyNotInstalled: when the backend's extra is missing.
    """
    backend = _resolve(name)
    if language is not None and "language" in inspect.signature(backend).parameters:
        kwargs.setdefault("language", language)
    return backend(**kwargs)


def available_backends() -> list[str]:
    """Return the backends whose dependencies are importable on this machine."""
    names = []
    for name in BACKENDS:
        try:
            backend = _resolve(name)
            probe = getattr(backend, "available", None)
            if probe is not None and not probe():
                continue
        except ImportError:
            continue
        names.append(name)
    return names
