"""``icae-env serve openenv|oracle``: an env id through OpenEnv (the ``openenv`` extra), or the ICAE Oracle API."""

from __future__ import annotations

import argparse
from typing import Any

from icae_env.cli.common import add_sandbox_arguments, count, sandbox_of, seconds
from icae_env.cli.oracle import add_endpoint_arguments, add_oracle_serve, endpoint_options
from icae_env.errors import ConfigError
from icae_env.registration import ROUTERS
from icae_env.sandbox.spec import parse_option
from icae_env.serve import local_model

__all__ = ["add_serve_commands"]

_DEFAULT_ENV = "icae/ProjectBuild-v0"


def _port(text: str) -> int:
    if not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(f"expected a port 0..65535, got {text!r}")
    return int(text)


def _env_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    kwargs: dict[str, Any] = {}
    for text in args.env_option:
        try:
            key, value = parse_option(text)
        except ConfigError:
            raise ConfigError(f"--env-option takes key=value, got {text!r}") from None
        kwargs[key] = value
    if args.sandbox is not None or args.sandbox_option:
        kwargs["sandbox"] = sandbox_of(args)
    if args.router is not None:
        kwargs["router"] = args.router
    router_options = endpoint_options(args, "router")
    if router_options:
        kwargs["router_options"] = {**kwargs.get("router_options", {}), **router_options}
    return kwargs


def _cmd_openenv(args: argparse.Namespace) -> int:
    from icae_env.serve.openenv import create_openenv_app, serve_app

    app = create_openenv_app(
        args.env, _env_kwargs(args), max_sessions=args.max_sessions, idle_timeout_s=args.idle_timeout
    )

    def announce(url: str) -> None:
        print(
            f"icae-env serve openenv: {url} ({args.env}; WebSocket sessions at /ws, at most {args.max_sessions}, "
            f"closed after {args.idle_timeout:g} s idle)",
            flush=True,
        )

    serve_app(app, args.host, args.port, announce)
    return 0


def add_serve_commands(commands: Any) -> None:
    """Register ``serve openenv``, ``serve model`` and ``serve oracle`` (:mod:`icae_env.cli.oracle`).

    ``serve openenv [--host H] [--port P] [--env ID] [--env-option KEY=VALUE ...] [--sandbox NAME]
    [--sandbox-option KEY=VALUE ...] [--router NAME] [--router-base-url URL] [--router-model NAME]
    [--router-api-key KEY] [--router-option KEY=VALUE ...] [--max-sessions N] [--idle-timeout S]`` serves until
    SIGINT or SIGTERM.

    Args:
        commands: The object returned by ``ArgumentParser.add_subparsers``.
    """
    serve = commands.add_parser("serve", help="serve an environment to other frameworks (OpenEnv), or the Oracle API")
    sub = serve.add_subparsers(dest="serve_command", required=True)
    add_oracle_serve(sub)
    model = sub.add_parser("model", help="serve SmolLM2 (or a GGUF file) as an OpenAI-compatible endpoint on loopback")
    local_model.add_arguments(model)
    model.set_defaults(func=local_model.run)
    openenv = sub.add_parser("openenv", help="serve a registered env id over OpenEnv's HTTP + WebSocket API")
    openenv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    openenv.add_argument("--port", type=_port, default=8000, help="port (default 8000; 0 picks a free one)")
    openenv.add_argument("--env", default=_DEFAULT_ENV, help=f"registered env id (default {_DEFAULT_ENV})")
    openenv.add_argument(
        "--env-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an argument of icae_env.make for every session (repeatable), e.g. task=builtin/unidiff, max_steps=50",
    )
    add_sandbox_arguments(openenv, config=False)
    openenv.add_argument("--router", choices=sorted(ROUTERS), default=None, help="the User Agent's question router")
    add_endpoint_arguments(openenv, "router")
    openenv.add_argument("--max-sessions", type=count(1), default=4, help="WebSocket sessions open at once (default 4)")
    openenv.add_argument(
        "--idle-timeout",
        type=seconds,
        default=600.0,
        help="seconds a session may stay idle before it and its sandbox are closed (default 600)",
    )
    openenv.set_defaults(func=_cmd_openenv)
