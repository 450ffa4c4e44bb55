"""The files of a generated task pack (``task.yaml``, PRDs, case tiers, golden), in the icae-env pack format.

The PRDs follow ICAE's levels: **L1** is the business framing, one vague clause per feature and (knob
``l1_signals``) one per hidden decision; **L2** adds the ground sentences of the reveal set; **L3** is the ground PRD
with the masked decisions' literals replaced by ``(ask for it)``; **ground** states everything. Each level hides
what its PRD omits: L1 every hidden decision's record, L2 those not revealed, L3 one literal record per masked
decision, whose answer is the unmasked sentence (ICAE's own L3 answers are often a bare value; a sentence
stays unambiguous when a reply lists several points). A canary string marks every generated pack.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import yaml

from icae_env.families.cases import Cases
from icae_env.families.formats import Formats
from icae_env.families.spec import Family, Plan

__all__ = ["CANARY_PREFIX", "FALLBACK", "GOLDEN_ADAPTERS", "canary", "format_ids", "golden_repository", "pack_files"]

CANARY_PREFIX = "icae-gen-canary"
FALLBACK = (
    "I don't have more detail on that. Ask me about a specific input, output or rule of the tool and I will tell "
    "you what we decided."
)
MASK = "(ask for it)"

#: The files every generated golden repository gets, beside its sources (real files in ``families/repo/``).
_REPO = Path(__file__).with_name("repo")
GOLDEN_ADAPTERS = {"python": "adapter.py", "javascript": "adapter.js"}


def canary(plan: Plan) -> str:
    """The canary string of a generated task (searchable in any corpus the task might leak into)."""
    digest = hashlib.sha256(plan.name.encode("utf-8")).hexdigest()[:16]
    return f"{CANARY_PREFIX}:{plan.family}:{digest}"


def _repo_file(name: str) -> str:
    return (_REPO / name).read_text(encoding="utf-8")


def golden_repository(family: Family, plan: Plan, language: str) -> dict[str, str]:
    """The whole golden repository in ``language``: the family's sources, the adapter and ``rcb_tests/test.sh``.

    The adapter, ``rcb_tests/test.sh`` and its case splitter are the files of ``families/repo/`` (the Python
    adapter imports the golden's package, whose name replaces ``golden_package``).
    """
    from icae_env.families.model import python_package

    files = family.golden(plan, language)
    if language == "python":
        files["adapter.py"] = _repo_file("adapter.py").replace("golden_package", python_package(files))
        files["rcb_tests/split_cases.py"] = _repo_file("split_cases.py")
    else:
        files["adapter.js"] = _repo_file("adapter.js")
        files["rcb_tests/split_cases.js"] = _repo_file("split_cases.js")
    files["rcb_tests/test.sh"] = _repo_file("test.sh")
    files["README.md"] = f"# {plan.text(family.title)}\n\nReference solution of a generated task ({canary(plan)}).\n"
    return files


def _golden(family: Family, plan: Plan) -> dict[str, str]:
    return {f"golden/{path}": text for path, text in golden_repository(family, plan, plan.language).items()}


def _prds(family: Family, plan: Plan) -> dict[str, str]:
    title = f"# {plan.text(family.title)}\n\n{plan.text(family.intro(plan))}\n"
    features = [family.feature(stem) for stem in plan.features]
    value = {name: family.decision(name).value(key) for name, key in plan.values.items()}
    stated = [plan.text(value[name].ground) for name in plan.stated]
    l1 = title + "\n" + "\n".join(f"- {plan.text(f.l1)}" for f in features) + "\n"
    clauses = [plan.text(family.decision(name).clause) for name in plan.hidden]
    if plan.knobs.get("l1_signals", True) and clauses:
        l1 += "\n" + " ".join(clauses) + "\n"
    if stated:
        l1 += "\n" + " ".join(stated) + "\n"
    l2 = l1 + "\n" + " ".join(plan.text(value[name].ground) for name in plan.revealed) + "\n"

    def ground(masked: tuple[str, ...]) -> str:
        rules = []
        for name in plan.values:
            sentence = plan.text(value[name].ground)
            literal = value[name].literal
            rules.append(sentence.replace(plan.text(literal), MASK) if name in masked and literal else sentence)
        parts = [title, "## Features", *(f"- {plan.text(f.ground)}" for f in features), "", "## Rules"]
        parts += [f"- {rule}" for rule in rules]
        if family.api_signature:
            parts += ["", "## Interface", f"`{plan.text(family.api_signature)}`"]
        return "\n".join(parts) + "\n"

    return {"prd/L1.md": l1, "prd/L2.md": l2, "prd/L3.md": ground(plan.masked), "prd/ground.md": ground(())}


def format_ids(family: Family, plan: Plan) -> dict[str, str]:
    """Format record key -> its constraint id (``F001`` ...), for the task's format records."""
    return {record.key: f"F{i:03d}" for i, record in enumerate(family.formats_of(plan.features), start=1)}


def _records(family: Family, plan: Plan) -> tuple[list[dict[str, Any]], dict[str, list[str]]]:
    records, ids, literal_ids = [], {}, []
    for i, name in enumerate(plan.hidden, start=1):
        decision = family.decision(name)
        value = decision.value(plan.values[name])
        ids[name] = f"C{i:03d}"
        records.append({
            "constraint_id": ids[name], "kind": "behavior",
            "trigger_keywords": [plan.text(t) for t in decision.triggers],
            "oracle_response": plan.text(value.response),
        })  # fmt: skip
    for i, name in enumerate(plan.masked, start=1):
        decision = family.decision(name)
        literal_ids.append(f"L3_{i:03d}")
        records.append({
            "constraint_id": literal_ids[-1], "kind": "literal",
            "trigger_keywords": [plan.text(t) for t in decision.triggers],
            "oracle_response": plan.text(decision.value(plan.values[name]).ground),
        })  # fmt: skip
    formats = format_ids(family, plan)
    for record in family.formats_of(plan.features):
        records.append({
            "constraint_id": formats[record.key], "kind": "behavior",
            "trigger_keywords": [plan.text(t) for t in record.triggers],
            "oracle_response": plan.text(record.response),
        })  # fmt: skip
    hidden = {
        "L1": [ids[name] for name in plan.hidden] + list(formats.values()),
        "L2": [ids[name] for name in plan.hidden if name not in plan.revealed] + list(formats.values()),
        "L3": literal_ids + list(formats.values()),
    }
    return records, hidden


_TIER_NOTES = {
    "public": "plain requests",
    "native": "requests on which the product decisions show",
    "enhanced": "boundary and malformed requests",
}


def _case_files(family: Family, plan: Plan, cases: Cases) -> dict[str, str]:
    files = {}
    for tier, by_stem in (("public", cases.public), ("native", cases.native), ("enhanced", cases.enhanced)):
        for stem, pairs in by_stem.items():
            title = plan.text(family.feature(stem).title)
            body = {
                "description": f"{title}: {_TIER_NOTES[tier]}",
                "cases": [{"input": x, "expected_output": y} for x, y in pairs],
            }
            files[f"cases/{tier}/{stem}.json"] = json.dumps(body, ensure_ascii=False, indent=1) + "\n"
    return files


def pack_files(family: Family, plan: Plan, cases: Cases, version: str) -> dict[str, str]:
    """Every file of the task pack of ``plan`` (paths relative to the pack directory, named ``plan.task_id``).

    ``version`` is the family's full version (recorded in the task's metadata).
    """
    records, hidden = _records(family, plan)
    meta = {
        "family": plan.family, "family_version": version, "split": plan.split, "index": plan.index,
        "knobs": plan.knobs, "canary": canary(plan), "attempt": plan.attempt, "language": plan.language,
        "features": list(plan.features),
        "decisions": dict(plan.values), "hidden": list(plan.hidden), "revealed": list(plan.revealed),
        "masked": list(plan.masked), "stated": list(plan.stated), **Formats.of(family, plan).to_meta(),
    }  # fmt: skip
    spec = {
        "id": plan.task_id,
        "title": plan.text(family.title),
        "language": plan.language,
        "golden_api_signature": plan.text(family.api_signature),
        "fallback_response": FALLBACK,
        "constraints": records,
        "levels": {level: {"hidden": ids} for level, ids in hidden.items()},
        "meta": meta,
    }
    dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
    files = {"task.yaml": yaml.dump(spec, Dumper=dumper, sort_keys=False, allow_unicode=True, width=120)}
    return {**files, **_prds(family, plan), **_case_files(family, plan, cases), **_golden(family, plan)}
