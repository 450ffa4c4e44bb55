"""Fetch the ICAE-Bench release into a data root: download, verify, unpack into staging, check, promote.

A data root after a full fetch::

    <root>/repo_alias.json, fuzzy_prds*/, user_agent/   the PRD/oracle/alias bundle
    <root>/rcb_tests_repos/                             the test-case bundle
    <root>/realcode_repos/                              the golden bundle
    <root>/images/kotlin_1.9.25.tar                     the Kotlin image (a ``docker save`` archive, not unpacked)
    <root>/.icae-fetch.json                             what was installed (name, path, size, sha256 per artifact)
    <root>/.icae-download-complete                      the reference's completion marker, once all are installed

Downloads go to ``<root>/.icae-downloads/<name>.part``; an archive is deleted once installed. Each archive is
unpacked into ``<root>/.icae-staging-<artifact>/`` and its top-level entries are renamed into the root only after
the layout checks pass; an interrupted run leaves the root as it was (the next run removes the staging directory
and reuses a verified download).
"""

from __future__ import annotations

import fcntl
import json
import shutil
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from icae_env.errors import ArgumentError, ConfigError, FetchError
from icae_env.icae_bench.download import DownloadPolicy, download
from icae_env.icae_bench.extract import BadArchive, extract_archive, is_docker_archive, require_unpacker
from icae_env.icae_bench.layout import ALIAS_TABLE, GOLDEN_DIR, TESTS_DIR, LayoutReport, View, check_layout
from icae_env.icae_bench.manifest import (
    ARTIFACT_NAMES,
    ZENODO,
    Artifact,
    ArtifactName,
    Digest,
    Manifest,
    artifact_url,
    load_manifest,
    verify_file,
)

__all__ = ["DOWNLOADS", "ENTRIES", "IMAGES", "MARKER", "STATE_FILE", "FetchReport", "fetch_icae"]

MARKER = ".icae-download-complete"
STATE_FILE = ".icae-fetch.json"
DOWNLOADS = ".icae-downloads"
IMAGES = "images"
_STAGING = ".icae-staging-"
_LOCK = ".icae-fetch.lock"

ENTRIES: dict[str, tuple[str, ...]] = {
    "prd": (ALIAS_TABLE, "user_agent", "fuzzy_prds", "fuzzy_prds_medium", "fuzzy_prds_easy"),
    "tests": (TESTS_DIR,),
    "golden": (GOLDEN_DIR,),
}
"""The top-level entries each archive installs; the first one is required."""

Log = Callable[[str], None]


@dataclass
class FetchReport:
    """What :func:`fetch_icae` did.

    Attributes:
        root: The data root.
        installed: Artifacts downloaded and installed by this run.
        skipped: Artifacts already installed (no request was made for them).
        layout: The data root's layout check after the run.
        complete: Whether every artifact of the manifest is installed (the completion marker is written).
    """

    root: Path
    installed: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    layout: LayoutReport | None = None
    complete: bool = False


def fetch_icae(
    root: str | Path,
    *,
    mirror: str | None = None,
    manifest: str | Path | Manifest | None = None,
    only: str | None = None,
    policy: DownloadPolicy | None = None,
    log: Log = print,
) -> FetchReport:
    """Download, verify and install ICAE-Bench's public artifacts into ``root``; installed ones are skipped.

    Args:
        root: The data root (created when missing).
        mirror: Replaces ``https://zenodo.org`` in the artifact URLs (``http(s)://`` or ``file://``).
        manifest: A manifest file or object (default: the one shipped in the package).
        only: Fetch this artifact only (``prd``, ``tests``, ``golden`` or ``kotlin-image``).
        policy: Timeouts and retries of the downloads.
        log: Receives one line per step.

    Returns:
        A :class:`FetchReport`.

    Raises:
        FetchError: one line on a download, verification, extraction or layout failure; the root keeps what it had.
        ArgumentError: for a bad ``mirror`` or ``only``.
        ConfigError: for an unreadable manifest or one without the requested artifact.
        DependencyNotInstalled: before any download, when a ``.tar.lz4`` artifact is due and ``lz4`` is missing.
    """
    root = Path(root)
    base = _base_url(mirror)
    chosen = manifest if isinstance(manifest, Manifest) else load_manifest(manifest)
    names = _selected(chosen, only)
    root.mkdir(parents=True, exist_ok=True)
    report = FetchReport(root)
    with _locked(root):
        _clear_staging(root)
        run = _Run(root, base, policy or DownloadPolicy(), log, _read_state(root))
        for name in names:
            if not run.installed(name, chosen.artifacts[name]):
                require_unpacker(chosen.artifacts[name].file_name)  # before any download
        try:
            for name in names:
                (report.installed if run.fetch(name, chosen.artifacts[name]) else report.skipped).append(name)
        finally:  # also after a failure: the root keeps what it had, marker included
            if (root / DOWNLOADS).is_dir() and not any((root / DOWNLOADS).iterdir()):
                (root / DOWNLOADS).rmdir()
            report.complete = run.foreign or all(n in run.state for n in chosen.artifacts)
            if report.complete and not (root / MARKER).is_file():
                _write_json(root / MARKER, {"artifacts": run.state})
        report.layout = check_layout(View(root))
    return report


