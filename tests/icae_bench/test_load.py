"""ICAE-Bench import (the real sample and synthetic release variations) and export round trips."""

import json
import shutil
from pathlib import Path

import pytest

from icae_env.errors import IcaeImportError
from icae_env.icae_bench.export import export_icae
from icae_env.icae_bench.load import load_icae_bench
from icae_env.scoring import score
from icae_env.tasks import list_tasks, load_task
from icae_env.tasks.models import ConstraintKind

SAMPLE_ALIASES = [f"realcode@00{i}" for i in range(1, 6)]


@pytest.mark.parametrize("alias", SAMPLE_ALIASES)
@pytest.mark.parametrize("level", ["L1", "L2", "L3"])
def test_sample_loads_at_every_level(icae_sample, alias, level):
    task = load_icae_bench(icae_sample, alias, level=level)
    assert task.default_level == level and sorted(task.levels) == ["L1", "L2", "L3"]
    assert task.available_tiers == ("public",)
    assert any("hidden tiers not available" in note for note in task.notes)
    spec = task.level(level)
    raw = json.loads(
        (
            icae_sample
            / "user_agent"
            / {"L1": "prd_json", "L2": "prd_json_medium", "L3": "prd_json_easy"}[level]
            / f"{alias}.json"
        ).read_text()
    )
    assert [r.constraint_id for r in spec.hidden_constraints] == [
        r["constraint_id"] for r in raw["oracle_data"]["hidden_constraints"]
    ]
    assert spec.fallback_response == raw["oracle_data"]["fallback_response"]
    assert spec.prd.startswith("## Product Requirement Document")
    assert task.tests.case_count("public") == sum(len(f["cases"]) for f in raw["public_test_cases"].values())
    assert task.language in {"javascript", "ruby", "python"}


def test_sample_kinds_and_l2_subset(icae_sample):
    task = load_icae_bench(icae_sample, "realcode@001")
    kinds = {r.constraint_id: r.kind for r in task.level("L1").hidden_constraints}
    assert kinds["ARCH001"] is ConstraintKind.ARCH and kinds["HARNESS002"] is ConstraintKind.PROTOCOL
    assert kinds["TC_feature2_cyclic"] is ConstraintKind.TEST_CASES and kinds["C001"] is ConstraintKind.BEHAVIOR
    l1 = {r.constraint_id for r in task.level("L1").hidden_constraints}
    assert {r.constraint_id for r in task.level("L2").hidden_constraints} < l1
    assert all(r.kind is ConstraintKind.LITERAL for r in task.level("L3").hidden_constraints)


def test_lookup_by_key(icae_sample):
    assert load_icae_bench(icae_sample, "developit__unfetch").id == "realcode@002"


def _root_with(tmp_path: Path, l1: dict, **extra) -> Path:
    root = tmp_path / "root"
    (root / "user_agent" / "prd_json").mkdir(parents=True)
    (root / "user_agent" / "prd_json" / "realcode@900.json").write_text(json.dumps(l1))
    (root / "repo_alias.json").write_text(
        json.dumps({"realcode@900": {"key": "own__repo", "language": "Go", "repo_name": "repo"}})
    )
    for rel, content in extra.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content))
    return root


