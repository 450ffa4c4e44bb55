"""What each language image is made of: Debian packages, the tools whose versions it records, where it comes from.

Four kinds of source (:attr:`ImageRecipe.source`):

- ``debootstrap``: a base image, a minbase Debian root file system imported with ``docker import``: bookworm
  (Debian 12) for most languages, trixie (Debian 13) for JavaScript/TypeScript, whose Node is 20 (bookworm's
  is 18);
- ``debian``: ``docker build`` of a generated Dockerfile ``FROM`` a base image whose one ``RUN`` installs
  Debian packages from the base image's mirror, the suite's -updates and -security (plus bookworm-backports
  where a recipe asks for it);
- ``archive``: ``docker load`` of an image archive (ICAE's Kotlin image, ``kotlin_1.9.25.tar``);
- ``registry``: no local recipe; the docker sandbox uses a registry image the user pulls.

The reference runtimes (``docs/icae-format.md`` section 6) differ from Debian's in places; each recipe's
``note`` says how, and ``icae-env images build`` prints it.

Example:
    >>> print(dockerfile(recipe_for("ruby")).splitlines()[0])
    FROM icae-env/base:bookworm
"""

from __future__ import annotations

import hashlib
import shlex
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "BASE_IMAGE",
    "BACKPORTS",
    "TRIXIE_BASE_IMAGE",
    "RECIPES",
    "VERSION_MARK",
    "ImageRecipe",
    "dockerfile",
    "recipe_digest",
    "recipe_for",
    "update_sources",
    "version_script",
]

BASE_IMAGE = "icae-env/base:bookworm"
TRIXIE_BASE_IMAGE = "icae-env/base:trixie"
BACKPORTS = "deb http://deb.debian.org/debian bookworm-backports main"

Source = Literal["debootstrap", "debian", "archive", "registry"]


@dataclass(frozen=True)
class ImageRecipe:
    """How one image is obtained.

    Attributes:
        key: Short name (``"java"``), accepted by ``icae-env images build``.
        image: Image name the docker sandbox uses.
        languages: Canonical task languages served by the image (see ``normalise_language``).
        source: Where the image comes from (see the module docstring).
        packages: Debian packages (debootstrap ``--include`` for ``debootstrap`` recipes, ``apt-get install``
            otherwise).
        suite: Debian suite of the image (a ``debootstrap`` recipe's, or its base image's).
        base: Base image of a ``debian`` recipe.
        backports: Whether apt also reads bookworm-backports.
        post_install: Shell commands run after the packages are installed.
        env: ``ENV`` pairs of the image.
        versions: ``(tool, command)`` pairs run at build time; the first output line is recorded.
        note: How the image differs from the reference runtime, or (``registry``) why it cannot be built here.
    """

    key: str
    image: str
    languages: tuple[str, ...]
    source: Source
    packages: tuple[str, ...] = ()
    suite: str = "bookworm"
    base: str = BASE_IMAGE
    backports: bool = False
    post_install: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    versions: tuple[tuple[str, str], ...] = ()
    note: str = ""


_NODE_NOTE = (
    "Node 20 as in the reference node:20, from Debian 13 (trixie): Debian 12 has Node 18 only (bookworm, "
    "-security and -backports) and npm's `node` package downloads a prebuilt binary; TypeScript is Debian's tsc; "
    "python3 runs the revision apps' relay"
)

