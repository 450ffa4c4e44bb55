""":class:`SandboxSpec`: which sandbox backend runs commands, with which options; the one way a sandbox is chosen.

Environments (``sandbox=``, ``sandbox_options=``), the YAML run configuration (its ``sandbox:`` section), Ray
workers and the command line (``--sandbox NAME --sandbox-option key=value``) all build a :class:`SandboxSpec`.
The options are the backend's own constructor keywords (``local``: ``isolation``, ``default_timeout``,
``output_limit``, ``env``, ``hide``; ``docker``: ``image``, ``image_map``, ``memory``, ``cpus``, ``pids_limit``,
``warm_pool`` ...), checked by name and type against its signature when the spec is made, with every default
filled in, so two specs that start the same sandbox compare equal.

Example:
    >>> spec = SandboxSpec.of("local", {"isolation": "none"})
    >>> spec.backend, spec.options()["isolation"], spec.options()["default_timeout"]
    ('local', 'none', 120.0)
    >>> try:
    ...     SandboxSpec.of("local", {"colour": "red"})
    ... except ConfigError as exc:
    ...     print(str(exc).split(";")[0])
    sandbox option 'colour' is not an option of the local backend
"""

from __future__ import annotations

import inspect
import typing
from collections.abc import Mapping, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, create_model, field_validator, model_validator

from icae_env.errors import ConfigError
from icae_env.registration import SANDBOX_BACKENDS, resolve

__all__ = ["SandboxSpec", "backend_class", "option_names", "parse_option"]

#: Constructor keywords that are not options: the environment passes them per episode.
_PER_EPISODE = frozenset({"self", "language"})


def backend_class(name: str) -> Any:
    """Return the class of backend ``name``.

    Raises:
        UnknownNameError: for an unknown backend (naming the known ones).
        DependencyNotInstalled: when the backend's extra is missing.
    """
    return resolve("sandbox backend", name)


@cache
def _options_model(name: str) -> type[BaseModel]:
    """A strict pydantic model of backend ``name``'s constructor keywords (names, types and defaults)."""
    cls = backend_class(name)
    hints = typing.get_type_hints(cls.__init__)
    fields: dict[str, Any] = {}
    for param in inspect.signature(cls.__init__).parameters.values():
        if param.name in _PER_EPISODE or param.kind in (param.VAR_KEYWORD, param.VAR_POSITIONAL):
            continue
        default = ... if param.default is param.empty else param.default
        fields[param.name] = (hints.get(param.name, Any), default)
    config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)
    model: type[BaseModel] = create_model(f"{cls.__name__}Options", __config__=config, **fields)
    return model


def option_names(backend: str) -> list[str]:
    """Return the option names of ``backend``, sorted."""
    return sorted(_options_model(backend).model_fields)


def parse_option(text: str) -> tuple[str, Any]:
    """Parse a command-line ``key=value`` option; the value is read as a YAML scalar (``2`` int, ``true`` bool).

    Raises:
        ConfigError: when ``text`` has no ``=``.
    """
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"--sandbox-option takes key=value, got {text!r}")
    try:
        parsed = yaml.safe_load(value) if value.strip() else ""
    except yaml.YAMLError:
        parsed = value
    return key.strip(), parsed


class SandboxSpec(BaseModel):
    """A sandbox backend by name (``backend``) and its options (every other field).

    Construct it with :meth:`of` (which names the bad option in a :class:`~icae_env.errors.ConfigError`) or from a
    mapping such as a YAML section (``SandboxSpec.model_validate({"backend": "docker", "memory": "2g"})``).
    """

    model_config = ConfigDict(frozen=True, extra="allow")

    backend: str = "local"

    @field_validator("backend")
    @classmethod
    def _known(cls, value: str) -> str:
        if value not in SANDBOX_BACKENDS:
            backend_class(value)  # raises UnknownNameError naming the backends
        return value

    @model_validator(mode="after")
    def _check_options(self) -> SandboxSpec:
        checked = _options_model(self.backend).model_validate(dict(self.model_extra or {}))
        assert self.__pydantic_extra__ is not None  # noqa: S101 - extra="allow"
        self.__pydantic_extra__.update(checked.model_dump())
        return self

    @classmethod
    def of(
        cls, sandbox: SandboxSpec | str | Mapping[str, Any] | None = None, options: Mapping[str, Any] | None = None
    ) -> SandboxSpec:
        """Return the spec of ``sandbox`` (a spec, a backend name, or a mapping) with ``options`` laid over it.

        Raises:
            ConfigError: naming the bad backend or option, its valid choices and the value received.
        """
        if isinstance(sandbox, SandboxSpec):
            base: dict[str, Any] = {"backend": sandbox.backend, **sandbox.options()}
        elif isinstance(sandbox, Mapping):
            base = dict(sandbox)
        elif sandbox is None or isinstance(sandbox, str):
            base = {"backend": sandbox or "local"}
        else:
            raise ConfigError(f"sandbox must be a backend name, a SandboxSpec or a mapping, got {sandbox!r}")
        if options is not None and not isinstance(options, Mapping):
            raise ConfigError(f"sandbox_options must be a mapping of option names to values, got {options!r}")
        try:
            return cls.model_validate({**base, **dict(options or {})})
        except ValidationError as exc:
            raise ConfigError(describe_error(exc, str(base.get("backend", "local")))) from None

    def options(self) -> dict[str, Any]:
        """Return the backend's keyword options (every option, defaults included)."""
        return dict(self.model_extra or {})

    def make(self, *, language: str | None = None, hide: Sequence[str | Path] = ()) -> Any:
        """Create (not start) a sandbox of this spec for a task in ``language``, also masking ``hide``.

        Returns:
            The :class:`~icae_env.sandbox.base.Sandbox`; call ``start()`` or use it as a context manager.
        """
        options = self.options()
        if hide:
            options["hide"] = (*tuple(options.get("hide") or ()), *(str(p) for p in hide))
        return backend_class(self.backend)(language=language, **options)


def describe_error(exc: ValidationError, backend: str) -> str:
    """Return one line for the first problem of a spec: the option, its valid choices and the value received."""
    first = exc.errors()[0]
    where = ".".join(str(p) for p in first["loc"])
    if first["type"] == "extra_forbidden":
        valid = ", ".join(option_names(backend))
        return f"sandbox option {where!r} is not an option of the {backend} backend; valid options: {valid}"
    if where == "backend":
        return str(first.get("ctx", {}).get("error", first["msg"]))
    return f"sandbox option {where!r}: {first['msg']} (got {first.get('input')!r})"
