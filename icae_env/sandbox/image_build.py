"""Docker steps behind ``icae-env images build``: debootstrap + import, ``docker build``, ``docker load``, labels.

Every image made here carries the labels ``icae-env.recipe``, ``icae-env.languages`` and ``icae-env.versions``
(a JSON object of tool -> first line of its ``--version`` output, recorded by running the tools in the finished
image with no network and the docker sandbox's ``PATH``). Only the ``docker`` command line is used, so building
images needs neither the docker SDK nor the ``docker`` extra.
"""

from __future__ import annotations

import json
import re
import shlex
import shutil
import subprocess
import tempfile
from pathlib import Path

from icae_env.errors import ArgumentError, SandboxError
from icae_env.sandbox.image_recipes import VERSION_MARK, ImageRecipe, dockerfile, recipe_digest, version_script

__all__ = [
    "ARCHIVE_NAME",
    "SANDBOX_PATH",
    "build_base",
    "build_debian",
    "image_id",
    "image_labels",
    "load_archive",
    "parse_versions",
    "record_versions",
    "remove_image",
    "resolve_archive",
]

#: The ``PATH`` the docker sandbox sets in its containers (``icae_env.sandbox.docker``).
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ARCHIVE_NAME = "kotlin_1.9.25.tar"
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_VERSION_BLOCK = re.compile(rf"^{VERSION_MARK} (\S+)\n(.*?)\n?^{VERSION_MARK}-rc (\d+)$", re.M | re.S)


def _run(argv: list[str], *, timeout: float, stdin: str | None = None) -> str:
    """Run ``argv``; return its stdout, or raise SandboxError with the tail of its output."""
    try:
        result = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise SandboxError(f"{' '.join(argv[:3])} timed out after {timeout:.0f} s") from None
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-3000:]
        raise SandboxError(f"{' '.join(argv[:3])} failed ({result.returncode}): {tail}")
    return result.stdout


def _need(*tools: str) -> None:
    for tool in tools:
        if shutil.which(tool) is None:
            raise SandboxError(f"{tool} is not installed (apt-get install -y debootstrap docker.io)")


def image_labels(name: str) -> dict[str, str] | None:
    """Return the labels of local image ``name`` (None when the image is absent or docker is missing)."""
    if shutil.which("docker") is None:
        return None
    result = subprocess.run(
        ["docker", "image", "inspect", "--format", "{{json .Config.Labels}}", name],
        capture_output=True,
        text=True,
        check=False,
    )
    if result.returncode != 0:
        return None
    return json.loads(result.stdout or "null") or {}


def _image_env(name: str) -> dict[str, str]:
    out = _run(["docker", "image", "inspect", "--format", "{{json .Config.Env}}", name], timeout=60)
    pairs = json.loads(out or "null") or []
    return dict(pair.split("=", 1) for pair in pairs if "=" in pair)


def parse_versions(recipe: ImageRecipe, output: str, *, strict: bool) -> dict[str, str]:
    """Return tool -> first line of its version output from the output of :func:`version_script`.

    Terminal colour codes (Maven's) are dropped; a tool whose command failed is ``unavailable (...)``.

    Args:
        recipe: The recipe whose ``versions`` the script ran.
        output: The script's stdout.
        strict: Raise instead of recording a failed or missing command.

    Raises:
        SandboxError: when ``strict`` and a command failed or did not report (a tool the recipe promises is missing).
    """
    versions: dict[str, str] = {}
    for tool, text, status in _VERSION_BLOCK.findall(_ANSI.sub("", output)):
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if status != "0":
            if strict:
                raise SandboxError(f"{recipe.key}: `{dict(recipe.versions)[tool]}` failed: {first or 'exit ' + status}")
            first = f"unavailable ({first or 'exit ' + status})"
        versions[tool] = first
    if strict and len(versions) != len(recipe.versions):
        missing = sorted(set(dict(recipe.versions)) - set(versions))
        raise SandboxError(f"{recipe.key}: no version output from {', '.join(missing)}")
    return versions