def test_release_variations_are_normalised(tmp_path):
    l1 = {
        "fuzzy_prd": "make a thing",
        "_raw1": "x",
        "_plan": {},
        "_constraints": [],
        "oracle_data": {
            "task_id": "own__repo-001",
            "golden_api_signature": None,
            "hidden_constraints": [
                {"id": "C001", "description": "d", "trigger_keywords": ["a", "b", "c"], "oracle_response": "x"},
                {"constraint_id": "DISPATCHER_ACTIONS", "trigger_keywords": "one phrase", "oracle_response": 42},
                {"constraint_id": "hc-7", "trigger_keywords": ["p", "q", "r"], "oracle_response": ""},
                {"constraint_id": "C001", "trigger_keywords": ["a2", "b2", "c2"], "oracle_response": "dup"},
                "not a record",
            ],
            "context_pointers": [
                {"vague_reference": "the thing", "explanation": "the widget", "code_location": "src/w.go"},
                {"actual_meaning": "orphan"},
            ],
        },
        "public_test_cases": {
            "feature1.json": {"description": "d", "cases": [{"input": {"a": 1}, "expected_output": {"b": 2}}]},
            "feature2.json": [{"input": 3, "expected_output": "3\n"}],
        },
    }
    task = load_icae_bench(_root_with(tmp_path, l1), "realcode@900")
    records = {r.constraint_id: r for r in task.level("L1").hidden_constraints}
    assert list(records) == ["C001", "DISPATCHER_ACTIONS", "hc-7", "C001#2"]
    assert records["DISPATCHER_ACTIONS"].oracle_response == "42"
    assert len(records["DISPATCHER_ACTIONS"].trigger_keywords) >= 3
    pointer = task.level("L1").context_pointers
    assert len(pointer) == 1 and pointer[0].actual_meaning == "the widget (see src/w.go)"
    assert task.language == "go" and task.runtime.image == "golang:1.22"
    assert task.level("L1").golden_api_signature == "" and task.level("L1").fallback_response
    assert task.tests.case_count("public") == 2
    text = "\n".join(task.notes)
    for expected in [
        "record id read from 'id'",
        "dropped extra record keys ['description']",
        "padded",
        "non-string oracle_response",
        "duplicate id C001 renamed C001#2",
        "not an object",
        "meaning read from 'explanation'",
        "code_location",
        "without vague_reference",
        "a bare case list",
        "no fallback_response",
        "ignored metadata keys",
    ]:
        assert expected in text, expected


def test_hidden_tiers_and_golden_are_found(tmp_path):
    case = {"description": "d", "cases": [{"input": 1, "expected_output": "1\n"}]}
    root = _root_with(
        tmp_path,
        {"fuzzy_prd": "x", "oracle_data": {"hidden_constraints": [], "fallback_response": "f"}},
        **{
            "rcb_tests_repos/own__repo/rcb_tests/public_test_cases/f.json": case,
            "rcb_tests_repos/own__repo/rcb_tests/test_cases/f.json": case,
            "rcb_tests_repos/own__repo/rcb_tests/enhanced_test_cases/f.json": "{broken",
            "realcode_repos/own__repo/main.go": "package main\n",
        },
    )
    task = load_icae_bench(root, "realcode@900")
    assert task.available_tiers == ("public", "native")
    assert task.golden_dir and (task.golden_dir / "main.go").is_file()
    assert any("enhanced_test_cases/f.json: not valid JSON" in n for n in task.notes)


def test_import_errors(tmp_path, icae_sample):
    with pytest.raises(IcaeImportError, match="not an ICAE-Bench data root"):
        load_icae_bench(tmp_path, "realcode@001")
    with pytest.raises(IcaeImportError, match="no usable L1 record file; levels present: none"):
        load_icae_bench(icae_sample, "realcode@999")
    with pytest.raises(IcaeImportError, match="level must be one of"):
        load_icae_bench(icae_sample, "realcode@001", level="L9")
    root = _root_with(tmp_path, {"fuzzy_prd": "x"})
    (root / "user_agent" / "prd_json" / "realcode@900.json").write_text("{nope")
    with pytest.raises(IcaeImportError, match="levels present: none"):
        load_icae_bench(root, "realcode@900")


def test_export_import_round_trip_scores_the_same(tmp_path):
    task = load_task(list_tasks()[0])
    root = export_icae(task, tmp_path / "export")
    back = load_icae_bench(root, task.id)
    assert back.available_tiers == task.available_tiers
    assert back.language == task.language
    for level in ("L1", "L2", "L3"):
        ours, theirs = task.level(level), back.level(level)
        assert [(r.constraint_id, r.trigger_keywords, r.oracle_response) for r in ours.hidden_constraints] == [
            (r.constraint_id, r.trigger_keywords, r.oracle_response) for r in theirs.hidden_constraints
        ]
        assert theirs.prd.endswith(ours.prd)
        assert theirs.context_pointers == ours.context_pointers
    for tier in ("public", "native", "enhanced"):
        assert back.tests.tier(tier) == task.tests.tier(tier)
    golden = score(back, back.golden_dir, tiers=["public"], structure=False)
    assert golden.rate("public") == 1.0
    export_icae(load_task(list_tasks()[1]), root)
    assert set(json.loads((root / "repo_alias.json").read_text())) == {task.id, list_tasks()[1].split("/")[1]}


