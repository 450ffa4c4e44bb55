"""``icae-env serve oracle``: the reference Oracle's HTTP API (:mod:`icae_env.serve.oracle`) from the command line.

``icae-env oracle serve``, the spelling before 0.2, stays for one release and prints a notice.

:func:`add_endpoint_arguments` and :func:`endpoint_options` give any command the options of an LLM-backed part
(``--router-base-url URL --router-model NAME --router-api-key KEY --router-option KEY=VALUE``, and the same with
``--judge-``); the ``OPENAI_*`` variables stand in for unset ones where the router or judge is built.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from icae_env.cli.common import deprecated
from icae_env.errors import ConfigError
from icae_env.registration import DEFAULT_ROUTER
from icae_env.sandbox.spec import parse_option
from icae_env.serve.oracle import OracleServer, OracleService
from icae_env.serve.oracle.protocol import DEFAULT_MAX_SESSIONS, DEFAULT_PORTS, DEFAULT_SESSION_TTL_S, PUBLISHED_KEY
from icae_env.user_agent.grounded import DEFAULT_BUDGET, ROUTERS

__all__ = ["add_endpoint_arguments", "add_oracle_commands", "add_oracle_serve", "endpoint_options"]


def _ports_arg(text: str) -> tuple[int, int, int]:
    parts = [p.strip() for p in text.split(",")]
    if len(parts) != 3 or not all(p.isdigit() and int(p) <= 65535 for p in parts):
        raise argparse.ArgumentTypeError(f"expected three ports init,interaction,stats (0-65535), got {text!r}")
    init, interaction, stats = (int(p) for p in parts)
    return init, interaction, stats


def _budget_arg(text: str) -> int:
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"expected an integer >= 0, got {text!r}")
    return int(text)


def _positive_arg(kind: type) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not value > 0 or (isinstance(value, float) and math.isnan(value)):
            raise argparse.ArgumentTypeError(f"expected a {kind.__name__} > 0, got {text!r}")
        return value

    return parse


def _key_arg(text: str) -> str:
    if not text:
        raise argparse.ArgumentTypeError("the key must not be empty")
    return text


def add_endpoint_arguments(parser: argparse.ArgumentParser, what: str) -> None:
    """Add ``--<what>-base-url``, ``--<what>-model``, ``--<what>-api-key`` and ``--<what>-option KEY=VALUE``.

    Args:
        parser: The command's parser.
        what: ``router`` or ``judge``.
    """
    part = {"router": "the llm router", "judge": "the llm judge"}.get(what, what)
    group = parser.add_argument_group(f"{what} options", f"options of {what}s that take them (e.g. {part})")
    group.add_argument(
        f"--{what}-base-url", metavar="URL", help=f"chat-completions base URL of {part} (default: $OPENAI_BASE_URL)"
    )
    group.add_argument(f"--{what}-model", metavar="NAME", help=f"model name of {part} (default: $OPENAI_MODEL)")
    group.add_argument(f"--{what}-api-key", metavar="KEY", help=f"bearer key of {part} (default: $OPENAI_API_KEY)")
    group.add_argument(
        f"--{what}-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help=f"any other {what} constructor option (repeatable), e.g. timeout=30, cache_path=replies.json",
    )


def endpoint_options(args: argparse.Namespace, what: str) -> dict[str, Any]:
    """Return the options :func:`add_endpoint_arguments` read for ``what`` (only those given).

    Raises:
        ConfigError: for a ``--<what>-option`` without ``=``.
    """
    options: dict[str, Any] = {}
    for text in getattr(args, f"{what}_option", []):
        try:
            key, value = parse_option(text)
        except ConfigError:
            raise ConfigError(f"--{what}-option takes key=value, got {text!r}") from None
        options[key] = value
    for key in ("base_url", "model", "api_key"):
        value = getattr(args, f"{what}_{key}", None)
        if value is not None:
            options[key] = value
    return options


def _banner(server: OracleServer, service: OracleService, state_dir: Path | None) -> str:
    urls = ", ".join(f"{name} {url}" for name, url in server.urls.items())
    source = f"data root {service.data_root} and built-in tasks" if service.data_root else "built-in tasks"
    state = f"state in {state_dir}" if state_dir else "state in memory, lost on exit (see --state-dir)"
    keyless = "; keyless init allowed" if service.allow_keyless else ""
    settings = f"router {service.router}, budget {service.default_budget}; {state}{keyless}"
    return f"icae-env serve oracle: {urls} ({source}; {settings})"


def _cmd_serve(args: argparse.Namespace) -> int:
    service = OracleService(
        args.data_root,
        router=args.router,
        router_options=endpoint_options(args, "router"),
        default_budget=args.budget,
        max_sessions=args.max_sessions,
        session_ttl_s=args.session_ttl,
        key=args.key,
        allow_keyless=args.allow_keyless,
        state_dir=args.state_dir,
        fsync=args.fsync,
    )
    with service:
        try:
            server = OracleServer(service, host=args.host, ports=args.ports, verbose=args.verbose)
        except OSError as exc:
            print(f"icae-env: error: cannot listen on {args.host} ports {args.ports}: {exc}", file=sys.stderr)
            return 2
        with server:
            print(_banner(server, service, args.state_dir), flush=True)
            server.serve_forever()
    return 0


def _add_session_arguments(serve: argparse.ArgumentParser) -> None:
    serve.add_argument(
        "--budget",
        type=_budget_arg,
        default=DEFAULT_BUDGET,
        help=f"max_interactions when init gives none (default {DEFAULT_BUDGET})",
    )
    serve.add_argument(
        "--key",
        type=_key_arg,
        default=PUBLISHED_KEY,
        help="the init key (default: the key the ICAE-EVAL harness sends); other keys get 'invalid key'",
    )
    serve.add_argument(
        "--allow-keyless",
        action="store_true",
        help="also accept an init without a key (local experiments only: any client can then mint sessions)",
    )
    serve.add_argument(
        "--state-dir",
        type=Path,
        default=None,
        help="keep sessions and logs in this directory: they survive a restart (default: in memory only)",
    )
    serve.add_argument("--fsync", action="store_true", help="fsync every state write (survives power loss; slower)")
    serve.add_argument(
        "--max-sessions",
        type=_positive_arg(int),
        default=DEFAULT_MAX_SESSIONS,
        help=f"sessions held in memory; the least recently used is evicted, not lost (default {DEFAULT_MAX_SESSIONS})",
    )
    serve.add_argument(
        "--session-ttl",
        type=_positive_arg(float),
        default=DEFAULT_SESSION_TTL_S,
        help=f"idle seconds before a session is evicted from memory, never lost (default {DEFAULT_SESSION_TTL_S:g})",
    )


def add_oracle_serve(sub: Any, notice: str | None = None) -> None:
    """Register ``serve`` on the subparsers ``sub`` of ``icae-env serve oracle`` (or of the old ``oracle`` group).

    ``[--data-root DIR] [--host H] [--ports I,Q,S] [--router NAME] [--router-base-url URL] [--router-model NAME]
    [--router-api-key KEY] [--router-option KEY=VALUE ...] [--budget N] [--key KEY] [--allow-keyless]
    [--state-dir DIR] [--fsync] [--max-sessions N] [--session-ttl S] [-v]`` serves until interrupted; its
    ``func(args)`` returns the exit status.

    Args:
        sub: The object returned by ``ArgumentParser.add_subparsers``.
        notice: A line printed to stderr before serving (the old spelling's deprecation notice).
    """
    name = "oracle" if notice is None else "serve"
    serve = sub.add_parser(name, help="serve the ICAE-Bench Oracle (User Agent) HTTP API: init, interaction, stats")
    serve.add_argument("--data-root", type=Path, default=None, help="ICAE-Bench data root (tasks by alias or key)")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument(
        "--ports",
        type=_ports_arg,
        default=DEFAULT_PORTS,
        help="init,interaction,stats ports (default 50001,50002,50003; 0 picks a free port)",
    )
    serve.add_argument(
        "--router",
        choices=sorted(ROUTERS),
        default=DEFAULT_ROUTER,
        help=f"question router (default {DEFAULT_ROUTER}); llm asks a chat model: see the router options below",
    )
    add_endpoint_arguments(serve, "router")
    _add_session_arguments(serve)
    serve.add_argument("-v", "--verbose", action="store_true", help="log every request to stderr")
    serve.set_defaults(func=deprecated(_cmd_serve, notice) if notice else _cmd_serve)


def add_oracle_commands(commands: Any) -> None:
    """Register the old spelling ``oracle serve`` (one release; it prints a notice) on the top-level subparsers."""
    oracle = commands.add_parser("oracle", help="old spelling of `icae-env serve oracle` (removed in the next release)")
    sub = oracle.add_subparsers(dest="oracle_command", required=True)
    add_oracle_serve(sub, notice="`icae-env oracle serve` is now `icae-env serve oracle`")
