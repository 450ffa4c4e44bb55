"""The real-harness checks of a generated task: every golden it has scores 100% on every tier, an empty one 0%.

Certification (:mod:`icae_env.families.certify`) runs in process; this runs ``rcb_tests/test.sh`` in fresh
sandboxes, once per golden language (a family with a JavaScript golden must agree with its Python one on every
case, byte for byte: the expected outputs come from the Python golden).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from icae_env.errors import IcaeEnvError
from icae_env.families.generation import Generated, generate
from icae_env.families.pack_files import golden_repository
from icae_env.families.plan import Knobs
from icae_env.families.registry import get_family
from icae_env.sandbox.spec import SandboxSpec
from icae_env.scoring import score
from icae_env.tasks.golden import write_golden
from icae_env.tasks.models import TIERS, GoldenFile, Task

__all__ = ["declared_problems", "harness_problems"]

_LOCATION = {"golden_dir", "golden_files", "origin"}


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


def declared_problems(task: Task, sandbox: SandboxSpec | str = "local") -> list[str]:
    """The checks of a task that declares it was generated (``meta["family"]``): regenerate it, compare, certify.

    The pack must equal what its family, split, index and knobs generate today (so a hand-edited or stale pack is
    caught), its certificate must hold, and every other golden language must pass the real harness.
    """
    meta = task.meta
    knobs = Knobs.model_validate(meta.get("knobs") or {})
    try:
        generated = generate(str(meta["family"]), str(meta["split"]), int(str(meta["index"])), knobs)
    except (IcaeEnvError, KeyError, ValueError) as exc:
        return [f"cannot regenerate from its meta: {exc}"]
    problems = [f"certification: {failure}" for failure in generated.certificate.failures]
    if generated.task.model_dump(exclude=_LOCATION) != task.model_dump(exclude=_LOCATION):
        problems.append("the pack differs from what its family generates for its meta (edited or stale)")
    family = get_family(generated.plan.family)
    others = [language for language in family.languages if language != generated.plan.language]
    if others:
        problems += [p for p in harness_problems(generated, sandbox) if not p.startswith(generated.plan.language)]
    return problems
