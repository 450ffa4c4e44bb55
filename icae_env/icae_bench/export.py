"""Export icae-env tasks into an ICAE-Bench data root, in the layout :func:`~.load.load_icae_bench` reads back."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from icae_env.icae_bench.load import PRD_HEADER
from icae_env.icae_bench.refs import LEVEL_DIRS, read_alias_table
from icae_env.scoring.structure import count_source
from icae_env.tasks.golden import write_golden
from icae_env.tasks.models import TIER_DIRS, TIERS, LevelSpec, Task

__all__ = ["export_icae"]

_LANGUAGE_NAMES = {"javascript": "JavaScript", "typescript": "TypeScript", "c++": "C++", "c#": "C#", "php": "PHP"}


def _record_json(spec: LevelSpec, task_id: str) -> dict[str, Any]:
    return {
        "task_id": task_id,
        "golden_api_signature": spec.golden_api_signature,
        "hidden_constraints": [
            {
                "constraint_id": r.constraint_id,
                "trigger_keywords": list(r.trigger_keywords),
                "oracle_response": r.oracle_response,
            }
            for r in spec.hidden_constraints
        ],
        "context_pointers": [p.model_dump() for p in spec.context_pointers],
        "fallback_response": spec.fallback_response,
    }


def _write_json(path: Path, data: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def _golden_size(golden: Path | None) -> dict[str, int]:
    if golden is None:
        return {}
    files, loc = count_source(golden)
    return {"total_code_files": files, "total_lines_of_code": loc}


def export_icae(task: Task, out_dir: str | Path, alias: str | None = None) -> Path:
    """Write ``task`` into an ICAE-Bench data root (created or extended) so that ICAE tools can read it.

    The ground level has no ICAE counterpart and is not written. ``repo_alias.json`` gets the alias, key,
    language and, with a golden solution, its ``total_code_files`` / ``total_lines_of_code`` as the structural
    metrics count them; the cases go to ``rcb_tests_repos/<key>/rcb_tests/<tier>/`` and the golden to
    ``realcode_repos/<key>/``. ``load_icae_bench(out_dir, alias)`` reads the result back with the same records,
    cases and golden solution.

    Args:
        task: The task to export.
        out_dir: The data root to write into.
        alias: Alias to use (default: the task id).

    Returns:
        The data root.
    """
    root = Path(out_dir)
    alias = alias or task.id
    key = alias.replace("/", "__").replace("@", "-")
    table = read_alias_table(root)
    table[alias] = {
        "alias": alias,
        "key": key,
        "repo_name": task.title,
        "language": _LANGUAGE_NAMES.get(task.language, task.language.title()),
        **_golden_size(task.golden_dir),
    }
    _write_json(root / "repo_alias.json", table)
    public = {f"{f.stem}.json": f.to_json() for f in task.tests.public}
    for level, (json_dir, prd_dir) in LEVEL_DIRS.items():
        if level not in task.levels:
            continue
        spec = task.levels[level]
        prd = spec.prd if spec.prd.startswith(PRD_HEADER) else PRD_HEADER + spec.prd
        (root / prd_dir / alias).mkdir(parents=True, exist_ok=True)
        (root / prd_dir / alias / "start.md").write_text(prd, encoding="utf-8")
        body = {
            "fuzzy_prd": prd[len(PRD_HEADER) :],
            "oracle_data": _record_json(spec, key),
            "public_test_cases": public,
        }
        _write_json(root / "user_agent" / json_dir / f"{alias}.json", body)
    for tier in TIERS:
        for case_file in task.tests.tier(tier):
            _write_json(
                root / "rcb_tests_repos" / key / "rcb_tests" / TIER_DIRS[tier] / f"{case_file.stem}.json",
                case_file.to_json(),
            )
    if task.golden_dir is not None:
        shutil.copytree(task.golden_dir, root / "realcode_repos" / key, dirs_exist_ok=True)
    elif task.golden_files:
        write_golden(task.golden_files, root / "realcode_repos" / key)
    return root
