"""A small OpenAI-compatible chat-completions server that replays scripted completions (test helper).

Real HTTP and real JSON on 127.0.0.1, served from a background thread. Every request is checked against the rules
an OpenAI endpoint enforces (roles, tool results answering every tool call id, tool definitions, bearer key) and
recorded, so tests can compare what the agent sent with the environment's transcript.

Script items, one per request:

* an assistant message dict (``{"role": "assistant", "content": ..., "tool_calls": [...]}``);
* a string: an assistant message with that content;
* ``{"status": 503, "error": "..."}``: an HTTP error response;
* a callable taking the request body and returning one of the above.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ROLES = {"system", "user", "assistant", "tool"}
ScriptItem = dict[str, Any] | str | Callable[[dict[str, Any]], Any]


def request_problems(body: Any) -> list[str]:
    """Return what an OpenAI endpoint would reject in a chat-completions request body (empty: valid)."""
    if not isinstance(body, dict):
        return ["body must be a JSON object"]
    problems = [] if isinstance(body.get("model"), str) and body["model"] else ["model must be a non-empty string"]
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return [*problems, "messages must be a non-empty list"]
    open_calls: set[str] = set()
    for i, message in enumerate(messages):
        problems += _message_problems(i, message, open_calls)
    if open_calls:
        problems.append(f"tool calls without a tool result: {sorted(open_calls)}")
    for i, tool in enumerate(body.get("tools") or []):
        function = tool.get("function") if isinstance(tool, dict) else None
        if not isinstance(function, dict) or not function.get("name") or tool.get("type") != "function":
            problems.append(f"tools[{i}] is not a function definition")
    return problems


def _message_problems(i: int, message: Any, open_calls: set[str]) -> list[str]:
    if not isinstance(message, dict) or message.get("role") not in ROLES:
        return [f"messages[{i}] has no valid role"]
    role, content = message["role"], message.get("content")
    if role == "tool":
        call_id = message.get("tool_call_id")
        if call_id not in open_calls:
            return [f"messages[{i}] answers unknown tool_call_id {call_id!r}"]
        open_calls.discard(call_id)
        return [] if isinstance(content, str) else [f"messages[{i}] tool content must be a string"]
    if open_calls:
        return [f"messages[{i}] ({role}) comes before the results of tool calls {sorted(open_calls)}"]
    if role != "assistant":
        return [] if isinstance(content, str) else [f"messages[{i}] content must be a string"]
    calls = message.get("tool_calls") or []
    for call in calls:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("arguments"), str) or not call.get("id"):
            return [f"messages[{i}] has a malformed tool call"]
        open_calls.add(call["id"])
    return [] if calls or isinstance(content, str) else [f"messages[{i}] has neither content nor tool calls"]


class OpenAIStub:
    """Serve ``script`` as chat completions at ``base_url`` (``http://127.0.0.1:<port>/v1``).

    Args:
        script: One item per expected request (see the module docstring).
        api_key: When set, requests must carry ``Authorization: Bearer <api_key>`` (else 401).

    Attributes:
        requests: Every request body received, in order (valid or not).
        headers: The headers of each request.
        problems: Validation problems found, as ``(request index, message)``.
    """

    def __init__(self, script: Iterable[ScriptItem], api_key: str | None = None) -> None:
        self.script = list(script)
        self.api_key = api_key
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.problems: list[tuple[int, str]] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (append ``/chat/completions``)."""
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> OpenAIStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def answer(self, body: Any, headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
        """Return the HTTP status and JSON payload for one request."""
        with self._lock:
            index = len(self.requests)
            self.requests.append(body)
            self.headers.append(headers)
            if self.api_key is not None and headers.get("Authorization") != f"Bearer {self.api_key}":
                return 401, _error("invalid API key", "invalid_api_key")
            problems = request_problems(body)
            if problems:
                self.problems.extend((index, p) for p in problems)
                return 400, _error("; ".join(problems), "invalid_request_error")
            if not self.script:
                return 500, _error("the script is exhausted", "server_error")
            item = self.script.pop(0)
        return _completion(item(body) if callable(item) else item, body, index)


def _error(message: str, kind: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind}}


def _completion(item: Any, body: dict[str, Any], index: int) -> tuple[int, dict[str, Any]]:
    if isinstance(item, dict) and "status" in item:
        return int(item["status"]), _error(str(item.get("error", "scripted error")), "server_error")
    message = {"role": "assistant", "content": item} if isinstance(item, str) else dict(item)
    finish = "tool_calls" if message.get("tool_calls") else "stop"
    return 200, {
        "id": f"chatcmpl-stub-{index}",
        "object": "chat.completion",
        "created": 0,
        "model": body["model"],
        "choices": [{"index": 0, "message": message, "finish_reason": finish}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15},
    }


def _handler(stub: OpenAIStub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error(f"no route {self.path}", "not_found"))
                return
            raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            try:
                body = json.loads(raw.decode("utf-8"))
            except (UnicodeDecodeError, json.JSONDecodeError) as exc:
                self._send(400, _error(f"body is not JSON: {exc}", "invalid_request_error"))
                return
            self._send(*stub.answer(body, dict(self.headers)))

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            """Keep test output quiet."""

    return Handler
