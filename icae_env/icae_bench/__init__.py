"""ICAE-Bench in one place: task references, record readers, import, export, the release download, certification.

* :mod:`.refs`: where things are in a data root, and the ``icae:`` task references.
* :mod:`.records`: lenient readers that normalise real record variants into the strict task model.
* :mod:`.load` / :mod:`.export`: :func:`load_icae_bench` reads a task; :func:`export_icae` writes one.
* :mod:`.fetch` (with :mod:`.download`, :mod:`.extract`, :mod:`.manifest`, :mod:`.layout`): :func:`fetch_icae`
  downloads the public release, verifies it against a manifest, unpacks it safely and checks its layout (the
  ``data`` extra installs ``lz4`` for the golden bundle).
* :mod:`.certify` / :mod:`.status`: :func:`certify_icae` runs every task's golden solution through the harness and
  keeps a status file per task.

The formats are described in ``docs/icae-format.md``; the command line is ``icae-env icae ...``. Importing
:mod:`icae_env` does not import this package; names here are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from icae_env.registration import lazy_getattr

if TYPE_CHECKING:
    from icae_env.icae_bench.certify import certify_icae
    from icae_env.icae_bench.download import DownloadPolicy
    from icae_env.icae_bench.export import export_icae
    from icae_env.icae_bench.fetch import FetchReport, fetch_icae
    from icae_env.icae_bench.layout import check_layout
    from icae_env.icae_bench.load import load_icae_bench
    from icae_env.icae_bench.manifest import load_manifest
    from icae_env.icae_bench.refs import icae_aliases, icae_ref
    from icae_env.icae_bench.status import certified_aliases

__all__ = [
    "DownloadPolicy",
    "FetchReport",
    "certify_icae",
    "certified_aliases",
    "check_layout",
    "export_icae",
    "fetch_icae",
    "icae_aliases",
    "icae_ref",
    "load_icae_bench",
    "load_manifest",
]

_HOMES = {
    "DownloadPolicy": "icae_env.icae_bench.download",
    "FetchReport": "icae_env.icae_bench.fetch",
    "certify_icae": "icae_env.icae_bench.certify",
    "certified_aliases": "icae_env.icae_bench.status",
    "check_layout": "icae_env.icae_bench.layout",
    "export_icae": "icae_env.icae_bench.export",
    "fetch_icae": "icae_env.icae_bench.fetch",
    "icae_aliases": "icae_env.icae_bench.refs",
    "icae_ref": "icae_env.icae_bench.refs",
    "load_icae_bench": "icae_env.icae_bench.load",
    "load_manifest": "icae_env.icae_bench.manifest",
}

__getattr__ = lazy_getattr(__name__, _HOMES)


def __dir__() -> list[str]:
    return sorted(__all__)
