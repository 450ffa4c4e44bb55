"""A loopback OpenAI-compatible chat-completions server whose replies a function computes (test helper)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: ``answer(body) -> (status, payload bytes)``.
Answer = Callable[[dict[str, Any]], tuple[int, bytes]]


def completion(content: str) -> tuple[int, bytes]:
    """A 200 chat-completions response whose first choice says ``content``."""
    reply = {
        "id": "c1",
        "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
    }
    return 200, json.dumps(reply).encode()


class ChatServer:
    """Serves ``POST /v1/chat/completions`` on 127.0.0.1 with what :attr:`answer` returns; records every request."""

    def __init__(self, answer: Answer) -> None:
        self.answer = answer
        self.requests: list[dict[str, Any]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                server.requests.append({"path": self.path, "headers": dict(self.headers), "body": body})
                status, payload = server.answer(body)
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args: Any) -> None:
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def close(self) -> None:
        """Stop serving."""
        self.httpd.shutdown()
        self.httpd.server_close()
        self.thread.join(timeout=5)


@contextmanager
def chat_server(answer: Answer) -> Iterator[ChatServer]:
    """Run a :class:`ChatServer` for the ``with`` block."""
    server = ChatServer(answer)
    try:
        yield server
    finally:
        server.close()