def _tool_versions(recipe: ImageRecipe, image: str, *, strict: bool, timeout: float) -> dict[str, str]:
    """Run the recipe's version commands in ``image`` (no network, the sandbox's PATH); tool -> first line."""
    argv = ["docker", "run", "--rm", "--network", "none", "--entrypoint", "/bin/sh"]
    argv += ["-e", f"PATH={SANDBOX_PATH}", "-e", "HOME=/root", image, "-c", version_script(recipe)]
    try:
        result = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        raise SandboxError(f"{recipe.key}: the version commands timed out after {timeout:.0f} s in {image}") from None
    try:
        return parse_versions(recipe, result.stdout, strict=strict)
    except SandboxError as exc:
        raise SandboxError(f"{exc} (in {image}; {result.stderr.strip()[-500:]})") from None


def _label(recipe: ImageRecipe, source: str, *, steps: tuple[str, ...] = (), strict: bool, timeout: float) -> None:
    """Tag ``source`` (plus ``RUN`` steps) as ``recipe.image`` with the recipe's labels and recorded versions."""
    stage = source
    if steps:
        stage = f"icae-env-stage/{recipe.key}:links"
        text = f"FROM {source}\n" + "".join(f"RUN {step}\n" for step in steps)
        _run(["docker", "build", "-q", "--rm", "--force-rm", "-t", stage, "-"], stdin=text, timeout=timeout)
    try:
        labels = {
            "icae-env.recipe": recipe.key,
            "icae-env.languages": ",".join(recipe.languages),
            "icae-env.recipe-digest": recipe_digest(recipe),
            "icae-env.versions": json.dumps(_tool_versions(recipe, stage, strict=strict, timeout=timeout)),
        }
        argv = ["docker", "build", "-q", "-t", recipe.image]
        argv += [arg for key, value in labels.items() for arg in ("--label", f"{key}={value}")]
        _run([*argv, "-"], stdin=f"FROM {stage}\n", timeout=timeout)
    finally:
        if steps:
            remove_image(stage, prune=False)


