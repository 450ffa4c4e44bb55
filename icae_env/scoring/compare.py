"""ICAE's exact comparison rule, as pure functions.

Output files per stem are ``<stem>@<N>.txt``; ``base`` is the smallest ``N`` present (0 when none), so that
0-based and 1-based harnesses and any zero padding (``@0``, ``@000``) are all accepted; case ``i`` is compared
with file ``i + base``. A file is decoded as UTF-8 with replacement and read with universal newlines; it passes
iff it equals ``expected_output`` exactly (non-strings compared as ``json.dumps``). A missing file fails.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from icae_env.tasks.models import CaseFile

__all__ = ["OUTPUT_NAME", "collect_outputs", "decode_output", "compare_case_file"]

OUTPUT_NAME = re.compile(r"^(?P<stem>.+)@(?P<index>\d+)\.txt$")


def collect_outputs(stdout_dir: Path) -> dict[str, dict[int, bytes]]:
    """Read every ``<stem>@<N>.txt`` in ``stdout_dir`` into ``{stem: {N: bytes}}`` (empty if no directory)."""
    outputs: dict[str, dict[int, bytes]] = {}
    if not stdout_dir.is_dir():
        return outputs
    for path in stdout_dir.iterdir():
        match = OUTPUT_NAME.match(path.name)
        if match and path.is_file() and not path.is_symlink():
            outputs.setdefault(match["stem"], {})[int(match["index"])] = path.read_bytes()
    return outputs


def decode_output(data: bytes) -> str:
    """Decode raw stdout as ICAE does: UTF-8 with replacement, universal newlines."""
    text = data.decode("utf-8", errors="replace")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def compare_case_file(case_file: CaseFile, files: Mapping[int, bytes] | None) -> list[tuple[bool, str | None]]:
    """Compare one case file's cases with that stem's output files.

    Args:
        case_file: The authoritative cases (with ``expected_output``).
        files: ``{N: raw bytes}`` of the stem's output files, or None when there is none.

    Returns:
        One ``(passed, actual_text_or_None)`` per case, in case order; ``None`` means the file is missing.
    """
    files = files or {}
    base = min(files) if files else 0
    verdicts: list[tuple[bool, str | None]] = []
    for i, case in enumerate(case_file.cases):
        raw = files.get(i + base)
        if raw is None:
            verdicts.append((False, None))
            continue
        actual = decode_output(raw)
        verdicts.append((actual == case.expected_text, actual))
    return verdicts
