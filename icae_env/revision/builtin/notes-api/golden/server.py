#!/usr/bin/env python3
"""notes-api: a tiny JSON notes service (Python stdlib only).

Routes:
    GET  /health        -> {"status": "ok", "service": "notes-api"}
    GET  /notes         -> one page of notes, ordered by id (?page=1&per_page=10, per_page at most 50):
                           {"items": [...], "page": 1, "per_page": 10, "total": 25, "pages": 3}
    GET  /notes/<id>    -> one note, or 404
    POST /notes         -> create a note from {"title": ..., "body": ..., "tags": [...]}, 201

Bad input gets a 400 with {"error": "<message>"}.

Notes are seeded from data/notes.json and kept in memory (the file is never written).
"""

import argparse
import json
import math
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

DATA_FILE = Path(__file__).resolve().parent / "data" / "notes.json"
DEFAULT_PER_PAGE = 10
MAX_PER_PAGE = 50


class BadRequest(Exception):
    """Client input we refuse with a 400."""


def positive_int(query, name, default):
    """Return query parameter ``name`` as an integer >= 1 (``default`` when absent)."""
    values = query.get(name)
    if not values:
        return default
    raw = values[-1].strip()
    if not (raw.isascii() and raw.isdigit()) or int(raw) < 1:
        raise BadRequest(f"{name} must be a positive integer")
    return int(raw)


def paginate(notes, query):
    page = positive_int(query, "page", 1)
    per_page = min(positive_int(query, "per_page", DEFAULT_PER_PAGE), MAX_PER_PAGE)
    start = (page - 1) * per_page
    return {
        "items": notes[start : start + per_page],
        "page": page,
        "per_page": per_page,
        "total": len(notes),
        "pages": math.ceil(len(notes) / per_page),
    }


def parse_note(raw):
    """Validate a POST body; return (title, body, tags)."""
    try:
        payload = json.loads(raw or b"{}")
    except (UnicodeDecodeError, json.JSONDecodeError):
        raise BadRequest("request body must be valid JSON") from None
    if not isinstance(payload, dict):
        raise BadRequest("request body must be a JSON object")
    title = payload.get("title")
    if not isinstance(title, str) or not title.strip():
        raise BadRequest("title is required and must be a non-empty string")
    body = payload.get("body", "")
    if not isinstance(body, str):
        raise BadRequest("body must be a string")
    tags = payload.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(tag, str) for tag in tags):
        raise BadRequest("tags must be a list of strings")
    return title, body, tags


class NoteStore:
    """Thread-safe in-memory notes, keyed by id."""

    def __init__(self, notes):
        self._lock = threading.Lock()
        self._notes = {note["id"]: note for note in notes}
        self._next_id = max(self._notes, default=0) + 1

    def all(self):
        with self._lock:
            return [self._notes[key] for key in sorted(self._notes)]

    def get(self, note_id):
        with self._lock:
            return self._notes.get(note_id)

    def add(self, title, body, tags):
        with self._lock:
            note = {"id": self._next_id, "title": title, "body": body, "tags": list(tags)}
            self._notes[note["id"]] = note
            self._next_id += 1
            return note


class Handler(BaseHTTPRequestHandler):
    server_version = "notes-api/1.0"
    store: NoteStore = None  # set in main()

    def _send_json(self, status, payload):
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _route(self):
        return urlsplit(self.path).path.rstrip("/") or "/"

    def do_GET(self):
        path = self._route()
        if path == "/health":
            self._send_json(200, {"status": "ok", "service": "notes-api"})
        elif path == "/notes":
            try:
                page = paginate(self.store.all(), parse_qs(urlsplit(self.path).query))
            except BadRequest as exc:
                self._send_json(400, {"error": str(exc)})
                return
            self._send_json(200, page)
        elif path.startswith("/notes/"):
            try:
                note = self.store.get(int(path[len("/notes/") :]))
            except ValueError:
                note = None
            if note is None:
                self._send_json(404, {"error": "note not found"})
            else:
                self._send_json(200, note)
        else:
            self._send_json(404, {"error": "not found"})

    def do_POST(self):
        if self._route() != "/notes":
            self._send_json(404, {"error": "not found"})
            return
        try:
            length = int(self.headers.get("Content-Length") or 0)
            title, body, tags = parse_note(self.rfile.read(length))
            note = self.store.add(title, body, tags)
        except BadRequest as exc:
            self._send_json(400, {"error": str(exc)})
            return
        except Exception:
            self._send_json(500, {"error": "internal server error"})
            return
        self._send_json(201, note)


def main():
    parser = argparse.ArgumentParser(description="Run the notes API.")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args()

    Handler.store = NoteStore(json.loads(DATA_FILE.read_text(encoding="utf-8")))
    server = ThreadingHTTPServer((args.host, args.port), Handler)
    print(f"notes-api listening on http://{args.host}:{args.port}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


if __name__ == "__main__":
    main()
