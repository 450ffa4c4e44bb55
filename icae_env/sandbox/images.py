"""Container images without a registry: build language images locally, and map task languages to image names.

``icae-env images build [LANG ...]`` makes the base image ``icae-env/base:bookworm`` (python3 + nodejs) from a
debootstrap root file system, then each language image ``FROM`` it with ``docker build`` and ``apt-get install``
of Debian packages (Python, Java, PHP, C++, Go, Ruby, Rust). The JavaScript/TypeScript image is built the same
way on a Debian 13 base, ``icae-env/base:trixie`` (for Node 20). Kotlin comes from ICAE's image archive
(``docker load``); Dart and C# map to registry images. The recipes are in :mod:`icae_env.sandbox.image_recipes`,
the docker steps in :mod:`icae_env.sandbox.image_build`. Users with a registry map languages to other images
(``python: python:3.11`` ...) in a YAML file of ``language: image`` pairs.

Example:
    >>> from icae_env.sandbox.images import DEFAULT_IMAGES
    >>> DEFAULT_IMAGES["java"], DEFAULT_IMAGES["c++"], DEFAULT_IMAGES["dart"]
    ('icae-env/java:bookworm', 'icae-env/cpp:bookworm', 'dart:3.5')
"""

from __future__ import annotations

import json
import shutil
import subprocess
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from icae_env.errors import ArgumentError, ConfigError
from icae_env.sandbox.image_build import build_base, build_debian, image_labels, load_archive, record_versions
from icae_env.sandbox.image_recipes import BASE_IMAGE, RECIPES, ImageRecipe, recipe_for
from icae_env.tasks.runtimes import normalise_language

__all__ = [
    "BASE_IMAGE",
    "BASE_FALLBACK",
    "DEFAULT_IMAGES",
    "RECIPES",
    "ImageRow",
    "build_image",
    "image_exists",
    "image_for",
    "image_rows",
    "load_image_map",
    "missing_image_hint",
    "registry_message",
    "resolve_recipe",
]

#: Canonical language -> image used by the docker sandbox unless an image map says otherwise.
DEFAULT_IMAGES: dict[str, str] = {language: recipe.image for recipe in RECIPES for language in recipe.languages}

#: Languages whose toolchain the base image has: while their own image is absent they run in the base image.
BASE_FALLBACK = frozenset({"python", "javascript"})


def load_image_map(path: str | Path | None) -> dict[str, str]:
    """Return :data:`DEFAULT_IMAGES` updated with the ``language: image`` pairs of a YAML file.

    Language keys are normalised (``C++``, ``cpp`` -> ``c++``; ``csharp`` -> ``c#``; ``js`` -> ``javascript``).

    Raises:
        ConfigError: naming the file and the key when the file is unreadable or malformed.
    """
    images = dict(DEFAULT_IMAGES)
    if path is None:
        return images
    try:
        raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: -: cannot read image map ({exc.__class__.__name__})") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: -: expected a mapping of language to image, got {type(raw).__name__}")
    for language, image in raw.items():
        if not isinstance(image, str) or not image.strip():
            raise ConfigError(f"{path}: {language}: expected an image name, got {image!r}")
        images[normalise_language(str(language))] = image
    return images


def image_exists(name: str) -> bool:
    """Whether the local Docker engine has image ``name``."""
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "image", "inspect", name], capture_output=True, check=False).returncode == 0


def image_for(language: str | None, images: dict[str, str] | None = None) -> str:
    """Return the image the docker sandbox uses for a task in ``language``.

    Args:
        language: Task language, any spelling :func:`~icae_env.tasks.runtimes.normalise_language` accepts; None
            (no task language) gives the base image.
        images: Language -> image table (default :data:`DEFAULT_IMAGES`; see :func:`load_image_map`).

    Returns:
        The mapped image. An unknown language gets the base image with a warning; ``python`` and
        ``javascript`` get the base image (which has python3 and node) with a warning while their default
        local image has not been built.
    """
    table = images or DEFAULT_IMAGES
    if not language:
        return BASE_IMAGE
    name = normalise_language(language)
    image = table.get(name)
    if image is None:
        warnings.warn(f"no image for language {language!r}; using the base image {BASE_IMAGE}", stacklevel=2)
        return BASE_IMAGE
    if name in BASE_FALLBACK and image == DEFAULT_IMAGES[name] and not image_exists(image):
        warnings.warn(
            f"{image} is absent (icae-env images build {name}); {name} uses the base image {BASE_IMAGE}",
            stacklevel=2,
        )
        return BASE_IMAGE
    return image


def resolve_recipe(name: str) -> ImageRecipe:
    """Return the recipe of a language (any spelling), a recipe key (``base``, ``node``, ``cpp``) or an image name.

    Raises:
        ArgumentError: naming the known languages.
    """
    recipe = recipe_for(name.strip().lower()) or recipe_for(normalise_language(name))
    recipe = recipe or next((r for r in RECIPES if r.image == name), None)
    if recipe is None:
        languages = ", ".join(sorted({lang for r in RECIPES for lang in r.languages}))
        bases = ", ".join(r.key for r in RECIPES if not r.languages)
        raise ArgumentError(f"no image recipe for {name!r}; known languages: {languages}; base images: {bases}")
    return recipe


