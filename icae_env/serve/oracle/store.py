"""Where the Oracle server keeps its sessions: in memory, or in a state directory that survives a restart.

A store holds the ``append_id`` registry (each session's :class:`SessionSettings`) and every session's task logs
(:class:`~icae_env.serve.oracle.interaction_log.TaskLog`). The service writes through to it before answering, so a
session evicted from memory, or a server restarted on the same state directory, loses nothing.

Layout of a state directory (:class:`DirectoryStore`)::

    <state-dir>/icae-env-oracle.json                       {"format": "icae-env-oracle-state", "version": 1}
    <state-dir>/sessions/<append_id>/session.json          the settings (written once, temp file + rename)
    <state-dir>/sessions/<append_id>/tasks/<task>.jsonl    one log per task: a header line, then one line per event

``session.json`` is written to a temp file and renamed into place, once: the registry is one file per session, so
no write can damage another session. A log is append-only: its first event creates it together with its header,
and each event (a counted turn, or a refused question: ``{"error": "max_interactions_reached", ...}``) is one
``write`` of whole lines (undone if the write fails), so a crash can at worst tear the last line, which the next
load drops (a log left without a whole line counts as no log). Every file is validated when read; a file that is
not what the server wrote raises :class:`StateFileError` naming the file (and line). One server at a time owns a
state directory (an exclusive ``flock`` on ``<state-dir>/.lock``).

Example:
    >>> store = MemoryStore()
    >>> store.create_session("0" * 32, SessionSettings("m", "normal", 16, False))
    >>> store.load_session("0" * 32).max_interactions
    16
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import IO, Any, Protocol
from urllib.parse import quote, unquote

from icae_env.errors import ConfigError
from icae_env.serve.oracle.interaction_log import TaskLog
from icae_env.serve.oracle.protocol import DIFFICULTIES, SessionSettings, is_append_id

__all__ = ["DirectoryStore", "MemoryStore", "SessionStore", "StateFileError"]

MARKER = "icae-env-oracle.json"
FORMAT = {"format": "icae-env-oracle-state", "version": 1}
_LOG_SUFFIX = ".jsonl"
_TURN_FIELDS: dict[str, type | tuple[type, ...]] = {
    "turn": int,
    "remaining": int,
    "question": str,
    "answer": str,
    "triggers_hit": list,
    "fallback_triggered": bool,
    "score_adjustment": int,
}


class StateFileError(ConfigError):
    """A state file is unreadable or not what the server wrote; the message names the file."""


class SessionStore(Protocol):
    """The registry of sessions and their task logs (see the module docstring)."""

    def create_session(self, append_id: str, settings: SessionSettings) -> None:
        """Register a new session."""

    def load_session(self, append_id: str) -> SessionSettings | None:
        """Return a session's settings, or None for an id never registered."""

    def append_event(self, append_id: str, log: TaskLog, event: dict[str, Any]) -> None:
        """Append one event to a task's log (creating the log on its first event)."""

    def load_task(self, append_id: str, task_id: str) -> TaskLog | None:
        """Return a task's log, or None when it has none."""

    def task_ids(self, append_id: str) -> list[str]:
        """Return the ids of the tasks that have a log, sorted."""

    def close(self) -> None:
        """Release the store."""


def _fail(where: str, what: str) -> StateFileError:
    return StateFileError(f"{where}: {what} (not written by this server, or damaged; move it away to continue)")


def _settings(data: Any, where: str) -> SessionSettings:
    if not isinstance(data, dict):
        raise _fail(where, "expected a JSON object")
    model, difficulty = data.get("model"), data.get("difficulty")
    budget, open_access = data.get("max_interactions"), data.get("open_access")
    if not isinstance(model, str) or not isinstance(difficulty, str) or difficulty not in DIFFICULTIES:
        raise _fail(where, f"bad session settings {data!r}")
    if not isinstance(budget, int) or isinstance(budget, bool) or not isinstance(open_access, bool):
        raise _fail(where, f"bad session settings {data!r}")
    return SessionSettings(model, difficulty, budget, open_access)


def _header(data: Any, where: str) -> TaskLog:
    ok = isinstance(data, dict) and isinstance(data.get("task_id"), str) and isinstance(data.get("level"), str)
    constraints = data.get("constraints") if isinstance(data, dict) else None
    if not ok or not isinstance(constraints, list) or not all(isinstance(c, str) for c in constraints):
        raise _fail(where, "bad log header")
    return TaskLog(data["task_id"], data["level"], tuple(constraints))