@dataclass
class _Run:
    """One fetch into a data root: where from, how, and what is installed (``state``, kept in ``STATE_FILE``)."""

    root: Path
    base: str
    policy: DownloadPolicy
    log: Log
    state: dict[str, Any]

    def __post_init__(self) -> None:
        marker_only = (self.root / MARKER).is_file() and not (self.root / STATE_FILE).is_file()
        self.foreign = marker_only and not check_layout(View(self.root)).problems

    def installed(self, name: str, entry: Artifact) -> bool:
        """Whether ``name`` is installed as ``entry`` pins it (or the root carries another tool's marker)."""
        return _installed(self.root, name, entry, self.state.get(name), self.foreign)

    def fetch(self, name: str, entry: Artifact) -> bool:
        """Install one artifact unless it is installed already; returns whether it was installed now."""
        if self.installed(name, entry):
            self.log(f"{name}: already installed ({entry.file_name}); nothing to do")
            return False
        (self.root / MARKER).unlink(missing_ok=True)
        archive, digest = _obtain(self.root, name, entry, self.base, self.policy, self.log)
        _install(self.root, name, archive, self.log)
        self.state[name] = {"path": entry.path, **digest.model_dump()}
        _write_json(self.root / STATE_FILE, self.state)
        return True


def _base_url(mirror: str | None) -> str:
    if mirror is None:
        return ZENODO
    parsed = urlparse(mirror)
    if parsed.scheme not in ("http", "https", "file") or (parsed.scheme == "file") != (
        parsed.netloc in ("", "localhost")
    ):
        raise ArgumentError(f"--mirror must be an http://, https:// or file:///absolute/path URL, got {mirror!r}")
    return mirror


def _selected(manifest: Manifest, only: str | None) -> list[ArtifactName]:
    if only is None:
        return [name for name in ARTIFACT_NAMES if name in manifest.artifacts]
    if only not in ARTIFACT_NAMES:
        raise ArgumentError(f"--only must be one of {', '.join(ARTIFACT_NAMES)}, got {only!r}")
    if only not in manifest.artifacts:
        raise ConfigError(f"the manifest has no entry for {only!r} (it has {', '.join(manifest.artifacts)})")
    return [next(n for n in ARTIFACT_NAMES if n == only)]


@contextmanager
def _locked(root: Path) -> Iterator[None]:
    with (root / _LOCK).open("w") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise FetchError(f"{root}: another `icae-env icae fetch` is running on this data root") from None
        yield


def _clear_staging(root: Path) -> None:
    for stale in root.glob(f"{_STAGING}*"):
        shutil.rmtree(stale, ignore_errors=True)


def _read_state(root: Path) -> dict[str, Any]:
    try:
        state = json.loads((root / STATE_FILE).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError, UnicodeDecodeError):
        return {}
    return state if isinstance(state, dict) else {}


def _write_json(path: Path, data: Any) -> None:
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    temporary.replace(path)


def _installed(root: Path, name: str, entry: Artifact, record: Any, foreign: bool) -> bool:
    """Whether ``name`` is installed as ``entry`` pins it (or the root carries another tool's marker)."""
    image = root / IMAGES / entry.file_name
    present = image.is_file() if name == "kotlin-image" else (root / ENTRIES[name][0]).exists()
    if not present:
        return False
    if not isinstance(record, dict):
        return foreign
    matches = record.get("path") == entry.path and all(
        pinned is None or record.get(key) == pinned for key, pinned in (("size", entry.size), ("sha256", entry.sha256))
    )
    return matches and (name != "kotlin-image" or image.stat().st_size == record.get("size"))


def _obtain(root: Path, name: str, entry: Artifact, base: str, policy: DownloadPolicy, log: Log) -> tuple[Path, Digest]:
    """Download (or reuse a finished download of) an artifact and verify it; returns its path and digest."""
    final = root / DOWNLOADS / entry.file_name
    if final.is_file():
        log(f"{name}: reusing the finished download {final}")
    else:
        url = artifact_url(base, entry)
        log(f"{name}: downloading {url}")
        part = final.with_name(final.name + ".part")
        download(url, part, entry.size, name, policy, log)
        part.replace(final)
    return final, verify_file(final, name, entry, log)


def _install(root: Path, name: str, archive: Path, log: Log) -> None:
    if name == "kotlin-image":
        _install_image(root, name, archive, log)
        return
    staging = root / f"{_STAGING}{name}"
    staging.mkdir()
    try:
        try:
            members = extract_archive(archive, staging, name)
            layout = _check_staged(root, staging, name, archive)
        except BadArchive:
            archive.unlink(missing_ok=True)
            raise
        _promote(root, staging, name, log)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    archive.unlink()
    log(f"{name}: installed {members} members; {layout.summary()}")


def _check_staged(root: Path, staging: Path, name: str, archive: Path) -> LayoutReport:
    required = ENTRIES[name][0]
    if not (staging / required).exists():
        raise BadArchive(
            f"{name}: {archive.name} has no {required} at its top (paths must be relative to the data root); "
            "it was deleted and nothing was installed"
        )
    layout = check_layout(View(root, staging))
    if layout.problems:
        raise BadArchive(f"{name}: layout check failed, nothing was installed: {layout.summary()}")
    return layout


def _promote(root: Path, staging: Path, name: str, log: Log) -> None:
    """Rename each staged top-level entry into the root (each rename is atomic); the replaced ones go to staging."""
    ignored = sorted(p.name for p in staging.iterdir() if p.name not in ENTRIES[name])
    if ignored:
        log(f"{name}: ignored top-level entries not part of this artifact: {', '.join(ignored)}")
    for entry in ENTRIES[name]:
        new, target = staging / entry, root / entry
        if not new.exists():
            continue
        if target.exists() or target.is_symlink():
            target.rename(staging / f".replaced-{entry}")
        new.rename(target)


def _install_image(root: Path, name: str, archive: Path, log: Log) -> None:
    if not is_docker_archive(archive):
        archive.unlink()
        raise FetchError(f"{name}: {archive.name} is not a docker save archive (no manifest.json); it was deleted")
    target = root / IMAGES / archive.name
    target.parent.mkdir(exist_ok=True)
    archive.replace(target)
    log(f"{name}: {target} (a docker save archive; docker load -i {target})")