def registry_message(recipe: ImageRecipe, images: dict[str, str] | None = None) -> str:
    """Return the one line saying that a ``registry`` recipe cannot be built here and which image its language uses.

    Args:
        recipe: A ``registry`` recipe (Dart, C#).
        images: Language -> image table (default :data:`DEFAULT_IMAGES`; see :func:`load_image_map`).

    Example:
        >>> registry_message(recipe_for("dart"), {"dart": "my/dart:3"})
        'dart: cannot be built locally (Debian packages no Dart SDK); the image map points dart to my/dart:3'
    """
    language = recipe.languages[0]
    image = (images or DEFAULT_IMAGES).get(language, recipe.image)
    line = f"{recipe.key}: cannot be built locally ({recipe.note}); the image map points {language} to {image}"
    if image == recipe.image:
        line += f" (docker pull {image} from a registry, or map {language} to an image you have with --image-map)"
    return line


def missing_image_hint(image: str) -> str:
    """Return how to get ``image`` when the engine lacks it (the ``images build`` command, or why it cannot be built).

    Example:
        >>> missing_image_hint("icae-env/ruby:bookworm")
        'icae-env images build ruby'
    """
    recipe = next((r for r in RECIPES if r.image == image), None)
    if recipe is None:
        return f"docker pull {image} or docker load it, or map the language to an image you have (image_map)"
    if recipe.source == "registry":
        return registry_message(recipe)
    if recipe.source == "archive":
        return recipe.note
    return f"icae-env images build {recipe.key}"


def build_image(
    name: str = BASE_IMAGE,
    *,
    force: bool = False,
    archive: str | Path | None = None,
    suite: str | None = None,
    timeout: float = 3600,
) -> bool:
    """Make the image of ``name`` (a language, a recipe key or an image name) unless it is present.

    The base image is built first when a Debian language image needs it. A present image built before versions
    were recorded gets its version labels added.

    Args:
        name: What to build (``"java"``, ``"typescript"``, ``"base"``, ``"icae-env/go:bookworm"`` ...).
        force: Rebuild (or reload) even when the image is present.
        archive: Image archive for ``archive`` recipes (Kotlin): the ``.tar`` or a data root holding
            ``images/kotlin_1.9.25.tar``.
        suite: Debian suite of a ``debootstrap`` image (default: the recipe's).
        timeout: Seconds each docker or debootstrap step may take.

    Returns:
        True when an image was built or loaded, False when it was already present.

    Raises:
        ArgumentError: for an unknown name, a registry image (with why it cannot be built here) or a missing
            ``archive``.
        FileNotFoundError: when ``archive`` holds no image archive.
        SandboxError: when debootstrap, apt or docker fails (with its output), or a promised tool is missing.
    """
    recipe = resolve_recipe(name)
    if recipe.source == "registry":
        raise ArgumentError(registry_message(recipe))
    if recipe.source == "archive" and archive is None:
        raise ArgumentError(f"{recipe.key}: {recipe.note}")
    labels = image_labels(recipe.image)
    if labels is not None and not force:
        if "icae-env.versions" not in labels and recipe.source != "registry":
            record_versions(recipe, timeout=timeout)
        return False
    if recipe.source == "archive":
        load_archive(recipe, archive or "", timeout=timeout)
    elif recipe.source == "debootstrap":
        build_base(recipe, suite=suite, timeout=timeout)
    else:
        build_image(recipe.base, timeout=timeout)
        build_debian(recipe, fresh=force, timeout=timeout)
    return True


@dataclass(frozen=True)
class ImageRow:
    """One line of ``icae-env images list``.

    Attributes:
        language: A task language, or ``(base)``/``(base-trixie)`` for a base image.
        image: The image the docker sandbox uses for it.
        present: Whether the local engine has the image.
        source: ``debootstrap``, ``debian``, ``archive``, ``registry`` or ``image map`` (a mapped image of no recipe).
        recipe: Key of the image's recipe (``icae-env images build KEY``), empty for a mapped image.
        versions: Tool -> version recorded when the image was built (empty when none were recorded).
    """

    language: str
    image: str
    present: bool
    source: str
    recipe: str = ""
    versions: dict[str, str] = field(default_factory=dict)


def image_rows(images: dict[str, str] | None = None) -> list[ImageRow]:
    """Return one row per base image and one per language of ``images`` (default :data:`DEFAULT_IMAGES`).

    Args:
        images: Language -> image table (see :func:`load_image_map`).
    """
    table = images or DEFAULT_IMAGES
    pairs = [(f"({r.key})", r.image) for r in RECIPES if not r.languages] + list(table.items())
    labels_of: dict[str, dict[str, str] | None] = {}
    rows = []
    for language, image in pairs:
        if image not in labels_of:
            labels_of[image] = image_labels(image)
        labels = labels_of[image]
        recipe = next((r for r in RECIPES if r.image == image), None)
        versions = json.loads(labels.get("icae-env.versions", "{}")) if labels else {}
        source, key = (recipe.source, recipe.key) if recipe else ("image map", "")
        rows.append(ImageRow(language, image, labels is not None, source, key, versions))
    return rows