def _add_event(log: TaskLog, data: Any, where: str) -> None:
    if isinstance(data, dict) and isinstance(data.get("error"), str):
        log.refused += 1
        return
    bad = not isinstance(data, dict) or any(
        not isinstance(data.get(k), t) or (t is int and isinstance(data.get(k), bool)) for k, t in _TURN_FIELDS.items()
    )
    if bad or not all(isinstance(c, str) for c in data["triggers_hit"]):
        raise _fail(where, "bad log entry")
    data.setdefault("api_alignment_triggered", False)
    data.setdefault("cheating_attempt_detected", False)
    log.turns.append(data)


def parse_log(lines: list[str], where: str) -> TaskLog:
    """Rebuild a task log from its lines (header first); raise :class:`StateFileError` naming ``where``."""
    if not lines:
        raise _fail(where, "empty log")
    parsed = []
    for number, line in enumerate(lines, 1):
        try:
            parsed.append(json.loads(line))
        except ValueError as exc:
            raise _fail(f"{where}: line {number}", f"not JSON ({exc})") from None
    log = _header(parsed[0], f"{where}: line 1")
    for number, data in enumerate(parsed[1:], 2):
        _add_event(log, data, f"{where}: line {number}")
    return log


def _line(data: dict[str, Any]) -> str:
    return json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"


class MemoryStore:
    """Sessions and logs in this process only (lost on exit); holds the same lines a state directory would."""

    def __init__(self) -> None:
        self._sessions: dict[str, SessionSettings] = {}
        self._logs: dict[str, dict[str, list[str]]] = {}

    def __repr__(self) -> str:
        return "MemoryStore()"

    def create_session(self, append_id: str, settings: SessionSettings) -> None:
        """Register a new session."""
        self._sessions[append_id] = settings
        self._logs[append_id] = {}

    def load_session(self, append_id: str) -> SessionSettings | None:
        """Return a session's settings, or None."""
        return self._sessions.get(append_id)

    def append_event(self, append_id: str, log: TaskLog, event: dict[str, Any]) -> None:
        """Append one event to a task's log."""
        logs = self._logs[append_id]
        if log.task_id not in logs:
            logs[log.task_id] = [_line(log.header())]
        logs[log.task_id].append(_line(event))

    def load_task(self, append_id: str, task_id: str) -> TaskLog | None:
        """Return a task's log, or None."""
        lines = self._logs.get(append_id, {}).get(task_id)
        return parse_log(lines, f"<memory>/{append_id}/{task_id}") if lines else None

    def task_ids(self, append_id: str) -> list[str]:
        """Return the ids of the tasks that have a log, sorted."""
        return sorted(self._logs.get(append_id, {}))

    def close(self) -> None:
        """Nothing to release."""


