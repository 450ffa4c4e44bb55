"""The public artifacts of the ICAE-Bench release and the manifest that pins them (size, sha256).

A manifest is JSON::

    {"comment": "...",
     "artifacts": {"prd": {"path": "records/21639512/files/icae_prd_bundle.tar.gz", "size": 123, "sha256": "..."},
                   ...}}

``path`` is relative to the download base (``https://zenodo.org`` or a mirror); ``size`` and ``sha256`` may be
``null`` (not pinned yet): such an entry is verified on first download and the computed values are printed so that
they can be pinned.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from icae_env.errors import ConfigError, FetchError

__all__ = [
    "ARTIFACT_NAMES",
    "SHIPPED_MANIFEST",
    "ZENODO",
    "Artifact",
    "ArtifactName",
    "Digest",
    "Manifest",
    "artifact_url",
    "load_manifest",
    "sha256_file",
    "verify_file",
]

ZENODO = "https://zenodo.org"
"""The download base of the release; ``--mirror URL`` replaces it."""

ArtifactName = Literal["prd", "tests", "golden", "kotlin-image"]
ARTIFACT_NAMES: tuple[ArtifactName, ...] = ("prd", "tests", "golden", "kotlin-image")
"""The artifacts in install order: the PRD/oracle/alias bundle, the test cases, the golden sources, the Kotlin image."""

SHIPPED_MANIFEST = Path(__file__).with_name("icae_manifest.json")


class Artifact(BaseModel):
    """One artifact: where it lives under the download base, and its pinned size and sha256 (None: not pinned)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(min_length=1)
    size: int | None = Field(default=None, ge=0)
    sha256: str | None = Field(default=None, pattern=r"^[0-9a-f]{64}$")

    @field_validator("path")
    @classmethod
    def _relative(cls, value: str) -> str:
        parts = value.split("/")
        if value.startswith("/") or "\\" in value or any(p in ("", ".", "..") for p in parts):
            raise ValueError(f"must be a relative path like records/<id>/files/<name>, got {value!r}")
        return value

    @property
    def file_name(self) -> str:
        """The artifact's file name (the last part of its path)."""
        return self.path.rsplit("/", 1)[-1]


class Manifest(BaseModel):
    """The artifacts of a release (or of a mirror with other contents), by name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    comment: str = ""
    artifacts: dict[ArtifactName, Artifact]


class Digest(BaseModel):
    """The size and sha256 computed for a downloaded file."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    size: int
    sha256: str


def load_manifest(path: str | Path | None = None) -> Manifest:
    """Read a manifest (the one shipped in the package without ``path``).

    Raises:
        ConfigError: one line naming the file and the bad field.
    """
    source = Path(path) if path is not None else SHIPPED_MANIFEST
    try:
        return Manifest.model_validate(json.loads(source.read_text(encoding="utf-8")))
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read the manifest ({exc.strerror or exc})") from None
    except json.JSONDecodeError as exc:
        raise ConfigError(f"{source}: -: not valid JSON ({exc})") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first["loc"]) or "-"
        raise ConfigError(f"{source}: {field}: {first['msg']}") from None


def artifact_url(base: str, artifact: Artifact) -> str:
    """The URL of ``artifact`` under a download base (``https://zenodo.org``, ``http://host/x``, ``file:///dir``)."""
    return f"{base.rstrip('/')}/{artifact.path}"


def sha256_file(path: Path, chunk: int = 1 << 20) -> Digest:
    """The size and sha256 of a file, read in chunks."""
    digest, size = hashlib.sha256(), 0
    with path.open("rb") as stream:
        while block := stream.read(chunk):
            digest.update(block)
            size += len(block)
    return Digest(size=size, sha256=digest.hexdigest())


def verify_file(path: Path, name: str, artifact: Artifact, log: Callable[[str], None]) -> Digest:
    """Check a downloaded file against its manifest entry; delete it when it does not match.

    An entry that is not pinned is accepted, and its computed values are logged so that they can be pinned.

    Raises:
        FetchError: on a size or checksum mismatch (the file is deleted first).
    """
    found = sha256_file(path)
    for field, expected, got in (("size", artifact.size, found.size), ("sha256", artifact.sha256, found.sha256)):
        if expected is not None and expected != got:
            path.unlink()
            raise FetchError(
                f"{name}: checksum mismatch for {artifact.file_name}: expected {field} {expected}, got {got}; "
                "the file was deleted and nothing was unpacked"
            )
    if artifact.size is None or artifact.sha256 is None:
        log(f"{name}: not pinned in the manifest; computed {found.model_dump_json()} (pin these values)")
    return found
