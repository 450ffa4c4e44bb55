"""Language runtimes: the toolchain each language needs and its reference container image.

The images are ICAE-Bench's reference images (``docs/icae-format.md`` section 6). Users without a
registry map languages to locally built images in the Docker backend's configuration instead.
"""

from __future__ import annotations

from icae_env.tasks.models import Runtime

__all__ = ["RUNTIMES", "default_runtime", "normalise_language"]

RUNTIMES: dict[str, Runtime] = {
    "python": Runtime(toolchain=("python3",), image="python:3.11"),
    "javascript": Runtime(toolchain=("node",), image="node:20"),
    "typescript": Runtime(toolchain=("node", "npx"), image="node:20"),
    "java": Runtime(toolchain=("java", "javac"), image="eclipse-temurin:17"),
    "kotlin": Runtime(toolchain=("java", "kotlinc"), image="eclipse-temurin:17"),
    "go": Runtime(toolchain=("go",), image="golang:1.22"),
    "rust": Runtime(toolchain=("cargo",), image="rust:1.81"),
    "ruby": Runtime(toolchain=("ruby",), image="ruby:3.2"),
    "php": Runtime(toolchain=("php",), image="php:8.2"),
    "dart": Runtime(toolchain=("dart",), image="dart:3.5"),
    "c++": Runtime(toolchain=("g++", "make"), image="gcc:12"),
    "c#": Runtime(toolchain=("dotnet",), image="mcr.microsoft.com/dotnet/sdk:8.0"),
}

_ALIASES = {"js": "javascript", "node": "javascript", "ts": "typescript", "cpp": "c++", "csharp": "c#", "py": "python"}


def normalise_language(language: str) -> str:
    """Return the lower-case canonical language name (``"JavaScript"`` -> ``"javascript"``)."""
    name = language.strip().lower()
    return _ALIASES.get(name, name)


def default_runtime(language: str) -> Runtime:
    """Return the reference runtime of ``language``; unknown languages get a bash-only runtime."""
    return RUNTIMES.get(normalise_language(language), Runtime(toolchain=("bash",), image="debian:bookworm"))
