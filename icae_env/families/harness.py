"""The real-harness checks of a generated task: every golden it has scores 100% on every tier, an empty one 0%.

Certification (:mod:`icae_env.families.certify`) runs in process; this runs ``rcb_tests/test.sh`` in fresh
sandboxes, once per golden language (a family with a JavaScript golden must agree with its Python one on every
case, byte for byte: the expected outputs come from the Python golden).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from icae_env.families.generate import Generated
from icae_env.families.pack_files import golden_repository
from icae_env.families.registry import get_family
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring import score
from icae_env.tasks.golden import write_golden
from icae_env.tasks.models import TIERS, GoldenFile

__all__ = ["harness_problems"]


def _write(files: dict[str, str], dest: Path) -> Path:
    entries = tuple(GoldenFile(path=p, content=t, executable=p.endswith(".sh")) for p, t in files.items())
    return write_golden(entries, dest)


def harness_problems(generated: Generated, sandbox: SandboxSpec | str = "local") -> list[str]:
    """What the real harness finds wrong with a generated task (empty: golden 100% in every language, empty 0%)."""
    family, plan, task = get_family(generated.plan.family), generated.plan, generated.task
    problems = []
    with tempfile.TemporaryDirectory(prefix="icae-gen-harness-") as scratch:
        for language in family.languages:
            repo = _write(golden_repository(family, plan, language), Path(scratch) / language)
            report = score(task, repo, sandbox=sandbox, structure=False)
            for name in TIERS:
                tier = report.tiers.get(name)
                if tier is None or tier.passed != tier.total:
                    reason = tier.first_failure.model_dump_json() if tier and tier.first_failure else "missing tier"
                    problems.append(f"{language} golden fails {name}: {reason[:300]}")
        empty = Path(scratch) / "empty"
        empty.mkdir()
        blank = score(task, empty, sandbox=sandbox, structure=False)
        if any(t.passed for t in blank.tiers.values()):
            problems.append("an empty workspace passes some case")
    return problems
