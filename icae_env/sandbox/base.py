"""The sandbox contract: a small Protocol that every backend implements.

A sandbox owns one workspace directory and runs shell commands in it. Commands share one long-lived shell
session, so ``cd`` and exported variables persist between calls as in a terminal. Agent mistakes (a failing
command, a time-out) come back in :class:`ExecResult`; only misuse of the API raises.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["ExecResult", "Sandbox", "SandboxBackend", "DEFAULT_OUTPUT_LIMIT", "TRUNCATION_MARKER"]

DEFAULT_OUTPUT_LIMIT = 64 * 1024
TRUNCATION_MARKER = "\n[... {omitted} bytes omitted ...]\n"


class ExecResult(BaseModel):
    """What one command produced.

    Attributes:
        stdout: Standard output, decoded as UTF-8 with replacement, capped (head + tail with a marker).
        stderr: Standard error, likewise.
        exit_code: The command's exit status (``124`` on time-out, ``128+N`` when killed by signal N).
        duration_s: Wall time of the command.
        timed_out: Whether the time limit killed it.
        truncated: Whether stdout or stderr was capped.
        output_limited: Whether the command was killed because its output passed the hard limit (64 times
            the kept size); ``exit_code`` is then 124 and ``timed_out`` False.
        session_restarted: Whether the shell session ended (``exit``, time-out in a builtin loop) and will be
            started afresh for the next command, losing ``cd`` and variables.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    stdout: str = ""
    stderr: str = ""
    exit_code: int = 0
    duration_s: float = Field(default=0.0, ge=0)
    timed_out: bool = False
    truncated: bool = False
    session_restarted: bool = False
    output_limited: bool = False

    @property
    def ok(self) -> bool:
        """Whether the command exited 0 within its time limit."""
        return self.exit_code == 0 and not self.timed_out


@runtime_checkable
class Sandbox(Protocol):
    """An isolated workspace with a persistent shell.

    Attributes:
        name: The backend name (``"local"``, ``"docker"``).
        workdir: The workspace path as commands inside the sandbox see it (``/workspace`` when isolated).
    """

    name: str
    workdir: str

    @property
    def host_workspace(self) -> Path | None:
        """Host path of the workspace while started (None for a backend whose workspace is not on this host)."""

    def start(self) -> None:
        """Create the workspace and start the shell session (idempotent)."""

    def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run ``command`` with bash in the workspace session; never raises for a failing command."""

    def read_file(self, path: str) -> bytes:
        """Return the bytes of a workspace file (relative to the workspace, or absolute inside it)."""

    def write_file(self, path: str, data: bytes | str) -> None:
        """Create or replace a workspace file, creating parent directories."""

    def copy_in(self, src: Path, dest: str = ".") -> None:
        """Copy a host file or directory tree into the workspace at ``dest``."""

    def copy_out(self, src: str, dest: Path) -> None:
        """Copy a workspace file or directory out to the host path ``dest``."""

    def close(self) -> None:
        """Stop every process and remove the workspace; safe to call twice."""

    def __enter__(self) -> Sandbox:
        """Start the sandbox and return it."""

    def __exit__(self, *exc: object) -> None:
        """Close the sandbox."""


@runtime_checkable
class SandboxBackend(Protocol):
    """A backend class, as the registration table names it: how environments and the scorer create sandboxes.

    Every backend takes the per-episode keywords ``language`` (the task's language; a backend may pick its image
    by it) and ``hide`` (host directories that must stay invisible inside the sandbox), plus its own options.
    """

    def __call__(self, *, language: str | None = None, hide: Sequence[str] = (), **options: Any) -> Sandbox:
        """Create (not start) a sandbox."""

    def available(self) -> bool:
        """Whether the backend can run on this machine now (its extra installed, its engine reachable)."""


def cap_output(data: bytes, limit: int) -> tuple[str, bool]:
    """Decode ``data`` as UTF-8 (invalid bytes replaced) and cap it to about ``limit`` bytes.

    Args:
        data: Raw output bytes.
        limit: Maximum bytes kept; beyond it the head and tail halves are kept around a marker.

    Returns:
        ``(text, truncated)``.
    """
    if len(data) <= limit:
        return data.decode("utf-8", errors="replace"), False
    half = limit // 2
    omitted = len(data) - 2 * half
    head = data[:half].decode("utf-8", errors="replace")
    tail = data[-half:].decode("utf-8", errors="replace")
    return head + TRUNCATION_MARKER.format(omitted=omitted) + tail, True
