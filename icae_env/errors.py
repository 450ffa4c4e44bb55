"""Typed errors raised by icae-env.

A short, flat hierarchy in the spirit of ``gymnasium.error``: every error derives from
:class:`IcaeEnvError`, and the ones that signal bad values also derive from :class:`ValueError`
so that callers may catch either. Agent mistakes inside an episode are never raised; they come back
as observations.
"""

from __future__ import annotations

import math
from typing import Any

import gymnasium.error

__all__ = [
    "IcaeEnvError",
    "ArgumentError",
    "ArgumentTypeError",
    "UnknownNameError",
    "TaskValidationError",
    "TaskNotFoundError",
    "IcaeImportError",
    "ConfigError",
    "SandboxError",
    "SandboxPathError",
    "FetchError",
    "DependencyNotInstalled",
    "ModelWeightsMissing",
    "ResetNeeded",
    "check_int",
    "check_number",
]


class IcaeEnvError(Exception):
    """Base class of every error raised by icae-env."""


class ArgumentError(IcaeEnvError, ValueError):
    """A function, constructor or command got a bad value; the message gives the expected and received value."""


class ArgumentTypeError(IcaeEnvError, TypeError):
    """A function or constructor got a value of the wrong type."""


class UnknownNameError(ArgumentError):
    """A name looked up in one of the registration tables (env, task kind, sandbox, router, agent) is unknown.

    The message lists the valid names and, when one is close, suggests it.
    """


class TaskValidationError(IcaeEnvError, ValueError):
    """A task file is malformed.

    The message is one line: ``<file>: <field>: <what is wrong>``.

    Attributes:
        file: Path of the offending file.
        field: Dotted path of the offending field inside that file (``"-"`` for the whole file).
        reason: What is wrong, with the expected and received value where it helps.
    """

    def __init__(self, file: str, field: str, reason: str) -> None:
        self.file = str(file)
        self.field = field or "-"
        self.reason = " ".join(reason.split())
        super().__init__(f"{self.file}: {self.field}: {self.reason}")


class TaskNotFoundError(IcaeEnvError, LookupError):
    """A task name or path does not resolve to a task pack."""


class IcaeImportError(IcaeEnvError, ValueError):
    """An ICAE-Bench data root cannot be imported (missing files, unknown alias, unusable record)."""


class ConfigError(IcaeEnvError, ValueError):
    """A configuration file or option is invalid; the message names the file and the field."""


class SandboxError(IcaeEnvError, RuntimeError):
    """A sandbox could not be started or used (programmer or infrastructure error, not an agent mistake)."""


class SandboxPathError(SandboxError, ValueError):
    """A path given to a sandbox file operation escapes the workspace."""


class FetchError(IcaeEnvError, RuntimeError):
    """Release data could not be fetched or installed.

    An HTTP error, an unreachable host, a checksum mismatch, no disk space, a refused archive member or a failed
    layout check; the message is one line naming the artifact.
    """


class ResetNeeded(IcaeEnvError, gymnasium.error.ResetNeeded):
    """``step`` was called before ``reset`` or after the episode ended (also a Gymnasium ``ResetNeeded``)."""


class ModelWeightsMissing(IcaeEnvError, FileNotFoundError):
    """Fitted model weights that are not shipped with the package are missing; the message says how to make them."""


class DependencyNotInstalled(IcaeEnvError, ImportError):
    """An optional dependency is missing; the message names the extra that installs it."""

    def __init__(self, package: str, extra: str) -> None:
        super().__init__(f'{package} is not installed; run `pip install "icae-env[{extra}]"`')


def check_int(name: str, value: Any, low: int) -> int:
    """Return ``value`` when it is an int >= ``low`` (bools excluded), else raise :class:`ArgumentError`."""
    if not isinstance(value, int) or isinstance(value, bool) or value < low:
        raise ArgumentError(f"{name} must be an int >= {low}, got {value!r}")
    return value


def check_number(name: str, value: Any, low: float = 0.0) -> float:
    """Return ``value`` as a float when it is a finite number >= ``low``, else raise :class:`ArgumentError`."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value < low:
        raise ArgumentError(f"{name} must be a finite number >= {low:g}, got {value!r}")
    return float(value)
