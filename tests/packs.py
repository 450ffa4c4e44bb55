"""Builders for small task packs and workspaces used across the tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

TEST_SH = r"""#!/usr/bin/env bash
set -u
cd "$(dirname "$0")/.."
SUB=public_test_cases
while [ $# -gt 0 ]; do case "$1" in --cases-dir) SUB="$2"; shift 2;; *) shift;; esac; done
mkdir -p "rcb_tests/stdout/$SUB"
for f in rcb_tests/"$SUB"/*.json; do
  [ -e "$f" ] || continue
  stem=$(basename "$f" .json)
  python3 - "$f" "$stem" "$SUB" <<'PY'
import json, subprocess, sys
path, stem, sub = sys.argv[1:4]
for i, case in enumerate(json.load(open(path))["cases"]):
    out = subprocess.run([sys.executable, "adapter.py"], input=json.dumps(case["input"]).encode(),
                         capture_output=True).stdout
    open(f"rcb_tests/stdout/{sub}/{stem}@{i}.txt", "wb").write(out)
PY
done
"""

ADAPTER = """import json, sys
data = json.load(sys.stdin)
if data.get("hang"):
    import time; time.sleep(1000)
if data.get("crash"):
    raise RuntimeError("boom")
print(data["text"].upper())
"""


def case_file(cases: list[tuple[Any, Any]], description: str = "d") -> dict[str, Any]:
    return {"description": description, "cases": [{"input": i, "expected_output": o} for i, o in cases]}


def spec(**overrides: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "id": "mini-echo",
        "title": "Upper-caser",
        "language": "python",
        "golden_api_signature": "upper(text: str) -> str",
        "fallback_response": "No details on that.",
        "constraints": [
            {
                "constraint_id": "C001",
                "kind": "behavior",
                "oracle_response": "Output is upper case plus newline.",
                "trigger_keywords": ["what is the output", "output format", "how is text transformed"],
            },
            {
                "constraint_id": "L3_001",
                "kind": "literal",
                "oracle_response": "upper",
                "trigger_keywords": ["which case", "what casing", "upper or lower"],
            },
        ],
        "context_pointers": [{"vague_reference": "the usual transform", "actual_meaning": "upper-casing"}],
        "levels": {"L1": {"hidden": ["C001"]}, "L2": {"hidden": ["C001"]}, "L3": {"hidden": ["L3_001"]}},
    }
    base.update(overrides)
    return base


def write_pack(
    root: Path,
    *,
    task: dict[str, Any] | None = None,
    tiers: dict[str, dict[str, Any]] | None = None,
    golden: bool = True,
) -> Path:
    """Write a valid pack (``root/mini-echo``) and return its directory."""
    task = task or spec()
    pack = root / task["id"]
    (pack / "prd").mkdir(parents=True)
    (pack / "task.yaml").write_text(yaml.safe_dump(task, sort_keys=False))
    for level in ("L1", "L2", "L3", "ground"):
        (pack / "prd" / f"{level}.md").write_text(f"# {level}\nMake text loud, the usual transform.\n")
    tiers = (
        tiers
        if tiers is not None
        else {
            "public": {"feature1_upper": case_file([({"text": "a"}, "A\n")])},
            "native": {"feature1_upper": case_file([({"text": t}, t.upper() + "\n") for t in ("b", "cd", "e f")])},
            "enhanced": {
                "feature1_upper": case_file([({"text": "ÿ"}, "Ÿ\n"), ({"text": "x" * 5000}, "X" * 5000 + "\n")])
            },
        }
    )
    for tier, files in tiers.items():
        (pack / "cases" / tier).mkdir(parents=True, exist_ok=True)
        for stem, body in files.items():
            (pack / "cases" / tier / f"{stem}.json").write_text(json.dumps(body))
    if golden:
        write_repo(pack / "golden")
    return pack


def write_repo(repo: Path, adapter: str = ADAPTER, test_sh: str | None = TEST_SH) -> Path:
    """Write a delivered repository (adapter + rcb_tests/test.sh)."""
    (repo / "rcb_tests").mkdir(parents=True, exist_ok=True)
    (repo / "adapter.py").write_text(adapter)
    if test_sh is not None:
        (repo / "rcb_tests" / "test.sh").write_text(test_sh)
    return repo
