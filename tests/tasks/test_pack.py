import json
import re

import pytest
import yaml
from packs import case_file, spec, write_pack

from icae_env.errors import TaskNotFoundError, TaskValidationError
from icae_env.tasks import load_task
from icae_env.tasks.models import ConstraintKind, HiddenConstraint, Task


def _edit_yaml(pack, mutate):
    data = yaml.safe_load((pack / "task.yaml").read_text())
    mutate(data)
    (pack / "task.yaml").write_text(yaml.safe_dump(data))


def _load_error(pack) -> TaskValidationError:
    with pytest.raises(TaskValidationError) as info:
        load_task(pack)
    message = str(info.value)
    assert "\n" not in message
    return info.value


def test_valid_pack_loads(mini_task):
    assert mini_task.id == "mini-echo"
    assert mini_task.available_tiers == ("public", "native", "enhanced")
    l1 = {r.constraint_id for r in mini_task.level("L1").hidden_constraints}
    assert {"C001", "ARCH001", "HARNESS001", "HARNESS002", "HARNESS003", "TC_feature1_upper"} == l1
    assert [r.constraint_id for r in mini_task.level("L3").hidden_constraints] == ["L3_001"]
    assert mini_task.level("ground").hidden_constraints == ()
    assert "## Public test cases" in mini_task.prd("L3") and "## Public test cases" not in mini_task.prd("L1")
    assert mini_task.level("L1").context_pointers[0].vague_reference == "the usual transform"


@pytest.mark.parametrize(
    ("mutate", "field", "reason"),
    [
        (lambda d: d.update(surprise=1), "surprise", "unknown field"),
        (lambda d: d.pop("title"), "title", "missing field"),
        (lambda d: d["constraints"][0].update(colour="red"), "constraints[0].colour", "unknown field"),
        (lambda d: d["constraints"][1].pop("oracle_response"), "constraints[1].oracle_response", "missing field"),
        (
            lambda d: d["constraints"][0].update(trigger_keywords=["a", "b"]),
            "constraints[0].trigger_keywords",
            "at least 3",
        ),
        (lambda d: d["constraints"][1].update(constraint_id="C001"), "constraints[1].constraint_id", "duplicate"),
        (lambda d: d["levels"]["L2"].update(hidden=["C001", "C999"]), "levels.L2.hidden[1]", "unknown constraint"),
        (lambda d: d["constraints"][0].update(kind="vibes"), "constraints[0].kind", "api"),
        (lambda d: d.update(id="other"), "id", "directory name"),
    ],
)
def test_bad_task_yaml_names_file_and_field(mini_pack, mutate, field, reason):
    _edit_yaml(mini_pack, mutate)
    error = _load_error(mini_pack)
    assert error.file.endswith("task.yaml")
    assert error.field == field
    assert reason in str(error)
    assert str(error).startswith(f"{mini_pack / 'task.yaml'}: {field}: ")


def test_case_file_that_is_not_json(mini_pack):
    bad = mini_pack / "cases" / "native" / "feature1_upper.json"
    bad.write_text('{"description": "x", "cases": [')
    error = _load_error(mini_pack)
    assert error.file == str(bad)
    assert "not valid JSON" in str(error)


def test_case_file_with_bad_field(mini_pack):
    bad = mini_pack / "cases" / "public" / "feature1_upper.json"
    bad.write_text(json.dumps({"description": "x", "cases": [{"input": 1, "expected_output": "1", "extra": 2}]}))
    error = _load_error(mini_pack)
    assert (error.file, error.field) == (str(bad), "cases[0].extra")


def test_case_without_expected_output(mini_pack):
    bad = mini_pack / "cases" / "public" / "feature1_upper.json"
    bad.write_text(json.dumps({"cases": [{"input": 1}]}))
    assert _load_error(mini_pack).field == "cases[0].expected_output"


def test_enhanced_case_identical_to_native(tmp_path):
    tiers = {
        "native": {"f1": case_file([({"text": "a"}, "A\n"), ({"text": "b"}, "B\n")])},
        "enhanced": {"f1": case_file([({"text": "z"}, "Z\n"), ({"text": "b"}, "B\n")])},
    }
    pack = write_pack(tmp_path, tiers=tiers)
    error = _load_error(pack)
    assert error.file.endswith("cases/enhanced/f1.json")
    assert error.field == "cases[1].input"
    assert "identical to native case f1.json cases[1]" in str(error)


def test_invalid_yaml_and_missing_files(mini_pack):
    (mini_pack / "prd" / "L2.md").unlink()
    error = _load_error(mini_pack)
    assert error.file.endswith("prd/L2.md")
    (mini_pack / "task.yaml").write_text("id: [unclosed\n")
    error = _load_error(mini_pack)
    assert re.search(r"task\.yaml: -: not valid YAML at line \d", str(error))


def test_unknown_task_suggests_names():
    with pytest.raises(TaskNotFoundError, match="did you mean builtin/semver-range"):
        load_task("builtin/semver-rang")
    with pytest.raises(TypeError, match="got int"):
        load_task(3)  # type: ignore[arg-type]


def test_models_are_frozen_and_strict(mini_task):
    with pytest.raises(Exception, match="frozen"):
        mini_task.id = "x"  # type: ignore[misc]
    with pytest.raises(Exception, match="Extra inputs"):
        HiddenConstraint(constraint_id="C1", trigger_keywords=("a", "b", "c"), oracle_response="", bogus=1)
    with pytest.raises(Exception, match="at least 3"):
        HiddenConstraint(constraint_id="C1", trigger_keywords=("a", "b", " "), oracle_response="")
    with pytest.raises(Exception, match="default_level"):
        Task.model_validate({**mini_task.model_dump(), "default_level": "L2", "levels": {"L1": mini_task.level("L1")}})
    assert (
        HiddenConstraint(
            constraint_id="TC_x", kind="test_cases", trigger_keywords=("a", "b", "c"), oracle_response=""
        ).kind
        is ConstraintKind.TEST_CASES
    )


def test_task_round_trips_through_json(mini_task):
    clone = Task.model_validate_json(mini_task.model_dump_json())
    assert clone == mini_task


def test_yaml_overrides_runtime(tmp_path):
    pack = write_pack(tmp_path, task=spec(runtime={"image": "local/python"}))
    task = load_task(pack / "task.yaml")
    assert task.runtime.image == "local/python" and task.runtime.toolchain == ("python3",)
