"""Real ``icae-env serve openenv`` servers on 127.0.0.1, started through the CLI in subprocesses."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from icae_env.sandbox.local import TEMP_PREFIX
from icae_env.sandbox.session import descendants

ROOT = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 240.0  # importing OpenEnv (it imports gradio) takes ~10 s of CPU, much longer on a loaded machine

# name -> extra command-line arguments; every server serves icae/ProjectBuild-v0 on a free port
SERVERS = {
    "main": ["--env-option", "task=builtin/unidiff", "--env-option", "max_steps=4", "--idle-timeout", "120"],
    "small": ["--env-option", "task=builtin/unidiff", "--max-sessions", "1", "--idle-timeout", "2"],
    "term": ["--env-option", "task=builtin/unidiff"],
    "kill": ["--env-option", "task=builtin/unidiff"],
}


@dataclass
class Served:
    """One server process and what it printed."""

    name: str
    proc: subprocess.Popen
    url: str = ""
    stderr: Path = field(default_factory=Path)

    @property
    def ws_url(self) -> str:
        return self.url.replace("http://", "ws://") + "/ws"

    def sandbox_dirs(self) -> list[Path]:
        """The temp sandbox directories this server process made (named after its pid)."""
        return sorted(Path(tempfile.gettempdir()).glob(f"{TEMP_PREFIX}{self.proc.pid}-*"))

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _start(name: str, args: list[str], log_dir: Path) -> Served:
    stderr = log_dir / f"{name}.stderr"
    command = [sys.executable, "-m", "icae_env.cli", "serve", "openenv", "--port", "0", *args]
    with open(stderr, "w") as err:
        proc = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True)
    return Served(name, proc, stderr=stderr)


def _await_banner(server: Served) -> None:
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.append(server.proc.stdout.readline()), daemon=True)
    reader.start()
    reader.join(START_TIMEOUT_S)
    banner = lines[0] if lines else ""
    if not banner.startswith("icae-env serve openenv: http://"):
        server.stop()
        raise AssertionError(f"{server.name} did not start: {banner!r} {server.stderr.read_text()[-2000:]}")
    server.url = banner.split()[3]


@contextmanager
def running_servers(log_dir: Path) -> Iterator[dict[str, Served]]:
    """Every server of :data:`SERVERS`, started at once (their start-up is mostly importing OpenEnv)."""
    started = {name: _start(name, args, log_dir) for name, args in SERVERS.items()}
    try:
        for server in started.values():
            _await_banner(server)
        yield started
    finally:
        for server in started.values():
            server.stop()


def processes_mentioning(text: str) -> list[int]:
    """Pids of live processes whose command line contains ``text`` (a sandbox's bwrap names its directory)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if text in cmdline:
                found.append(int(entry))
    return found


def _stat(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return []


def process_tree(pid: int) -> dict[int, str]:
    """Every live descendant of ``pid``, with its start time (so that a reused pid is not taken for it)."""
    return {child: _stat(child)[19] for child in descendants(pid) if len(_stat(child)) > 19}


def survivors(tree: dict[int, str]) -> list[int]:
    """The processes of ``tree`` still running (zombies count as gone)."""
    return [pid for pid, start in tree.items() if (stat := _stat(pid)) and stat[19] == start and stat[0] != "Z"]


def wait_until(predicate, timeout: float, interval: float = 0.2) -> bool:
    """Poll ``predicate`` until it is true or ``timeout`` seconds have passed; return its last value."""
    deadline = time.monotonic() + timeout
    while True:
        if predicate():
            return True
        if time.monotonic() > deadline:
            return bool(predicate())
        time.sleep(interval)
