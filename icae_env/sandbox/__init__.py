"""Sandboxes: the :class:`Sandbox` Protocol, its backends (chosen by name) and :class:`SandboxSpec`.

Example:
    >>> from icae_env.sandbox import make_sandbox
    >>> with make_sandbox("local") as box:
    ...     box.exec("pwd; echo $HOME").exit_code
    0
"""

from __future__ import annotations

from typing import Any

from icae_env.registration import SANDBOX_BACKENDS
from icae_env.sandbox.base import DEFAULT_OUTPUT_LIMIT, ExecResult, Sandbox, SandboxBackend, cap_output
from icae_env.sandbox.spec import SandboxSpec, backend_class

__all__ = [
    "BACKENDS",
    "DEFAULT_OUTPUT_LIMIT",
    "ExecResult",
    "Sandbox",
    "SandboxBackend",
    "SandboxSpec",
    "available_backends",
    "cap_output",
    "make_sandbox",
]

#: Backend name -> "module:Class" entry point (the table lives in :mod:`icae_env.registration`).
BACKENDS = SANDBOX_BACKENDS


def make_sandbox(name: str = "local", *, language: str | None = None, **options: Any) -> Sandbox:
    """Create (but do not start) a sandbox of backend ``name``: ``SandboxSpec.of(name, options).make(...)``.

    Args:
        name: A key of :data:`BACKENDS`.
        language: The task's language (the ``docker`` backend picks its image by language).
        **options: Backend options (see :mod:`icae_env.sandbox.spec`).

    Returns:
        The sandbox; call ``start()`` or use it as a context manager.

    Raises:
        ConfigError: for an unknown backend or option (naming the valid ones).
        DependencyNotInstalled: when the backend's extra is missing.
    """
    box: Sandbox = SandboxSpec.of(name, options).make(language=language)
    return box


def available_backends() -> list[str]:
    """Return the backends whose dependencies are importable and whose ``available()`` is true here."""
    names = []
    for name in BACKENDS:
        try:
            if backend_class(name).available():
                names.append(name)
        except ImportError:
            continue
    return names