def build_base(recipe: ImageRecipe, *, suite: str | None = None, timeout: float = 3600) -> None:
    """Build a ``debootstrap`` image: debootstrap a minbase root file system, ``docker import`` it, record versions.

    Args:
        recipe: A ``debootstrap`` recipe (the bookworm or the trixie base).
        suite: Debian suite (default: the recipe's).
        timeout: Seconds each step may take.

    Raises:
        SandboxError: when debootstrap or docker is missing or fails, or a promised tool is missing.
    """
    _need("debootstrap", "docker")
    suite = suite or recipe.suite
    with tempfile.TemporaryDirectory(prefix="icae-rootfs-") as tmp:
        rootfs = Path(tmp) / "rootfs"
        include = ",".join(("bash", "coreutils", "findutils", "grep", "sed", *recipe.packages))
        _run(["debootstrap", "--variant=minbase", f"--include={include}", suite, str(rootfs)], timeout=timeout)
        shutil.rmtree(rootfs / "var" / "cache" / "apt" / "archives", ignore_errors=True)
        unlabelled = f"{recipe.image}-imported"
        tar = subprocess.Popen(["tar", "-C", str(rootfs), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(["docker", "import", "-", unlabelled], stdin=tar.stdout, capture_output=True)
        tar.wait()
        if imported.returncode != 0:
            raise SandboxError(f"docker import failed: {imported.stderr.decode(errors='replace')[-2000:]}")
    try:
        _label(recipe, unlabelled, strict=True, timeout=timeout)
    finally:
        remove_image(unlabelled, prune=False)


def build_debian(recipe: ImageRecipe, *, fresh: bool = False, timeout: float = 3600) -> None:
    """Build a language image ``FROM`` the base image with ``apt-get install`` of its Debian packages.

    Args:
        recipe: A ``debian`` recipe.
        fresh: Ignore docker's build cache (``--no-cache``), so that a forced rebuild installs afresh.
        timeout: Seconds the build may take.

    Raises:
        SandboxError: when docker or apt fails (with its output), or a promised tool is missing.
    """
    _need("docker")
    unlabelled = f"{recipe.image}-unlabelled-build"
    argv = ["docker", "build", "--rm", "--force-rm", *(["--no-cache"] if fresh else []), "-t", unlabelled, "-"]
    _run(argv, stdin=dockerfile(recipe), timeout=timeout)
    try:
        _label(recipe, unlabelled, strict=True, timeout=timeout)
    finally:
        remove_image(unlabelled, prune=False)


def resolve_archive(path: str | Path) -> Path:
    """Return the image archive at ``path``: the file itself, or ``images/kotlin_1.9.25.tar`` under a data root.

    ``icae-env icae fetch --root DIR`` puts ICAE's Kotlin image at ``DIR/images/kotlin_1.9.25.tar``.

    Raises:
        FileNotFoundError: naming the paths looked at.
    """
    given = Path(path).expanduser()
    for candidate in (given, given / "images" / ARCHIVE_NAME, given / ARCHIVE_NAME):
        if candidate.is_file():
            return candidate
    raise FileNotFoundError(f"no image archive at {given} (nor {given / 'images' / ARCHIVE_NAME})")


def _path_links(image: str) -> tuple[str, ...]:
    """``RUN`` steps linking the tools of the image's own ``PATH`` into /usr/local/bin (the sandbox sets PATH)."""
    extra = [d for d in _image_env(image).get("PATH", "").split(":") if d and d not in SANDBOX_PATH.split(":")]
    if not extra:
        return ()
    dirs = " ".join(shlex.quote(d) for d in extra)
    loop = f'for d in {dirs}; do for f in "$d"/*; do'
    return (
        f'{loop} [ -x "$f" ] && [ ! -e "/usr/local/bin/${{f##*/}}" ] && ln -s "$f" /usr/local/bin/; done; done; true',
    )


def load_archive(recipe: ImageRecipe, path: str | Path, *, timeout: float = 3600) -> str:
    """``docker load`` an image archive and tag it ``recipe.image`` with labels and recorded versions.

    Tools on the archived image's own ``PATH`` are linked into /usr/local/bin so that the docker sandbox, which
    sets its own ``PATH``, finds them.

    Returns:
        The name (or id) the archive loaded as.

    Raises:
        FileNotFoundError: when there is no archive at ``path``.
        SandboxError: when docker fails or the archive holds no image.
    """
    _need("docker")
    archive = resolve_archive(path)
    out = _run(["docker", "load", "-i", str(archive)], timeout=timeout)
    loaded = re.findall(r"^Loaded image(?: ID)?: (\S+)$", out, re.M)
    if not loaded:
        raise ArgumentError(f"{archive}: docker load reported no image: {out[-500:]}")
    _label(recipe, loaded[-1], steps=_path_links(loaded[-1]), strict=False, timeout=timeout)
    return loaded[-1]


def image_id(name: str) -> str:
    """Return the id of local image ``name``."""
    return _run(["docker", "image", "inspect", "--format", "{{.Id}}", name], timeout=60).strip()


def remove_image(name: str, *, prune: bool = True) -> None:
    """Remove (or, when other images are built on it, untag) local image ``name`` if present."""
    subprocess.run(["docker", "rmi", *([] if prune else ["--no-prune"]), name], capture_output=True, check=False)


def record_versions(recipe: ImageRecipe, *, timeout: float = 600) -> None:
    """Add the labels (recorded versions) to a present image that lacks them (one built before labels existed)."""
    _label(recipe, image_id(recipe.image), strict=recipe.source != "archive", timeout=timeout)
