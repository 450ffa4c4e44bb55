"""Container images without a registry: build base images locally, and map languages to image names.

``icae-env images build`` makes a Debian root file system with ``debootstrap`` (minbase plus the language
toolchains of the built-in tasks) and imports it with ``docker import``. Users with a registry map languages to
the reference images instead (``python:3.11``, ``node:20`` ...) in a YAML file of ``language: image`` pairs.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import yaml

from icae_env.errors import ArgumentError, ConfigError, SandboxError

__all__ = [
    "BASE_IMAGE",
    "IMAGE_RECIPES",
    "DEFAULT_IMAGES",
    "build_image",
    "image_exists",
    "image_for",
    "load_image_map",
]

BASE_IMAGE = "icae-env/base:bookworm"

#: Image name -> Debian packages added to a minbase bookworm root file system.
IMAGE_RECIPES: dict[str, tuple[str, ...]] = {
    BASE_IMAGE: ("python3", "nodejs", "ca-certificates", "procps"),
}

#: Language -> image used by the docker backend unless a map file says otherwise.
DEFAULT_IMAGES: dict[str, str] = {"python": BASE_IMAGE, "javascript": BASE_IMAGE, "typescript": BASE_IMAGE}


def load_image_map(path: str | Path | None) -> dict[str, str]:
    """Return :data:`DEFAULT_IMAGES` updated with the ``language: image`` pairs of a YAML file.

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
        images[str(language).lower()] = image
    return images


def image_for(language: str | None, images: dict[str, str] | None = None) -> str:
    """Return the image for ``language`` (the base image for unknown languages)."""
    table = images or DEFAULT_IMAGES
    return table.get((language or "").lower(), BASE_IMAGE)


def image_exists(name: str) -> bool:
    """Whether the local Docker engine has image ``name``."""
    if shutil.which("docker") is None:
        return False
    return subprocess.run(["docker", "image", "inspect", name], capture_output=True, check=False).returncode == 0


def build_image(name: str = BASE_IMAGE, *, force: bool = False, suite: str = "bookworm") -> bool:
    """Build image ``name`` from its recipe with debootstrap + ``docker import``.

    Args:
        name: An image in :data:`IMAGE_RECIPES`.
        force: Rebuild even when the image exists.
        suite: Debian suite.

    Returns:
        True when an image was built, False when it already existed.

    Raises:
        ValueError: for an image without a recipe.
        SandboxError: when debootstrap or docker is missing or fails (with its output).
    """
    if name not in IMAGE_RECIPES:
        raise ArgumentError(f"no recipe for image {name!r}; known: {sorted(IMAGE_RECIPES)}")
    if not force and image_exists(name):
        return False
    for tool in ("debootstrap", "docker"):
        if shutil.which(tool) is None:
            raise SandboxError(f"{tool} is not installed (apt-get install -y debootstrap docker.io)")
    with tempfile.TemporaryDirectory(prefix="icae-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        include = ",".join(("bash", "coreutils", "findutils", "grep", "sed", *IMAGE_RECIPES[name]))
        _run(["debootstrap", "--variant=minbase", f"--include={include}", suite, str(rootfs)])
        shutil.rmtree(rootfs / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(["docker", "import", "-", name], stdin=tar.stdout, capture_output=True, check=False)
        tar.wait()
        if imported.returncode != 0:
            raise SandboxError(f"docker import failed: {imported.stderr.decode(errors='replace')[-2000:]}")
    return True


def _run(argv: list[str]) -> None:
    result = subprocess.run(argv, capture_output=True, check=False)
    if result.returncode != 0:
        raise SandboxError(f"{argv[0]} failed ({result.returncode}): {result.stderr.decode(errors='replace')[-2000:]}")
