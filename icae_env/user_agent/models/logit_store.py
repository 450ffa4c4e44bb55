"""Cross-encoder logits remembered on disk: one SQLite file per weights file, shared by every process of a machine.

The ``cascade`` router's cross-encoder costs about 90 ms of one core per (question, record) pair
(:mod:`icae_env.user_agent.models.cross_encoder`), and the same pairs come back in every process: certifying a generated
task routes all its held-out paraphrases, every Ray worker and trainer process generates its task list again, and a
clarification policy previews the same candidate questions of the same tasks. A logit is a pure function of the
weights, the question and the record text, so it is computed once per machine and read back after that (about 20 µs).

The file is ``<cache dir>/cross-encoder/<weights digest>-v<FORMAT>.sqlite``. The cache directory is
``$ICAE_ENV_CACHE_DIR``, else ``$XDG_CACHE_HOME/icae-env``, else ``~/.cache/icae-env``; ``ICAE_ENV_CACHE_DIR=""``
turns the store off. Keys are SHA-256 digests of (question, record), so the file stays small (about 40 bytes per
pair). A store that cannot be opened, read or written (read-only home, corrupt file) is turned off for the process
with one warning; logits are then computed as without it, so a result never depends on the store.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import threading
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

__all__ = ["CACHE_VARIABLE", "FORMAT", "LogitStore", "cache_dir", "file_digest", "pair_key"]

#: The environment variable naming the cache directory ("" turns the store off).
CACHE_VARIABLE = "ICAE_ENV_CACHE_DIR"
#: Bumped whenever the tokenizer or the forward pass changes what a stored logit is.
FORMAT = 1
_SCHEMA = "CREATE TABLE IF NOT EXISTS logits (pair BLOB PRIMARY KEY, logit REAL NOT NULL) WITHOUT ROWID"


def cache_dir() -> Path | None:
    """Return icae-env's cache directory (module docstring), or None when ``$ICAE_ENV_CACHE_DIR`` is empty."""
    named = os.environ.get(CACHE_VARIABLE)
    if named is not None:
        return Path(named) if named else None
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "icae-env"


def pair_key(question: str, record: str) -> bytes:
    """Return the stored key of a (question, record) pair: the SHA-256 digest of both, separated unambiguously."""
    return hashlib.sha256(f"{len(question)}:{question}\x00{record}".encode("utf-8", "surrogatepass")).digest()


class LogitStore:
    """(question, record) -> logit for one weights file, in a SQLite file (module docstring).

    Opens its connection lazily and again in a forked or unpickled process; pickles as its path. Thread-safe (one
    lock per store); processes share the file through SQLite's own locking.

    Args:
        path: The SQLite file (created with its directory when missing).
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self._connection: sqlite3.Connection | None = None
        self._pid = 0
        self._lock = threading.Lock()
        self.enabled = True

    @classmethod
    def for_weights(cls, digest: str) -> LogitStore | None:
        """Return the store of the weights whose SHA-256 hex digest is ``digest``, or None when the store is off."""
        root = cache_dir()
        return None if root is None else cls(root / "cross-encoder" / f"{digest[:32]}-v{FORMAT}.sqlite")

    def get(self, question: str, records: Sequence[str]) -> dict[str, float]:
        """Return the stored logits of ``question`` with each of ``records`` that has one, by record."""
        keys = {pair_key(question, r): r for r in records}
        found: dict[str, float] = {}
        chunks = [list(keys)[n : n + 500] for n in range(0, len(keys), 500)]  # SQLite's bound on parameters
        for chunk in chunks:
            query = f"SELECT pair, logit FROM logits WHERE pair IN ({','.join('?' * len(chunk))})"
            rows = self._run(lambda db, q=query, c=chunk: db.execute(q, c).fetchall())
            found |= {keys[bytes(pair)]: float(logit) for pair, logit in rows or ()}
        return found

    def put(self, question: str, logits: Mapping[str, float]) -> None:
        """Store the logits of ``question`` with each record of ``logits`` (one transaction)."""
        rows = [(pair_key(question, r), float(v)) for r, v in logits.items()]

        def write(db: sqlite3.Connection) -> None:
            db.execute("BEGIN")
            try:
                db.executemany("INSERT OR REPLACE INTO logits VALUES (?, ?)", rows)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")

        self._run(write)

    def __len__(self) -> int:
        return int((self._run(lambda db: db.execute("SELECT count(*) FROM logits").fetchone()) or (0,))[0])

    def _run(self, work: Any) -> Any:
        """Return ``work(connection)``, or None (and turn the store off with a warning) when SQLite fails."""
        with self._lock:
            if not self.enabled:
                return None
            try:
                return work(self._connect())
            except (sqlite3.Error, OSError) as error:
                self.enabled = False
                message = f"cross-encoder logit store {self.path} turned off for this process: {error}"
                warnings.warn(message, stacklevel=4)
                return None

    def _connect(self) -> sqlite3.Connection:
        if self._connection is None or self._pid != os.getpid():
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=60, isolation_level=None, check_same_thread=False)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute(_SCHEMA)
            self._connection, self._pid = db, os.getpid()
        return self._connection

    def __getstate__(self) -> dict[str, Any]:
        return {"path": self.path, "enabled": self.enabled}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["path"])  # type: ignore[misc]
        self.enabled = state["enabled"]


def file_digest(path: str | Path) -> str:
    """Return the SHA-256 hex digest of the file at ``path``."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()
