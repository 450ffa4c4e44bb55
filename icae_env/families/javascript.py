"""Run JavaScript goldens' ``handle`` on many inputs in one ``node`` process (Python/JavaScript agreement checks).

The real harness (``icae-env tasks validate``) runs each golden's ``rcb_tests/test.sh``; this is the cheap
in-process counterpart used by the family tests and ``benchmarks/family_figures.py`` to compare every case of many
tasks at once.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from icae_env.errors import SandboxError

__all__ = ["javascript_outputs"]

_RUNNER = Path(__file__).with_name("repo") / "run_many.js"


def javascript_outputs(jobs: Sequence[tuple[dict[str, str], list[Any]]]) -> list[list[str]]:
    """What each JavaScript golden's ``handle`` returns for each of its inputs.

    Args:
        jobs: ``(golden files, inputs)`` pairs; the golden exports ``handle`` from ``src/index.js``.

    Returns:
        One list of outputs per job, in input order.

    Raises:
        SandboxError: when ``node`` is not on PATH or a golden fails.
    """
    if shutil.which("node") is None:
        raise SandboxError("node is not on PATH: the JavaScript goldens cannot run (apt-get install nodejs)")
    with tempfile.TemporaryDirectory(prefix="icae-js-golden-") as scratch:
        root = Path(scratch)
        files = {"run.js": _RUNNER.read_text(encoding="utf-8"), "in.json": json.dumps([inputs for _, inputs in jobs])}
        for i, (golden, _) in enumerate(jobs):
            files.update({f"golden{i}/{path}": text for path, text in golden.items()})
        for path, text in files.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text, encoding="utf-8")
        done = subprocess.run(["node", "run.js", "in.json"], cwd=root, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SandboxError(f"a JavaScript golden failed: {done.stderr.strip()[-500:]}")
        return [list(outputs) for outputs in json.loads(done.stdout)]
