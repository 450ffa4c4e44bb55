"""Release data: fetch, verify and install ICAE-Bench's public artifacts into a data root.

``fetch_icae(root)`` (``icae-env data fetch-icae --root DIR``) downloads the PRD/oracle/alias bundle, the test-case
bundle, the golden bundle and the Kotlin image from Zenodo (or a mirror), verifies them against a manifest, unpacks
the archives through a staging directory and checks the layout before anything enters the root. The extra
``data`` (``pip install "icae-env[data]"``) installs ``lz4`` for the golden bundle.
"""

from icae_env.data.download import DownloadPolicy
from icae_env.data.fetch import MARKER, FetchReport, fetch_icae
from icae_env.data.layout import LayoutReport, View, check_layout
from icae_env.data.manifest import ARTIFACT_NAMES, ZENODO, Artifact, Manifest, load_manifest

__all__ = [
    "ARTIFACT_NAMES",
    "MARKER",
    "ZENODO",
    "Artifact",
    "DownloadPolicy",
    "FetchReport",
    "LayoutReport",
    "Manifest",
    "View",
    "check_layout",
    "fetch_icae",
    "load_manifest",
]
