"""globmatch: shell-style glob matching for slash-separated paths.

The package is pure: it never touches stdin, stdout or JSON. See adapter.py for the I/O layer.
"""
from .errors import GlobError, GlobSyntaxError, TooManyAlternatives
from .compiler import Alternative, Token, MAX_ALTERNATIVES, compile_pattern
from .glob import Glob, compile, match, filter, translate
from .render import render_translation

__all__ = [
    "GlobError", "GlobSyntaxError", "TooManyAlternatives",
    "Alternative", "Token", "MAX_ALTERNATIVES", "compile_pattern",
    "Glob", "compile", "match", "filter", "translate", "render_translation",
]
