"""The ``docker`` sandbox: one container per episode, the workspace on a mounted host directory.

The container's main process is the session's ``bash`` under Docker's init process, with network off by default
and cpu, memory and pids limits. Its stdin/stdout are attached through the SDK before it starts and driven like
the local session (the workspace and control directory are bind mounts, so output capping and file operations
are the local ones). A time-out kills the running command's process tree through the host's view of the container's
processes. Containers carry the labels ``icae-env=1``, ``icae-env.run`` and ``icae-env.owner-pid``, are removed
on close, on garbage collection and at interpreter exit, and :func:`reap` removes the ones whose owner died.

Requires the ``docker`` extra (``pip install "icae-env[docker]"``) and a local Docker engine.
"""

from __future__ import annotations

import atexit
import os
import secrets
import shutil
import signal
import threading
import weakref
from pathlib import Path
from typing import Any

from icae_env.errors import ArgumentError, DependencyNotInstalled, SandboxError
from icae_env.sandbox.base import DEFAULT_OUTPUT_LIMIT
from icae_env.sandbox.docker_attach import AttachedShell, client, host_pid_in_container, init_pid
from icae_env.sandbox.docker_pool import POOL
from icae_env.sandbox.images import image_for, load_image_map, missing_image_hint
from icae_env.sandbox.session import ShellSession
from icae_env.sandbox.session_box import SessionSandbox, new_root

__all__ = ["DockerSandbox", "LABEL", "drain_pools", "flush_cleanup", "reap", "warm_pool_size"]

LABEL = "icae-env"
RUN_ID = secrets.token_hex(4)
INNER_WORKDIR = "/workspace"
_INNER_CTL = "/.icae-ctl"
_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def _exit_on_sigterm(signum: int, frame: object) -> None:
    """Raise SystemExit once; SIGTERM's default action is back, so a second SIGTERM ends the process.

    Code that swallows the exit (a test runner failing the running test, a broad ``except BaseException``) would
    otherwise keep the process alive through any number of SIGTERMs.
    """
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    raise SystemExit(128 + signum)


def _install_sigterm_handler() -> None:
    """Turn the first SIGTERM into SystemExit (so ``finally`` blocks and exit handlers remove containers).

    Only when SIGTERM still has its default action and we are in the main thread; a handler the application
    installed is left alone.
    """
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) is signal.SIG_DFL:
        signal.signal(signal.SIGTERM, _exit_on_sigterm)


def _remove_container(container_id: str) -> None:
    try:
        client().containers.get(container_id).remove(force=True)
    except Exception:  # noqa: BLE001 - already gone, or the engine is down at exit
        pass


class _Prepared:
    """A started container with its root directory and a live session, ready to hand to a sandbox."""

    def __init__(self, container: Any, root: Path, session: ShellSession) -> None:
        self.container, self.root, self.session = container, root, session

    def discard(self) -> None:
        """Stop the session and remove the container and its files."""
        self.session.kill()
        _cleanup(self.container.id, str(self.root))