def test_sample_round_trip(icae_sample, tmp_path):
    task = load_icae_bench(icae_sample, "realcode@005")
    back = load_icae_bench(export_icae(task, tmp_path / "x"), task.id)
    assert back.level("L3").hidden_constraints == task.level("L3").hidden_constraints
    assert back.level("L1").prd == task.level("L1").prd
    shutil.rmtree(tmp_path / "x")


def test_more_variations(tmp_path):
    l1 = {
        "fuzzy_prd": ["part one", "part two"],
        "oracle_data": {
            "hidden_constraints": [{"trigger_keywords": [], "oracle_response": ""}],
            "fallback_response": "f",
        },
        "public_test_cases": {"f.json": {"cases": [{"input": 1, "expected": "1\n"}, {"input": 2}]}},
    }
    root = _root_with(tmp_path, l1, **{"realcode_repos/realcode@900/main.rs": "fn main() {}\n"})
    (root / "repo_alias.json").unlink()
    path = root / "user_agent" / "prd_json" / "realcode@900.json"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    task = load_icae_bench(root, "realcode@900", level="normal")
    assert task.default_level == "L1" and task.language == "rust"
    assert task.prd("L1").endswith("part one\n\npart two")
    record = task.level("L1").hidden_constraints[0]
    assert record.constraint_id == "R001" and len(record.trigger_keywords) == 3
    cases = task.tests.public[0].cases
    assert cases[0].expected_output == "1\n" and cases[1].expected_output is None
    text = "\n".join(task.notes)
    assert "expected output read from 'expected'" in text and "inferred from the golden: rust" in text


def test_structure_uses_the_release_denominators(tmp_path):
    root = export_icae(load_task("builtin/token-bucket"), tmp_path / "release")
    table = json.loads((root / "repo_alias.json").read_text())
    counted = table["token-bucket"]["total_code_files"], table["token-bucket"]["total_lines_of_code"]
    assert counted[0] > 0 and counted[1] > 0  # the exporter counts the golden as the scorer does
    table["token-bucket"].update(total_code_files=40, total_lines_of_code="1000")
    (root / "repo_alias.json").write_text(json.dumps(table))
    task = load_icae_bench(root, "token-bucket")
    assert (task.meta["total_code_files"], task.meta["total_lines_of_code"]) == (40, 1000)
    report = score(task, task.golden_dir, tiers=["public"]).structure
    assert report is not None and (report.golden_files, report.golden_loc) == (40, 1000)
    assert report.file_ratio == report.files / 40 and report.loc_ratio == report.loc / 1000
    assert report.class_sim == 1.0  # similarity still compares with the golden's own names
    table["token-bucket"].update(total_code_files="many", total_lines_of_code=0)
    (root / "repo_alias.json").write_text(json.dumps(table))
    task = load_icae_bench(root, "token-bucket")
    assert task.meta == {} and sum("no usable total_code_files" in n for n in task.notes) == 1
    report = score(task, task.golden_dir, tiers=["public"]).structure
    assert report is not None and (report.golden_files, report.golden_loc) == counted


def test_tests_and_goldens_from_separate_roots(tmp_path, monkeypatch):
    root = export_icae(load_task("builtin/token-bucket"), tmp_path / "release")
    shutil.move(root / "rcb_tests_repos", tmp_path / "tests-elsewhere")
    shutil.move(root / "realcode_repos", root / "goldens")
    monkeypatch.delenv("ICAE_RCB_TESTS_DIR", raising=False)
    monkeypatch.delenv("ICAE_GOLDEN_REPOS_DIR", raising=False)
    alone = load_icae_bench(root, "token-bucket")
    assert alone.available_tiers == ("public",) and alone.golden_dir is None
    monkeypatch.setenv("ICAE_RCB_TESTS_DIR", str(tmp_path / "tests-elsewhere"))
    monkeypatch.setenv("ICAE_GOLDEN_REPOS_DIR", "goldens")  # relative: to the data root
    task = load_icae_bench(root, "token-bucket")
    assert task.available_tiers == ("public", "native", "enhanced")
    assert task.golden_dir is not None and task.golden_dir.parent == root / "goldens"
    assert score(task, task.golden_dir, tiers=["native"], structure=False).rate("native") == 1.0