def _write_atomically(path: Path, text: str, fsync: bool) -> None:
    """Write ``text`` to a temp file beside ``path``, then rename it over ``path``."""
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            if fsync:
                os.fsync(handle.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise


def _append(fd: int, data: bytes, fsync: bool) -> None:
    """Write ``data`` at the end of ``fd``, all or nothing (a failed write is truncated away)."""
    start = os.fstat(fd).st_size
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        if fsync:
            os.fsync(fd)
    except BaseException:
        os.ftruncate(fd, start)
        raise


def _lock(path: Path) -> IO[str] | None:
    """Take an exclusive, non-blocking lock on ``path`` (None where ``fcntl`` does not exist)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        return None
    handle = path.open("a")
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise ConfigError(f"{path.parent}: state directory in use by another icae-env serve oracler") from None
    return handle


class DirectoryStore:
    """Sessions and logs under a state directory (see the module docstring); survives restarts.

    Args:
        root: The state directory: created when missing; an existing one must be empty or one of ours.
        fsync: Also ``fsync`` every write (survives power loss, slower); renames and single-line appends are
            crash-safe for a killed process either way.

    Raises:
        ConfigError: when ``root`` holds other files, or another server holds it.
        StateFileError: when its marker file is damaged or of another version.
    """

    def __init__(self, root: Path | str, fsync: bool = False) -> None:
        self.root = Path(root)
        self.fsync = fsync
        self._sessions = str(self.root / "sessions")
        fresh = self._check_root()
        self._lock = _lock(self.root / ".lock")
        if fresh:
            (self.root / "sessions").mkdir(exist_ok=True)
            _write_atomically(self.root / MARKER, json.dumps(FORMAT) + "\n", fsync)

    def __repr__(self) -> str:
        return f"DirectoryStore({str(self.root)!r})"

    def _check_root(self) -> bool:
        """Check that the root is new, empty or ours; return whether it still needs its marker."""
        marker = self.root / MARKER
        if self.root.exists() and not self.root.is_dir():
            raise ConfigError(f"{self.root}: state directory is a file")
        self.root.mkdir(parents=True, exist_ok=True)
        if not marker.exists():
            if any(p.name != ".lock" for p in self.root.iterdir()):
                raise ConfigError(f"{self.root}: not an icae-env oracle state directory (no {MARKER}); use a new one")
            return True
        try:
            found = json.loads(marker.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise _fail(str(marker), f"unreadable ({exc})") from None
        if found != FORMAT:
            raise _fail(str(marker), f"expected {FORMAT}, found {found!r}")
        return False

    def _session_dir(self, append_id: str) -> Path:
        if not is_append_id(append_id):  # never a path outside the state directory
            raise ConfigError(f"not an append_id: {append_id!r}")
        return self.root / "sessions" / append_id

    def _log_path(self, append_id: str, task_id: str) -> str:
        if not is_append_id(append_id):
            raise ConfigError(f"not an append_id: {append_id!r}")
        return os.path.join(self._sessions, append_id, "tasks", quote(task_id, safe="@+-_") + _LOG_SUFFIX)

    def create_session(self, append_id: str, settings: SessionSettings) -> None:
        """Register a new session (its ``session.json`` is written last: it is what makes the id known)."""
        folder = self._session_dir(append_id)
        (folder / "tasks").mkdir(parents=True, exist_ok=True)
        _write_atomically(folder / "session.json", json.dumps(settings.to_json()) + "\n", self.fsync)

    def load_session(self, append_id: str) -> SessionSettings | None:
        """Return a session's settings, or None for an id never registered here."""
        path = self._session_dir(append_id) / "session.json"
        try:
            text = path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except (OSError, UnicodeDecodeError) as exc:
            raise _fail(str(path), f"unreadable ({exc})") from None
        try:
            data = json.loads(text)
        except ValueError as exc:
            raise _fail(str(path), f"not JSON ({exc})") from None
        return _settings(data, str(path))

    def append_event(self, append_id: str, log: TaskLog, event: dict[str, Any]) -> None:
        """Append one event to a task's log; the first event creates the log, header first, in the same write."""
        path = self._log_path(append_id, log.task_id)
        data = _line(event).encode("utf-8")
        try:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL, 0o644)
            data = _line(log.header()).encode("utf-8") + data
        except FileExistsError:
            fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        try:
            _append(fd, data, self.fsync)
        finally:
            os.close(fd)

    def load_task(self, append_id: str, task_id: str) -> TaskLog | None:
        """Return a task's log, or None; a torn last line (a crash mid-append) is dropped from the file."""
        path = self._log_path(append_id, task_id)
        try:
            with open(path, "rb") as handle:
                raw = handle.read()
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise _fail(path, f"unreadable ({exc})") from None
        if raw and not raw.endswith(b"\n"):
            raw = raw[: raw.rfind(b"\n") + 1]
            os.truncate(path, len(raw))
        if not raw:  # killed before its first event was whole
            os.unlink(path)
            return None
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise _fail(path, f"not UTF-8 ({exc})") from None
        return parse_log(text.splitlines(), path)

    def task_ids(self, append_id: str) -> list[str]:
        """Return the ids of the tasks that have a log, sorted."""
        folder = self._session_dir(append_id) / "tasks"
        if not folder.is_dir():
            return []
        names = (p.name for p in folder.iterdir() if p.name.endswith(_LOG_SUFFIX) and not p.name.startswith("."))
        return sorted(unquote(name[: -len(_LOG_SUFFIX)]) for name in names)

    def close(self) -> None:
        """Release the state directory's lock (safe to call twice)."""
        if self._lock is not None:
            self._lock.close()
            self._lock = None
