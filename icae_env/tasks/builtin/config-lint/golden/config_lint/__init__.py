"""config_lint: parse, normalise, type and lint INI-style configuration text.

The package is pure: it never touches stdin, stdout or JSON. See adapter.py for the I/O layer.
"""
from .errors import ConfigError, ConfigParseError, LookupFailed, ConversionError
from .model import Issue, Config
from .parser import scan, load, lint, DUPLICATE_POLICIES
from .coerce import infer, convert, TYPES
from .render import render_dump, render_types, render_lint

__all__ = [
    "ConfigError", "ConfigParseError", "LookupFailed", "ConversionError",
    "Issue", "Config", "scan", "load", "lint", "DUPLICATE_POLICIES",
    "infer", "convert", "TYPES", "render_dump", "render_types", "render_lint",
]
