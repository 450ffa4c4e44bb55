"""``http`` checks: start the app in a fresh sandbox copy and send requests in order."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.request
from typing import Any

from icae_env.revision.app import AppStartError, app_log, http_opener, running_app
from icae_env.revision.check_models import HttpCheck, HttpRequest
from icae_env.revision.checks.common import (
    CheckContext,
    CheckOutcome,
    fresh_copy,
    json_at,
    json_equals,
    match_text,
    short,
)

__all__ = ["run_http_check", "send"]

_MAX_BODY = 1_000_000
_EVIDENCE_BODY = 20_000


def _exchange(base: str, request: HttpRequest, timeout: float) -> tuple[int, str]:
    data, headers = None, dict(request.headers)
    if request.json_body is not None:
        data = json.dumps(request.json_body).encode("utf-8")
        headers.setdefault("Content-Type", "application/json")
    elif request.body is not None:
        data = request.body.encode("utf-8")
    req = urllib.request.Request(base + request.path, data=data, headers=headers, method=request.method)
    try:
        with http_opener().open(req, timeout=timeout) as response:
            return int(response.status), response.read(_MAX_BODY).decode("utf-8", errors="replace")
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read(_MAX_BODY).decode("utf-8", errors="replace")
    except (OSError, ValueError, http.client.HTTPException) as exc:
        return 0, f"(no response: {exc})"


def send(base: str, request: HttpRequest, timeout: float = 10.0, deadline_s: float = 30.0) -> tuple[int, str]:
    """Send ``request`` to the app at ``base``; return ``(status, body text)`` (status 0 when nothing answered).

    ``timeout`` bounds each socket operation and ``deadline_s`` the whole exchange (a server that trickles bytes
    cannot hold the grader).
    """
    box: dict[str, tuple[int, str]] = {}
    worker = threading.Thread(target=lambda: box.update(result=_exchange(base, request, timeout)), daemon=True)
    worker.start()
    worker.join(deadline_s)
    return box.get("result", (0, f"(no complete response within {deadline_s:g} s)"))


def _judge_response(request: HttpRequest, status: int, body: str) -> tuple[bool, str]:
    problems = []
    if request.status is not None and status != request.status:
        problems.append(f"status {status} (expected {request.status})")
    if request.text is not None:
        ok, detail = match_text(body, request.text)
        if not ok:
            problems.append(f"body: {detail}")
    if request.json_path is not None and status:
        try:
            value: Any = json_at(json.loads(body), request.json_path)
            if not json_equals(value, request.equals):
                problems.append(f"{request.json_path or 'body'} = {short(value)} (expected {short(request.equals)})")
        except (ValueError, LookupError, RecursionError) as exc:
            problems.append(f"body JSON: {type(exc).__name__}: {str(exc)[:200]}")
    if not status:
        problems.append(body)
    label = f"{request.method} {request.path}"
    return (not problems, f"{label}: " + ("; ".join(problems) if problems else f"status {status}, as expected"))


def run_http_check(check: HttpCheck, ctx: CheckContext) -> CheckOutcome:
    """Start the app, send every request and test each response."""
    outcome = CheckOutcome()
    exchanges: list[dict[str, Any]] = []
    assert ctx.task.app is not None  # noqa: S101 - the task model guarantees an app for http checks
    with fresh_copy(ctx) as box:
        try:
            with running_app(box, ctx.task.app) as base:
                for request in check.requests:
                    status, body = send(base, request, timeout=min(10.0, check.timeout_s), deadline_s=check.timeout_s)
                    exchanges.append(
                        {**request.model_dump(mode="json"), "got_status": status, "got_body": body[:_EVIDENCE_BODY]}
                    )
                    outcome.add(*_judge_response(request, status, body))
        except AppStartError as exc:
            outcome.error = str(exc)
        finally:
            (ctx.evidence / "app.log").write_text(app_log(box, 20_000), encoding="utf-8")
    (ctx.evidence / "responses.json").write_text(json.dumps(exchanges, indent=1, ensure_ascii=False))
    outcome.evidence += ["responses.json", "app.log"]
    return outcome
