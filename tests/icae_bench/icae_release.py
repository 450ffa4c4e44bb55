"""A fake ICAE-Bench release for the fetch tests: built-in tasks exported with ``icae-env icae export``, packed
into the four artifacts at their Zenodo paths in a mirror folder, with a pinned manifest; and a loopback HTTP mirror.
"""

from __future__ import annotations

import hashlib
import io
import json
import socket
import tarfile
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import lz4.frame

from icae_env.cli import main
from icae_env.icae_bench.fetch import ENTRIES
from icae_env.icae_bench.manifest import load_manifest

TASKS = ("builtin/config-lint", "builtin/dep-resolver", "builtin/unidiff")
ALIASES = tuple(f"realcode@{i:03d}" for i in range(1, len(TASKS) + 1))
SHIPPED = load_manifest()
PATHS = {name: entry.path for name, entry in SHIPPED.artifacts.items()}


@dataclass(frozen=True)
class Release:
    """An exported data root (``source``), a mirror folder serving its artifacts, and a manifest pinning them."""

    source: Path
    mirror: Path
    manifest: Path

    def artifact(self, name: str) -> Path:
        return self.mirror / PATHS[name]

    def entry(self, name: str) -> dict[str, Any]:
        return json.loads(self.manifest.read_text())["artifacts"][name]


def export_release(source: Path) -> Path:
    """Write the built-in tasks as an ICAE-Bench data root with the command line's ``icae export``."""
    for task, alias in zip(TASKS, ALIASES, strict=True):
        assert main(["icae", "export", task, str(source), "--alias", alias]) == 0
    return source


def add_member(tar: tarfile.TarFile, name: str, data: bytes = b"", **attrs: Any) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    for key, value in attrs.items():
        setattr(info, key, value)
    tar.addfile(info, io.BytesIO(data) if data else None)


def pack(source: Path, entries: tuple[str, ...], out: Path, extra: tuple[tuple[str, bytes, dict], ...] = ()) -> Path:
    """Pack ``entries`` of ``source`` (paths relative to the data root) into ``out`` (.tar.gz, .tar.lz4 or .tar)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    if out.name.endswith(".tar.lz4"):
        with lz4.frame.open(out, "wb") as raw, tarfile.open(fileobj=raw, mode="w|") as tar:
            _fill(tar, source, entries, extra)
    else:
        with tarfile.open(out, "w:gz" if out.name.endswith(".gz") else "w") as tar:
            _fill(tar, source, entries, extra)
    return out


def _fill(tar: tarfile.TarFile, source: Path, entries: tuple[str, ...], extra: tuple) -> None:
    for entry in entries:
        if (source / entry).exists():
            tar.add(source / entry, arcname=entry)
    for name, data, attrs in extra:
        add_member(tar, name, data, **attrs)


def docker_image_tar(out: Path) -> Path:
    """A small archive shaped like ``docker save`` output (manifest.json, a config and a layer)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    manifest = [{"Config": "config.json", "RepoTags": ["icae/kotlin:1.9.25"], "Layers": ["layer/layer.tar"]}]
    with tarfile.open(out, "w") as tar:
        add_member(tar, "manifest.json", json.dumps(manifest).encode())
        add_member(tar, "config.json", b'{"architecture": "amd64"}')
        add_member(tar, "layer/layer.tar", b"\0" * 10240)
    return out


def pin(artifacts: dict[str, Path]) -> dict[str, Any]:
    """A manifest pinning the files given per artifact name (at the shipped paths)."""
    return {
        "comment": "test release",
        "artifacts": {
            name: {
                "path": PATHS[name],
                "size": path.stat().st_size,
                "sha256": hashlib.sha256(path.read_bytes()).hexdigest(),
            }
            for name, path in artifacts.items()
        },
    }


def build_release(folder: Path) -> Release:
    """Export, pack and pin the fake release under ``folder``."""
    source = export_release(folder / "exported")
    mirror = folder / "mirror"
    files = {name: pack(source, ENTRIES[name], mirror / PATHS[name]) for name in ("prd", "tests", "golden")}
    files["kotlin-image"] = docker_image_tar(mirror / PATHS["kotlin-image"])
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps(pin(files), indent=2))
    return Release(source, mirror, manifest)


def unreachable_url() -> str:
    """An http:// URL on a loopback port that nothing listens on."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@dataclass
class MirrorServer:
    """A real HTTP server on 127.0.0.1 serving ``folder``; it records every request.

    Attributes:
        folder: What it serves (``/records/<id>/files/<name>`` maps to ``folder/records/<id>/files/<name>``).
        ranges: Honour ``Range`` (206 answers); False answers 200 with the whole file, as a plain static server.
        cut_after: Send only this many bytes of the first file answer, then drop the connection.
        fail_first: Answer this many requests with 503 first.
    """

    folder: Path
    ranges: bool = True
    cut_after: int | None = None
    fail_first: int = 0
    requests: list[dict[str, Any]] = field(default_factory=list)

    def __enter__(self) -> MirrorServer:
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"


def _handler(mirror: MirrorServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_GET(self) -> None:
            path = urlparse(self.path).path
            ranged = self.headers.get("Range")
            mirror.requests.append({"path": path, "range": ranged})
            file = mirror.folder / path.lstrip("/")
            if mirror.fail_first > 0:
                mirror.fail_first -= 1
                self.send_error(503, "Busy")
                return
            if not file.is_file():
                self.send_error(404, "File not found")
                return
            data, start = file.read_bytes(), 0
            if ranged and mirror.ranges:
                start = int(ranged.removeprefix("bytes=").split("-")[0])
            self.send_response(206 if ranged and mirror.ranges else 200)
            if ranged and mirror.ranges:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            self.send_header("Content-Length", str(len(data) - start))
            self.end_headers()
            body = data[start:]
            if mirror.cut_after is not None:
                body, mirror.cut_after = body[: mirror.cut_after], None
                self.wfile.write(body)
                self.wfile.flush()
                self.connection.shutdown(socket.SHUT_RDWR)
                self.close_connection = True
                return
            self.wfile.write(body)

    return Handler