class DockerSandbox(SessionSandbox):
    """One container per sandbox (see the module docstring).

    Args:
        image: Image name; default from ``language`` through the image map (the locally built base image).
        language: Task language, used to pick the image when ``image`` is None.
        image_map: YAML file of ``language: image`` pairs.
        network: Whether the container gets a network (off by default).
        cpus: CPU limit.
        memory: Memory limit (swap included), e.g. ``"1g"``.
        pids_limit: Maximum number of processes.
        default_timeout: Seconds a command may run when ``exec`` gets no timeout.
        output_limit: Bytes of stdout and of stderr kept per command.
        env: Extra environment variables.
        warm_pool: Keep this many started containers of the same configuration ready (hides start-up latency).
        hide: Accepted as every backend does; nothing of the host but the workspace is mounted, so nothing to hide.
    """

    name = "docker"

    def __init__(
        self,
        image: str | None = None,
        language: str | None = None,
        image_map: str | None = None,
        network: bool = False,
        cpus: float = 1.0,
        memory: str = "1g",
        pids_limit: int = 512,
        default_timeout: float = 120.0,
        output_limit: int = DEFAULT_OUTPUT_LIMIT,
        env: dict[str, str] | None = None,
        warm_pool: int = 0,
        hide: tuple[str, ...] | list[str] = (),
    ) -> None:
        super().__init__(default_timeout, output_limit)
        if cpus <= 0 or pids_limit < 16 or warm_pool < 0:
            raise ArgumentError(
                f"need cpus > 0, pids_limit >= 16, warm_pool >= 0; got {cpus!r}, {pids_limit!r}, {warm_pool!r}"
            )
        self.image = image or image_for(language, load_image_map(image_map))
        self.network, self.cpus, self.memory, self.pids_limit = network, cpus, memory, pids_limit
        self.env = {"PATH": _PATH, "HOME": "/root", "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", **(env or {})}
        self.warm_pool = warm_pool
        self.workdir = INNER_WORKDIR
        self.container: Any = None
        client()
        _install_sigterm_handler()

    @staticmethod
    def available() -> bool:
        """Whether the docker SDK is installed, the engine answers and the base image exists."""
        try:
            client()
        except (DependencyNotInstalled, SandboxError):
            return False
        from icae_env.sandbox.images import BASE_IMAGE, image_exists

        return image_exists(BASE_IMAGE)

    def _config_key(self) -> tuple:
        return (
            self.image,
            self.network,
            self.cpus,
            self.memory,
            self.pids_limit,
            tuple(sorted(self.env.items())),
            self.output_limit,
        )

    def _create(self, root: Path) -> Any:
        """Create (not start) the episode's container with the workspace and control directory of ``root``.

        Raises:
            SandboxError: when the image is absent, with how to get it.
        """
        from docker.errors import ImageNotFound

        labels = {LABEL: "1", f"{LABEL}.run": RUN_ID, f"{LABEL}.owner-pid": str(os.getpid())}
        try:
            return client().containers.create(
                self.image,
                ["bash", "--noprofile", "--norc"],
                stdin_open=True,
                init=True,
                labels=labels,
                name=f"icae-{RUN_ID}-{secrets.token_hex(4)}",
                network_mode="bridge" if self.network else "none",
                nano_cpus=int(self.cpus * 1e9),
                mem_limit=self.memory,
                memswap_limit=self.memory,
                pids_limit=self.pids_limit,
                working_dir=INNER_WORKDIR,
                environment=self.env,
                volumes={
                    str(root / "workspace"): {"bind": INNER_WORKDIR, "mode": "rw"},
                    str(root / "ctl"): {"bind": _INNER_CTL, "mode": "rw"},
                },
            )
        except ImageNotFound:
            raise SandboxError(f"image {self.image} is absent here: {missing_image_hint(self.image)}") from None

    def prepare(self) -> _Prepared:
        """Start a container and its session (used directly and by the warm pool)."""
        root = new_root()
        try:
            container = self._create(root)
        except SandboxError:
            shutil.rmtree(root, ignore_errors=True)
            raise
        try:
            session = ShellSession(
                ["docker", "attach", container.id],
                {},
                root,
                root / "ctl",
                _INNER_CTL,
                64 * self.output_limit,
                resolve_pid=lambda inner: host_pid_in_container(init_pid(container.id), inner),
                spawn=lambda: AttachedShell(container.id),
            )
            session.start()
        except Exception:
            _cleanup(container.id, str(root))
            raise
        return _Prepared(container, root, session)

    def start(self) -> None:
        """Start (or take from the warm pool) a container and its session (idempotent)."""
        if self._root is not None:
            return
        prepared = POOL.take(self._config_key()) if self.warm_pool else None
        prepared = prepared or self.prepare()
        self.container, self._root, self._session = prepared.container, prepared.root, prepared.session
        self._finalizer = weakref.finalize(self, _cleanup, prepared.container.id, str(prepared.root))
        if self.warm_pool:
            POOL.fill(self._config_key(), self.warm_pool, self.prepare)

    def close(self) -> None:
        """Stop the session; remove the container and the workspace in the background; safe to call twice.

        Removal finishes before the interpreter exits; :func:`flush_cleanup` waits for it explicitly.
        """
        session, self._session = self._session, None
        if session is not None:
            session.kill()
        if self._finalizer is not None and self._finalizer.detach() is not None and self.container is not None:
            _cleanup_later(self.container.id, str(self._root))
        self._root, self.container = None, None


def _cleanup(container_id: str, root: str) -> None:
    _remove_container(container_id)
    shutil.rmtree(root, ignore_errors=True)


_PENDING: list[threading.Thread] = []
_PENDING_LOCK = threading.Lock()


def _cleanup_later(container_id: str, root: str) -> None:
    thread = threading.Thread(target=_cleanup, args=(container_id, root), daemon=True, name="icae-docker-rm")
    with _PENDING_LOCK:
        _PENDING[:] = [t for t in _PENDING if t.is_alive()]
        _PENDING.append(thread)
    thread.start()


@atexit.register
def flush_cleanup() -> None:
    """Wait until every container removal started by ``close()`` has finished."""
    with _PENDING_LOCK:
        pending = list(_PENDING)
    for thread in pending:
        thread.join(timeout=60)


def drain_pools() -> None:
    """Remove every pooled container, after in-flight fills finish (also runs at interpreter exit)."""
    POOL.drain()


def warm_pool_size(box: DockerSandbox) -> int:
    """Return how many ready containers the pool of ``box``'s configuration holds now."""
    return POOL.size(box._config_key())


def reap(all_owners: bool = False) -> list[str]:
    """Remove containers labelled ``icae-env`` whose owner process is gone (all of them with ``all_owners``).

    Returns:
        Names of the removed containers.
    """
    removed = []
    for container in client().containers.list(all=True, filters={"label": f"{LABEL}=1"}):
        owner = container.labels.get(f"{LABEL}.owner-pid", "")
        alive = owner.isdigit() and Path(f"/proc/{owner}").exists()
        if all_owners or not alive:
            container.remove(force=True)
            removed.append(container.name)
    return removed
