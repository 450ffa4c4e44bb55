#!/usr/bin/env python3
"""notes-api: a tiny JSON notes service (Python stdlib only).

Routes:
    GET  /health        -> {"status": "ok", "service": "notes-api"}
    GET  /notes         -> every note, ordered by id
    GET  /notes/<id>    -> one note, or 404
    POST /notes         -> create a note from {"title": ..., "body": ..., "tags": [...]}, 201

Notes are seeded from data/notes.json and kept in memory (the file is never written).
"""

import argparse
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import urlsplit

DATA_FILE = Path(__file__).resolve().parent / "data" / "notes.json"


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
            self._send_json(200, self.store.all())
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
            payload = json.loads(self.rfile.read(length) or b"{}")
            note = self.store.add(payload["title"], payload.get("body", ""), payload.get("tags", []))
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
