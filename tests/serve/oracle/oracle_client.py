"""A client of the Oracle HTTP API that follows ``../shared/icae-format.md`` section 5, as the reference harness does.

The harness mints an ``append_id`` on the init port with the published key (or resumes one it was given, without
calling init), preflights it on the interaction port (task ``__preflight__``, question ``ping``: only an error
containing ``invalid append_id`` means the id is unknown), lets the agent ask questions, and reads the stats port
per task and for the whole session. Plain ``http.client`` over real sockets; no mocks.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from interrupt import default_sigint

PUBLISHED_KEY = "zVtwLTkCKwoCWq4Jq9D2"
ENDPOINTS = ("init", "interaction", "stats")


def http_post(
    port: int, body: bytes | Iterator[bytes], *, method: str = "POST", path: str = "/", chunked: bool = False
) -> tuple[int, dict[str, str], bytes]:
    """Send one request to 127.0.0.1:``port``; return (status, headers, raw body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        headers = {"Content-Type": "application/json"}
        connection.request(method, path, body=body, headers=headers, encode_chunked=chunked)
        response = connection.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        connection.close()


class ReferenceClient:
    """The harness's side of the protocol, over the three ports of one server."""

    def __init__(self, ports: tuple[int, int, int]) -> None:
        self.ports = dict(zip(ENDPOINTS, ports, strict=True))

    def post(self, endpoint: str, payload: Any) -> dict[str, Any]:
        """POST ``payload`` as JSON; the reference answers domain errors with HTTP 200."""
        status, _, raw = http_post(self.ports[endpoint], json.dumps(payload).encode())
        assert status == 200, (status, raw)
        return json.loads(raw)

    def mint(self, model: str = "agent-x", **options: Any) -> str:
        """Init with the published key; return the new append_id."""
        body = self.post("init", {"key": PUBLISHED_KEY, "model": model, **options})
        assert body["status"]["ok"] is True, body
        assert re.fullmatch(r"[0-9a-f]{32}", body["append_id"]), body
        return body["append_id"]

    def validate_append_id(self, append_id: str) -> bool:
        """The harness's preflight: False only when the error says ``invalid append_id``."""
        body = self.post("interaction", {"append_id": append_id, "task_id": "__preflight__", "question": "ping"})
        return "invalid append_id" not in str(body["status"].get("error", "")).lower()

    def ask(self, append_id: str, task_id: str, question: str) -> dict[str, Any]:
        """One agent question."""
        return self.post("interaction", {"append_id": append_id, "task_id": task_id, "question": question})

    def stats(self, append_id: str, task_id: str | None = None) -> dict[str, Any]:
        """The stats body (per task, or the aggregate without ``task_id``)."""
        return self.post("stats", {"append_id": append_id} | ({"task_id": task_id} if task_id else {}))

    def stats_ok(self, append_id: str, task_id: str | None = None) -> dict[str, Any]:
        """The stats block, asserting success."""
        body = self.stats(append_id, task_id)
        assert body["status"] == {"ok": True}, body
        return body["stats"]


CLI = [sys.executable, "-m", "icae_env.cli", "serve", "oracle", "--ports", "0,0,0"]
ROOT = Path(__file__).resolve().parents[3]


@contextmanager
def serve_cli(*options: str) -> Iterator[tuple[ReferenceClient, subprocess.Popen[str]]]:
    """Run ``icae-env serve oracle --ports 0,0,0 OPTIONS`` (this checkout's package) until SIGINT on exit."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [*CLI, *options], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, preexec_fn=default_sigint
    )
    try:
        assert proc.stdout is not None
        banner = proc.stdout.readline()
        urls = dict(re.findall(r"(init|interaction|stats) http://127\.0\.0\.1:(\d+)/", banner))
        assert set(urls) == set(ENDPOINTS), (banner, proc.stderr.read() if proc.poll() is not None else "")
        ports = (int(urls["init"]), int(urls["interaction"]), int(urls["stats"]))
        yield ReferenceClient(ports), proc
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