RECIPES: tuple[ImageRecipe, ...] = (
    ImageRecipe(
        "base",
        BASE_IMAGE,
        (),
        "debootstrap",
        packages=("python3", "nodejs", "ca-certificates", "procps"),
        versions=(("debian", "cat /etc/debian_version"), ("python3", "python3 --version"), ("node", "node --version")),
    ),
    ImageRecipe(
        "base-trixie",
        TRIXIE_BASE_IMAGE,
        (),
        "debootstrap",
        packages=("ca-certificates", "procps"),
        suite="trixie",
        versions=(("debian", "cat /etc/debian_version"),),
        note="Debian 13 base of the JavaScript/TypeScript image",
    ),
    ImageRecipe(
        "python",
        "icae-env/python:bookworm",
        ("python",),
        "debian",
        packages=("python3", "python3-pip", "python3-venv"),
        versions=(("python3", "python3 --version"), ("pip", "pip3 --version")),
        note="Python 3.11 as in the reference python:3.11",
    ),
    ImageRecipe(
        "node",
        "icae-env/node:trixie",
        ("javascript", "typescript"),
        "debian",
        packages=("nodejs", "npm", "node-typescript", "python3"),
        suite="trixie",
        base=TRIXIE_BASE_IMAGE,
        versions=(
            ("node", "node --version"),
            ("npm", "npm --version"),
            ("tsc", "tsc --version"),
            ("python3", "python3 --version"),
        ),
        note=_NODE_NOTE,
    ),
    ImageRecipe(
        "java",
        "icae-env/java:bookworm",
        ("java",),
        "debian",
        packages=("openjdk-17-jdk-headless", "maven"),
        versions=(("java", "java --version"), ("javac", "javac --version"), ("mvn", "mvn --version")),
        note="OpenJDK 17 (reference eclipse-temurin:17); Maven needs its plugins in ~/.m2 to build offline",
    ),
    ImageRecipe(
        "php",
        "icae-env/php:bookworm",
        ("php",),
        "debian",
        packages=("php8.2-cli", "php8.2-mbstring", "php8.2-xml", "php8.2-sqlite3"),
        versions=(("php", "php --version"),),
    ),
    ImageRecipe(
        "cpp",
        "icae-env/cpp:bookworm",
        ("c++",),
        "debian",
        packages=("g++", "make", "libc6-dev"),
        versions=(("g++", "g++ --version"), ("make", "make --version")),
        note="g++ 12 as in the reference gcc:12",
    ),
    ImageRecipe(
        "go",
        "icae-env/go:bookworm",
        ("go",),
        "debian",
        packages=("golang-1.22-go",),
        backports=True,
        post_install=("ln -s /usr/lib/go-1.22/bin/go /usr/lib/go-1.22/bin/gofmt /usr/local/bin/",),
        env=(("GOTOOLCHAIN", "local"),),
        versions=(("go", "go version"),),
        note="Go 1.22 from bookworm-backports as in the reference golang:1.22 (bookworm's own golang-go is 1.19)",
    ),
    ImageRecipe(
        "ruby",
        "icae-env/ruby:bookworm",
        ("ruby",),
        "debian",
        packages=("ruby", "bundler"),
        versions=(("ruby", "ruby --version"), ("gem", "gem --version"), ("bundler", "bundler --version")),
        note="Ruby 3.1 (Debian 12's; the reference ruby:3.2 is one minor release newer)",
    ),
    ImageRecipe(
        "rust",
        "icae-env/rust:bookworm",
        ("rust",),
        "debian",
        packages=("rustc-web", "cargo-web", "gcc", "libc6-dev"),
        versions=(("rustc", "rustc --version"), ("cargo", "cargo --version")),
        note="rustc-web/cargo-web (bookworm's plain rustc is 1.63; the reference is rust:1.81)",
    ),
    ImageRecipe(
        "kotlin",
        "icae-env/kotlin:1.9.25",
        ("kotlin",),
        "archive",
        versions=(("kotlinc", "kotlinc -version"), ("java", "java -version")),
        note="ICAE's image archive: icae-env icae fetch --root DIR --only kotlin-image, then "
        "icae-env images build kotlin --archive DIR/images/kotlin_1.9.25.tar",
    ),
    ImageRecipe(
        "dart",
        "dart:3.5",
        ("dart",),
        "registry",
        note="Debian packages no Dart SDK",
    ),
    ImageRecipe(
        "csharp",
        "mcr.microsoft.com/dotnet/sdk:8.0",
        ("c#",),
        "registry",
        note="Debian packages no .NET SDK",
    ),
)

_BY_KEY = {recipe.key: recipe for recipe in RECIPES}
_BY_LANGUAGE = {language: recipe for recipe in RECIPES for language in recipe.languages}


def recipe_for(name: str) -> ImageRecipe | None:
    """Return the recipe whose key or one of whose (canonical) languages is ``name``, or None."""
    return _BY_KEY.get(name) or _BY_LANGUAGE.get(name)


def update_sources(suite: str) -> tuple[str, str]:
    """Return the apt lines of ``suite``'s -updates and -security (debootstrap writes only ``suite main``)."""
    return (
        f"deb http://deb.debian.org/debian {suite}-updates main",
        f"deb http://deb.debian.org/debian-security {suite}-security main",
    )


def dockerfile(recipe: ImageRecipe, base: str | None = None) -> str:
    """Return the Dockerfile of a ``debian`` recipe: ``FROM`` its base and one ``RUN`` that installs its packages.

    Args:
        recipe: A ``debian`` recipe.
        base: The image to build on (default: the recipe's base).

    Raises:
        ValueError: for a recipe of another source.
    """
    if recipe.source != "debian":
        raise ValueError(f"{recipe.key}: a {recipe.source} recipe has no Dockerfile")
    sources = " ".join(map(shlex.quote, update_sources(recipe.suite)))
    steps = ["set -eux", f"printf '%s\\n' {sources} > /etc/apt/sources.list.d/updates.list"]
    if recipe.backports:
        steps.append(f"echo {shlex.quote(BACKPORTS)} > /etc/apt/sources.list.d/backports.list")
    steps += [
        "apt-get update",
        "apt-get install -y --no-install-recommends " + " ".join(recipe.packages),
        *recipe.post_install,
        "apt-get clean",
        "rm -rf /var/lib/apt/lists/*",
    ]
    lines = [f"FROM {base or recipe.base}", "ENV DEBIAN_FRONTEND=noninteractive"]
    lines += [f"ENV {name}={shlex.quote(value)}" for name, value in recipe.env]
    lines.append("RUN " + "; \\\n    ".join(steps))
    return "\n".join(lines) + "\n"


def recipe_digest(recipe: ImageRecipe) -> str:
    """Return a short digest of what a local recipe builds from (its Dockerfile, or its suite and packages).

    Images record it (label ``icae-env.recipe-digest``), so that a present image built from an older recipe is
    told apart.
    """
    text = dockerfile(recipe) if recipe.source == "debian" else f"{recipe.source} {recipe.suite} {recipe.packages}"
    return hashlib.sha256(text.encode()).hexdigest()[:12]


VERSION_MARK = "@@icae-version"


def version_script(recipe: ImageRecipe) -> str:
    """Return a POSIX sh script printing, per tool, a marker line, the command's output and its exit status.

    Only shell built-ins are used besides the tools themselves, so it runs in any image with ``/bin/sh``.
    """
    parts = [
        f"printf '\\n{VERSION_MARK} %s\\n' {shlex.quote(tool)}; {command} 2>&1; printf '\\n{VERSION_MARK}-rc %s\\n' $?"
        for tool, command in recipe.versions
    ]
    return "; ".join(parts)
