"""``icae-env images build [LANG ...]`` and ``icae-env images list``: the docker sandbox's images without a registry."""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from icae_env.cli.common import seconds, table
from icae_env.errors import SandboxError
from icae_env.sandbox.image_build import image_labels
from icae_env.sandbox.image_recipes import ImageRecipe, recipe_digest
from icae_env.sandbox.images import (
    RECIPES,
    build_image,
    image_exists,
    image_rows,
    load_image_map,
    registry_message,
    resolve_recipe,
)

__all__ = ["add_images_commands"]


def _selected(languages: list[str], archive: str | None) -> tuple[list[ImageRecipe], bool]:
    """The recipes to make (in order, once each) and whether they were named explicitly."""
    if not languages or languages == ["all"]:
        local = [r for r in RECIPES if r.source in ("debootstrap", "debian") or (r.source == "archive" and archive)]
        return local + [r for r in RECIPES if r not in local], False
    recipes: list[ImageRecipe] = []
    for name in languages:
        recipe = resolve_recipe(name)
        if recipe not in recipes:
            recipes.append(recipe)
    return recipes, True


def _versions_line(recipe: ImageRecipe) -> str:
    versions = json.loads((image_labels(recipe.image) or {}).get("icae-env.versions", "{}"))
    return "; ".join(f"{tool}: {version}" for tool, version in versions.items()) or "(no versions recorded)"


def _make(recipe: ImageRecipe, args: argparse.Namespace, explicit: bool) -> bool:
    """Build, load or explain one image; print what happened; return whether it is present afterwards."""
    if recipe.source == "registry":
        images = load_image_map(args.image_map)
        present = image_exists(images.get(recipe.languages[0], recipe.image))
        print(f"{registry_message(recipe, images)}; {'present' if present else 'absent'} here")
        return present or not explicit
    if recipe.source == "archive" and not args.archive:
        present = image_exists(recipe.image)
        print(f"{recipe.key}: {recipe.image} is {'present' if present else 'absent'}; {recipe.note}")
        return present or not explicit
    print(f"{recipe.key}: {recipe.image} ...", flush=True)
    started = time.monotonic()
    try:
        built = build_image(recipe.key, force=args.force, archive=args.archive, timeout=args.timeout)
    except SandboxError as exc:
        print(f"{recipe.key}: failed: {' '.join(str(exc).split())[-2000:]}", file=sys.stderr)
        return False
    what = f"built in {time.monotonic() - started:.0f} s" if built else "already present"
    digest = (image_labels(recipe.image) or {}).get("icae-env.recipe-digest")
    if not built and recipe.source != "archive" and digest != recipe_digest(recipe):
        what += " (built from an older recipe; --force rebuilds it)"
    print(f"{recipe.key}: {recipe.image} {what}: {_versions_line(recipe)}")
    if recipe.note and recipe.source != "archive":
        print(f"  note: {recipe.note}")
    return True


def _cmd_images_build(args: argparse.Namespace) -> int:
    recipes, explicit = _selected(args.languages, args.archive)
    started = time.monotonic()
    ok = [_make(recipe, args, explicit) for recipe in recipes]
    if len(recipes) > 1:
        print(f"total: {time.monotonic() - started:.0f} s")
    return 0 if all(ok) else 1


def _cmd_images_list(args: argparse.Namespace) -> int:
    rows = image_rows(load_image_map(args.image_map))
    if args.json:
        print(json.dumps([row.__dict__ for row in rows], indent=2))
        return 0
    cells = [
        (
            row.language,
            row.image,
            "yes" if row.present else "no",
            row.source,
            "; ".join(f"{tool}: {version}" for tool, version in row.versions.items()) or "-",
        )
        for row in rows
    ]
    print(table(("language", "image", "present", "source", "versions"), cells))
    return 0


def add_images_commands(commands: Any) -> None:
    """Register ``images build`` and ``images list``."""
    images = commands.add_parser("images", help="container images for the docker sandbox")
    images_sub = images.add_subparsers(dest="images_command", required=True)
    build = images_sub.add_parser(
        "build", help="build language images locally (debootstrap base + Debian packages; no registry)"
    )
    build.add_argument(
        "languages", nargs="*", help="languages (or base) whose image to build (default: every local recipe)"
    )
    build.add_argument("--force", action="store_true", help="rebuild even when present")
    build.add_argument(
        "--archive",
        "--from-archive",
        dest="archive",
        metavar="PATH",
        default=None,
        help="Kotlin: ICAE's image archive kotlin_1.9.25.tar, or a data root holding images/kotlin_1.9.25.tar",
    )
    build.add_argument("--image-map", default=None, help="YAML file of language: image pairs (for Dart and C#)")
    build.add_argument("--timeout", type=seconds, default=3600.0, help="seconds each build step may take")
    build.set_defaults(func=_cmd_images_build)
    listing = images_sub.add_parser("list", help="languages, their images, whether present, and tool versions")
    listing.add_argument("--image-map", default=None, help="YAML file of language: image pairs")
    listing.add_argument("--json", action="store_true", help="print JSON instead of a table")
    listing.set_defaults(func=_cmd_images_list)
