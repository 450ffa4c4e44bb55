"""``icae-env data fetch-icae``: download, verify and install the ICAE-Bench release into a data root."""

from __future__ import annotations

import argparse
from typing import Any

from icae_env.cli.common import count, seconds
from icae_env.data import ARTIFACT_NAMES, ZENODO, DownloadPolicy, fetch_icae
from icae_env.errors import FetchError

__all__ = ["add_data_commands"]

_FETCH_HELP = "download, verify and unpack ICAE-Bench's public artifacts (PRDs, test cases, goldens, Kotlin image)"


def _cmd_fetch(args: argparse.Namespace) -> int:
    policy = DownloadPolicy(timeout_s=args.timeout, retries=args.retries)
    try:
        report = fetch_icae(args.root, mirror=args.mirror, manifest=args.manifest, only=args.only, policy=policy)
    except OSError as exc:  # a data root that cannot be created or written
        raise FetchError(f"{args.root}: {exc.strerror or exc}: {exc.filename or ''}") from None
    done = ", ".join(report.installed) or "nothing new"
    print(f"{report.root}: installed {done}; {report.layout.summary() if report.layout else ''}")
    if report.complete:
        print(f"{report.root}: complete (every artifact of the manifest is installed)")
    return 0


def add_data_commands(commands: Any) -> None:
    """Register ``data fetch-icae``."""
    group = commands.add_parser("data", help="release data")
    sub = group.add_subparsers(dest="data_command", required=True)
    fetch = sub.add_parser("fetch-icae", help=_FETCH_HELP)
    fetch.add_argument("--root", required=True, help="the data root to create or complete")
    fetch.add_argument("--mirror", default=None, help=f"replaces {ZENODO} (http://, https:// or file://)")
    fetch.add_argument("--manifest", default=None, help="a manifest JSON replacing the shipped one (same shape)")
    fetch.add_argument("--only", choices=ARTIFACT_NAMES, default=None, help="fetch this artifact only")
    fetch.add_argument(
        "--timeout", type=seconds, default=DownloadPolicy.timeout_s, help="socket timeout in seconds (60)"
    )
    fetch.add_argument(
        "--retries", type=count(0), default=DownloadPolicy.retries, help="retries after a transient error (4)"
    )
    fetch.set_defaults(func=_cmd_fetch)
